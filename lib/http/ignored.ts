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

/** The most characters the `X-Ignored-Parameters` header carries; `request.ignored` always has every name. */
export const IGNORED_HEADER_BUDGET = 1024;

// Bytes a name keeps as they are in the header: visible ASCII, except the escape itself (%), the list's
// separator (,) and + (which form decoders read as a space), so every element decodes to one name.
const keepsByte = (byte: number): boolean =>
  byte > 0x20 && byte < 0x7f && byte !== 0x25 && byte !== 0x2c && byte !== 0x2b;

/**
 * A parameter name as the header carries it: its UTF-8 bytes, each outside visible ASCII (and `%`, `,`,
 * `+`) as `%XX`, so `decodeURIComponent` gives the name back (a lone surrogate comes back as U+FFFD).
 */
function headerName(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    out += keepsByte(byte)
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The `X-Ignored-Parameters` value of a request's ignored names (undefined for none): each name encoded,
 * comma-separated, at most IGNORED_HEADER_BUDGET characters; when names do not fit, the list stops at a
 * whole name and ends with `+N`, the number left out (no encoded name holds a raw `+`).
 */
export function ignoredParametersHeader(names: Iterable<string>): string | undefined {
  const encoded = [...names].map(headerName);
  if (encoded.length === 0) return undefined;
  const all = encoded.join(',');
  if (all.length <= IGNORED_HEADER_BUDGET) return all;
  const kept: string[] = [];
  let length = 0;
  for (const [index, name] of encoded.entries()) {
    const marker = `+${encoded.length - index}`;
    // Room for this name and the marker of whatever may follow it.
    if (length + name.length + 1 + marker.length + 1 > IGNORED_HEADER_BUDGET) break;
    kept.push(name);
    length += name.length + 1;
  }
  return [...kept, `+${encoded.length - kept.length}`].join(',');
}
