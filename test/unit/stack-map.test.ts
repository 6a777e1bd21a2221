import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { build } from 'esbuild';
import { describe, expect, it, vi } from 'vitest';
import { mapErrorStacks, originalStack } from '#lib/runtime/stack-map.ts';

// A minified bundle with its map beside it, as the stack deploys one, loaded without --enable-source-maps.
const planted = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stack-map-'));
  writeFileSync(
    join(dir, 'thrower.ts'),
    [
      'export function fail(): never {',
      "  throw new Error('planted', { cause: new TypeError('under it') });",
      '}',
      '',
    ].join('\n'),
  );
  const outfile = join(dir, 'index.mjs');
  await build({
    entryPoints: [join(dir, 'thrower.ts')],
    outfile,
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  // A plain Node process: vitest's own workers map stacks already.
  const script = `const { fail } = await import(${JSON.stringify(pathToFileURL(outfile).href)});
    try { fail(); } catch (error) { console.log(JSON.stringify([error.stack, error.cause.stack])); }`;
  const [stack, causeStack] = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as [string, string];
  const cause = new TypeError('under it');
  cause.stack = causeStack;
  const error = new Error('planted', { cause });
  error.stack = stack;
  return error;
};

describe('stacks read in the sources', () => {
  it("replaces a bundle's frames by their places in the sources, from the map beside it", async () => {
    const error = await planted();
    expect(error.stack).toMatch(/index\.mjs:1:\d+/);
    expect(originalStack(error.stack ?? '')).toMatch(/thrower\.ts:2:\d+/);
  });

  it('leaves frames without a map, and stacks already in the sources, as they are', () => {
    const stack = 'Error: x\n    at f (/nowhere/index.mjs:1:20)\n    at g (/work/lib/http/api.ts:3:4)';
    expect(originalStack(stack)).toBe(stack);
  });

  it('makes the logger write the mapped stack and location, its cause mapped too', async () => {
    const error = await planted();
    const lines: string[] = [];
    const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR', jsonReplacerFn: mapErrorStacks });
    const keep = (chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(keep);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(keep);
    try {
      logger.error('request failed', { error });
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const logged = JSON.parse(lines.join('')) as {
      error: { location: string; stack: string; message: string; cause: { stack: string } };
    };
    expect(logged.error.message).toBe('planted');
    expect(logged.error.location).toMatch(/thrower\.ts:2$/);
    expect(logged.error.stack).toMatch(/thrower\.ts:2:\d+/);
    expect(logged.error.cause.stack).toMatch(/thrower\.ts:2:\d+/);
    // The error itself is left as it was.
    expect(error.stack).toMatch(/index\.mjs/);
  });
});
