// Reads `application/x-www-form-urlencoded` text (a query string or a form body) with PHP-style brackets
// exactly as `qs.parse` 6.17.1 reads it with the options this API has always used: the depth and parameter
// limits given, strictDepth, arrayLimit 0, allowPrototypes false, allowDots false, utf-8, `+` as a space,
// a repeated name's values combined. qs itself, with side-channel, object-inspect and get-intrinsic behind
// it, was 55 KB of every function's bundle; test/unit/form.test.ts holds this module to qs's answers.
//
// Names of Object.prototype's members never reach an object here (they are dropped), so plain assignment
// cannot set a prototype.

/** A value read from a form: the text sent, or the parameters nested under a bracketed name. */
export type FormValue = string | FormObject;

/** Parameters by name; `slip[]`, `slip[0]` and `alter[2.1]` nest under `slip` and `alter`, keyed as sent. */
export interface FormObject {
  [key: string]: FormValue;
}

/** How much of a form is read. */
export interface FormLimits {
  /** Bracket groups read after a name, at least 1; a name with more is refused (qs's `strictDepth`). */
  depth: number;
  /** `&`-separated parts read, a positive integer; the parts after them are ignored. */
  parameters: number;
}

// One step of a name: `[]` appends, `[2]` is an index, anything else (the part before the first bracket,
// `[note]`, `[2.1]`, `[02]`, `[-1]`) is a key.
type Segment = { kind: 'append' } | { kind: 'index'; index: number } | { kind: 'key'; key: string };

// `+` is a space; a malformed escape (`%2`, `%E9` alone) leaves the whole text as sent, spaces decoded.
const decodeComponent = (text: string): string => {
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
};

// Where a part's name ends: at `]=` if there is one, so that an `=` inside brackets (`a[b=c]=d`) belongs
// to the name, even when an earlier `=` (`a=b]=c`) would have ended it.
const nameEnd = (part: string): number => {
  const bracketEquals = part.indexOf(']=');
  return bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
};

// The decoded values sent for each decoded name. A null-prototype object keeps `__proto__` as a name like
// any other and orders names as qs's does (integer names first, ascending, then the rest as sent), and
// that order decides which of two values for one path comes first.
const readPairs = (text: string, limit: number): Record<string, string[]> => {
  const pairs: Record<string, string[]> = Object.create(null);
  // Encoded brackets are brackets, in values too, before anything is decoded: `%%5B` is the malformed `%[`.
  const parts = text.replace(/%5B/gi, '[').replace(/%5D/gi, ']').split('&', limit);
  for (const part of parts) {
    const end = nameEnd(part);
    const name = decodeComponent(end === -1 ? part : part.slice(0, end));
    const value = end === -1 ? '' : decodeComponent(part.slice(end + 1));
    const sent = pairs[name];
    if (sent) sent.push(value);
    else pairs[name] = [value];
  }
  return pairs;
};

// A canonical non-negative integer (`0`, `20`, not `01`, `-1` or `1.5`) is an index.
const asIndex = (text: string): number | undefined => {
  const index = Number.parseInt(text, 10);
  return index >= 0 && String(index) === text ? index : undefined;
};

// Dropping the names of Object.prototype's members (`toString`, `constructor`, `__proto__`…), with the
// whole parameter, keeps a parsed object from shadowing or replacing what every object inherits.
const isPrototypeName = (name: string): boolean => Object.hasOwn(Object.prototype, name);

const readGroup = (inner: string): Segment => {
  if (inner === '') return { kind: 'append' };
  const index = asIndex(inner);
  return index === undefined ? { kind: 'key', key: inner } : { kind: 'index', index };
};

// The bracket closing the group opened at `open`, counting brackets nested inside it (`[a[b]]`).
const closingBracket = (name: string, open: number): number => {
  let level = 0;
  for (let at = open; at < name.length; at += 1) {
    if (name[at] === '[') level += 1;
    else if (name[at] === ']' && --level === 0) return at;
  }
  return -1;
};

