import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * Stack traces read in the sources, without `--enable-source-maps`: that flag makes Node read and parse a
 * bundle's whole map while it loads the bundle, some 17 ms of every cold start of a 500 KB bundle here
 * (issue 33), for traces that only a failing request writes. So a logged error's stack is mapped when it
 * is logged, with Node's own SourceMap over the `.map` the bundle ships beside it, read on first use.
 */

const maps = new Map<string, SourceMap | undefined>();

const mapOf = (file: string): SourceMap | undefined => {
  if (!maps.has(file)) {
    try {
      maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
    } catch {
      maps.set(file, undefined);
    }
  }
  return maps.get(file);
};

// A frame's place in a bundle: `file:///var/task/index.mjs:1:2345` or `/var/task/index.mjs:1:2345`.
const BUNDLE_FRAME = /(file:\/\/[^\s()]+\.mjs|\/[^\s():]+\.mjs):(\d+):(\d+)/g;

/** A stack with each bundle frame replaced by its place in the sources (`lib/http/group-handler.ts:120:5`). */
export function originalStack(stack: string): string {
  return stack.replace(BUNDLE_FRAME, (frame, file: string, line: string, column: string) => {
    const map = mapOf(file.startsWith('file:') ? fileURLToPath(file) : file);
    const entry = map?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry) || !entry.originalSource) return frame;
    const source = entry.originalSource.replace(/^(?:\.\.\/)+/, '').replace(/^file:\/\//, '');
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

/**
 * The logger's JSON replacer (Powertools' `jsonReplacerFn`): an error is logged as a copy whose stack, and
 * its causes' stacks, are read in the sources; everything else as it is.
 */
export function mapErrorStacks(_key: string, value: unknown): unknown {
  if (!(value instanceof Error) || typeof value.stack !== 'string') return value;
  const mapped = originalStack(value.stack);
  const cause = mapErrorStacks('cause', value.cause);
  if (mapped === value.stack && cause === value.cause) return value;
  const copy = Object.create(Object.getPrototypeOf(value)) as Error;
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(value));
  Object.defineProperty(copy, 'stack', { value: mapped, configurable: true, writable: true });
  if (value.cause !== undefined) {
    Object.defineProperty(copy, 'cause', { value: cause, configurable: true, writable: true });
  }
  return copy;
}
