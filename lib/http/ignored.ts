// Where each request's ignored parameter names go, by the input object the API layer hands its route:
// whatever reads a request's parameters reads them from that object. (An AsyncLocalStorage did this
// before; its promise hooks ran on every promise of the process, about 0.1 ms of a rated item's 1.4:
// docs/performance.md.)
const collectors = new WeakMap<object, Set<string>>();

/** Collects the names of the parameters of `input` that nothing reads into `names`. */
export function collectIgnored(input: object, names: Set<string>): void {
  collectors.set(input, names);
}

/** Notes parameters that the request sent in `input` but nothing reads (reported in `request.ignored`). */
export function reportIgnored(input: object, names: Iterable<string>): void {
  const collected = collectors.get(input);
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