// The path a name stands for; empty for a name that is dropped (an empty one, or one naming a prototype
// member in its first `depth` groups). Throws for a name with a bracket after its first `depth` groups.
const splitName = (name: string, depth: number): Segment[] => {
  const first = name.indexOf('[');
  const parent = first === -1 ? name : name.slice(0, first);
  if (isPrototypeName(parent)) return [];
  const path: Segment[] = parent === '' ? [] : [{ kind: 'key', key: parent }];
  let open = first;
  for (let groups = 0; open !== -1 && groups < depth; groups += 1) {
    const close = closingBracket(name, open);
    // An unclosed group is one key, brackets and all (`a[[b` is `a` then `[[b`), and ends the name.
    if (close === -1) return [...path, { kind: 'key', key: name.slice(open) }];
    const inner = name.slice(open + 1, close);
    if (isPrototypeName(inner)) return [];
    path.push(readGroup(inner));
    // Text between groups (`c` in `a[b]c[d]`) is ignored.
    open = name.indexOf('[', close + 1);
  }
  if (open !== -1) throw new RangeError(`A parameter name nests deeper than ${depth} levels`);
  return path;
};

// With arrayLimit 0 every list qs builds (`[]`, `[2]`, a name sent twice) overflows into an object keyed
// by index, and qs remembers such objects so that one more value for their path is added after the highest
// index; an object made by a key (`[note]`) is paired with such a value instead. Read with these options,
// the objects qs remembers are exactly those with an index key: a list is made with one and keeps it, and
// an object made by a key gets index keys only when a list is merged into it, which makes it a list in qs
// too. So both facts are read off the keys. (The result itself, which `0=x` gives an index key, is only
// ever merged into, never asked.)
const indexesOf = (object: FormObject): number[] => Object.keys(object).flatMap((key) => asIndex(key) ?? []);

const isList = (value: FormValue): value is FormObject =>
  typeof value === 'object' && indexesOf(value).length > 0;

const listOf = (values: FormValue[]): FormObject => Object.fromEntries(values.entries());

// Several values sent under one name are one list; one value is itself.
const joinValues = ([first = '', ...more]: string[]): FormValue =>
  more.length === 0 ? first : listOf([first, ...more]);

const wrap = (segment: Segment, value: FormValue): FormObject => {
  switch (segment.kind) {
    case 'append':
      // `[]` around a list (`a[][]`, or `a[]` sent twice) is that list, not a list holding it.
      return isList(value) ? value : listOf([value]);
    case 'index':
      return { [segment.index]: value };
    case 'key':
      return { [segment.key]: value };
  }
};

const nest = (path: Segment[], leaf: FormValue): FormValue =>
  path.reduceRight<FormValue>((inner, segment) => wrap(segment, inner), leaf);

const appendTo = (list: FormObject, value: FormValue): FormObject => {
  list[Math.max(...indexesOf(list)) + 1] = value;
  return list;
};

// A text meeting a list (one just parsed, so keyed by index alone) becomes its first item, the list's
// items moving up one index.
const prependTo = (value: string, list: FormObject): FormObject => {
  const shifted: FormObject = { 0: value };
  for (const [key, item] of Object.entries(list)) shifted[Number(key) + 1] = item;
  return shifted;
};

// What a path holds once a second value for it arrives; `target` may be changed in place.
const mergeValue = (target: FormValue, source: FormValue): FormValue => {
  // An empty text adds nothing to a path that holds something already (`a[b]=1&a[b]c=` keeps `1`).
  if (source === '') return target;
  if (typeof source === 'string') {
    return isList(target) ? appendTo(target, source) : listOf([target, source]);
  }
  if (typeof target === 'string') {
    return isList(source) ? prependTo(target, source) : listOf([target, source]);
  }
  return mergeObjects(target, source);
};

const mergeObjects = (target: FormObject, source: FormObject): FormObject => {
  for (const [key, value] of Object.entries(source)) {
    const held = Object.hasOwn(target, key) ? target[key] : undefined;
    target[key] = held === undefined ? value : mergeValue(held, value);
  }
  return target;
};

/**
 * Parses form or query-string text into nested parameters as `qs.parse` does with strictDepth and
 * arrayLimit 0: every bracketed name nests as an object (`slip[]` and `slip[0]` key their values by
 * index), and a name nested deeper than `limits.depth` throws a RangeError.
 */
export function parseUrlEncoded(text: string, limits: FormLimits): FormObject {
  const result: FormObject = {};
  for (const [name, values] of Object.entries(readPairs(text, limits.parameters))) {
    const [outer, ...inner] = splitName(name, limits.depth);
    if (outer) mergeObjects(result, wrap(outer, nest(inner, joinValues(values))));
  }
  return result;
}
