import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<Set<string>>();

/** Runs a request's work, collecting the names of the parameters it ignored into `names`. */
export const collectIgnored = <T>(names: Set<string>, work: () => Promise<T>): Promise<T> =>
  current.run(names, work);

/** Notes parameters that the request sent but nothing reads (reported in `request.ignored`). */
export function reportIgnored(names: Iterable<string>): void {
  const collected = current.getStore();
  if (collected) for (const name of names) collected.add(name);
}

/**
 * A parameter's names as the client sent them: `qty` for a plain value, `param[x]` (and deeper) for each
 * leaf of a bracketed one.
 */
export function namesAsSent(name: string, value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [name];
  const entries = Object.entries(value);
  if (entries.length === 0) return [name];
  return entries.flatMap(([key, child]) => namesAsSent(`${name}[${Array.isArray(value) ? '' : key}]`, child));
}
