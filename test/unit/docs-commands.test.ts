import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const scripts = Object.keys(
  (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
);

const guides = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

// Fenced blocks hold shell lines and JSON, whose `#` and brackets are not markdown.
function stripFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The anchor GitHub gives a heading (github-slugger): lower case, punctuation dropped, spaces as dashes. */
function slugOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of stripFences(readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = slugOf(heading as string);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link of a markdown file that does not resolve: a missing file or a missing heading. */
function brokenLinks(file: string, text = readFileSync(file, 'utf8')): string[] {
  const broken: string[] = [];
  // Code spans go too (they may wrap, not across a blank line): `rates [{…}]` followed by `(` is not a link.
  const prose = stripFences(text).replace(/`(?:[^`\n]|\n(?!\n))*`/g, '');
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    if (/^[a-z][a-z+.-]*:/i.test(target as string)) continue;
    const [path, anchor] = (target as string).split('#') as [string, string | undefined];
    const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    if (!existsSync(resolved)) broken.push(`${target} (no file ${resolved})`);
    else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
      broken.push(`${target} (no heading #${anchor} in ${resolved})`);
  }
  return broken;
}

describe('the commands the guides give', () => {
  for (const file of guides) {
    it(`are package scripts or npm's own, in ${file}`, () => {
      const text = readFileSync(file, 'utf8');
      const named = [...text.matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map((match) => match[1]);
      if (file === 'README.md' || file === 'docs/deploy.md') expect(named.length).toBeGreaterThan(0);
      expect(named.filter((name) => !scripts.includes(name as string))).toEqual([]);
    });
  }

  it('deploy with the context the app reads (tenant, stage)', () => {
    const app = readFileSync('infra/app.ts', 'utf8');
    const text = readFileSync('docs/deploy.md', 'utf8');
    for (const [, key] of text.matchAll(/ -c (\w+)=/g)) expect(app).toContain(`tryGetContext('${key}')`);
  });
});

describe('the links the guides give', () => {
  it('find the headings GitHub makes', () => {
    expect(slugOf('Environment of `npm start`')).toBe('environment-of-npm-start');
    expect(slugOf('6. Watching it')).toBe('6-watching-it');
    expect(slugOf('Bookings: from the cart to check-out')).toBe('bookings-from-the-cart-to-check-out');
    expect(slugOf('Clients, limits and abuse')).toBe('clients-limits-and-abuse');
  });

  it('are caught when they lead nowhere', () => {
    const text =
      '[a](nowhere.md) [b](deploy.md#no-such-heading) [c](deploy.md#6-watching-it) [d](#prerequisites)';
    expect(brokenLinks('docs/deploy.md', text)).toEqual([
      'nowhere.md (no file docs/nowhere.md)',
      'deploy.md#no-such-heading (no heading #no-such-heading in docs/deploy.md)',
    ]);
  });

  for (const file of guides) {
    it(`lead to a file and heading that exist, in ${file}`, () => {
      expect(brokenLinks(file)).toEqual([]);
    });
  }
});
