import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED, NEEDS_ISOLATION, TIMED } from '#test/support/projects.ts';

// Issue 42, item 7: the service project's files share their worker's modules (vitest.config.ts). A file that
// replaces a module or changes the environment or Date for every module must run in the isolated project,
// or the next file in its worker inherits what it did.

const FOLDERS = ['test/integration', 'test/review', 'test/e2e', 'test/infra'];

const serviceFiles = (): string[] =>
  FOLDERS.flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => join(folder, name)),
  );

describe('the test projects', () => {
  it('run every file that replaces a module or changes the environment or Date with modules of its own', () => {
    const needing = serviceFiles().filter((file) => NEEDS_ISOLATION.test(readFileSync(file, 'utf8')));
    expect(needing.filter((file) => !ISOLATED.includes(file) && !TIMED.includes(file))).toEqual([]);
    expect(needing.length).toBeGreaterThan(0);
  });

  it('name only files that exist and need it', () => {
    const files = serviceFiles();
    for (const file of [...ISOLATED, ...TIMED]) expect(files, file).toContain(file);
    for (const file of ISOLATED) expect(NEEDS_ISOLATION.test(readFileSync(file, 'utf8')), file).toBe(true);
  });

  it('recognises what needs isolation', () => {
    for (const text of [
      "vi.mock('#lib/x.ts')",
      "vi.stubEnv('A', 'b')",
      "vi.useFakeTimers({ toFake: ['Date'] })",
      "process.env.TABLE_NAME = 'x'",
      "process.env['A'] = 'b'",
      'delete process.env.A',
    ])
      expect(NEEDS_ISOLATION.test(text), text).toBe(true);
    for (const text of ["process.env.TABLE_NAME === 'x'", 'const a = process.env.A', 'vi.fn()'])
      expect(NEEDS_ISOLATION.test(text), text).toBe(false);
  });
});
