import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const scripts = Object.keys(
  (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
);

describe('the commands the guides give', () => {
  for (const file of ['README.md', 'docs/deploy.md']) {
    it(`are package scripts or npm's own, in ${file}`, () => {
      const text = readFileSync(file, 'utf8');
      const named = [...text.matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map((match) => match[1]);
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((name) => !scripts.includes(name as string))).toEqual([]);
    });
  }

  it('deploy with the context the app reads (tenant, stage)', () => {
    const app = readFileSync('infra/app.ts', 'utf8');
    const text = readFileSync('docs/deploy.md', 'utf8');
    for (const [, key] of text.matchAll(/ -c (\w+)=/g)) expect(app).toContain(`tryGetContext('${key}')`);
  });
});
