import fc from 'fast-check';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { type FormLimits, parseUrlEncoded } from '#lib/http/form.ts';
import { FORM_LIMITS } from '#lib/http/parse.ts';

// qs, now a dev dependency only, is the oracle: the options lib/http/parse.ts passed it before form.ts.
const qsOptions = (limits: FormLimits) =>
  ({
    depth: limits.depth,
    strictDepth: true,
    arrayLimit: 0,
    parameterLimit: limits.parameters,
    allowPrototypes: false,
    allowDots: false,
  }) as const;

// What a parse gives, with its key order (JSON text keeps it; toStrictEqual does not look at it).
type Outcome = { value: unknown; text: string } | { threw: boolean };

const outcome = (parse: () => unknown): Outcome => {
  try {
    const value = parse();
    return { value, text: JSON.stringify(value) };
  } catch (error) {
    return { threw: error instanceof Error };
  }
};

const ours = (text: string, limits: FormLimits = FORM_LIMITS): Outcome =>
  outcome(() => parseUrlEncoded(text, limits));

const theirs = (text: string, limits: FormLimits = FORM_LIMITS): Outcome =>
  outcome(() => qs.parse(text, qsOptions(limits)));

const expectSameAsQs = (text: string, limits: FormLimits = FORM_LIMITS): void => {
  expect(ours(text, limits), text).toStrictEqual(theirs(text, limits));
};

// Every object in a parse, the parse itself included.
const objectsIn = (value: unknown): object[] =>
  value !== null && typeof value === 'object'
    ? [value, ...Object.values(value).flatMap((child) => objectsIn(child))]
    : [];

const join = (parts: readonly string[]): string => parts.join('');

// The pieces qs's grammar turns on: brackets raw and encoded, `=`, `&`, escapes whole, partial and
// malformed, `+`, prototype member names and a near miss (`_proto__`).
const ALPHABET = [
  ...['a', 'b', '[', ']', '=', '&', '%', '+', '.', '0', '1', '2', '_', '_proto__', '__proto__'],
  ...['hasOwnProperty', 'constructor', 'toString', 'é', '%5B', '%5D', '%5b', '%5d', '%2', '%E9', '%C3%A9'],
  ...['%20', '%2B', '%3D', '%26', '%255B', '20'],
];

const word = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('a', 'b', '0', '1', '', 'é', '%E9', '%C3%A9', 'a+b', 'a.b', '%2', '%', '%20'),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '__proto__',
      '_proto__',
      'hasOwnProperty',
      'constructor',
      'toString',
      'valueOf',
    ),
  },
);
const index = fc.oneof(
  fc.integer({ min: 0, max: 3 }).map(String),
  fc.integer({ min: 20, max: 23 }).map(String),
  fc.constantFrom('01', '-1', '-0', '1.5', '1e3', '100000000000000000000', '9007199254740993'),
);
const open = fc.constantFrom('[', '[', '%5B', '%5b');
const close = fc.constantFrom(']', ']', '%5D', '%5d');
const group = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(open, fc.oneof(word, index, fc.constant('')), close).map(join) },
  { weight: 1, arbitrary: fc.tuple(open, word).map(join) },
  { weight: 1, arbitrary: fc.tuple(open, open, fc.oneof(word, index), close, close).map(join) },
  { weight: 1, arbitrary: fc.oneof(word, close) },
);
// Mostly within the depth, sometimes up to seven groups deep.
const groups = fc.oneof(
  { weight: 4, arbitrary: fc.array(group, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(group, { minLength: 5, maxLength: 7 }) },
);
// Parents from a small set, so that names share paths (`a=1&a[b]=2`, `a[]=1&a[0]=2`).
const parent = fc.oneof(fc.constantFrom('a', 'a', 'b', '0', ''), word);
const name = fc.tuple(parent, groups).map(([first, rest]) => first + rest.join(''));
const value = fc.oneof(
  fc.constantFrom('', '', '1', '2'),
  word,
  fc.array(fc.constantFrom(...ALPHABET.filter((piece) => piece !== '&')), { maxLength: 5 }).map(join),
);
// Names related to one another: as generated, with text after them (`a[b]x` is read as `a[b]`), or one
// group deeper, so that values for one path meet as text, object and list.
const suffix = fc.constantFrom('', '', '', 'x', '[]', '[0]', '[3]', '[20]', '[b]');
// A few names, each sent any number of times, with or without `=` and a value.
const query = fc
  .array(name, { minLength: 1, maxLength: 4 })
  .chain((names) =>
    fc.array(fc.tuple(fc.constantFrom(...names), suffix, fc.option(value, { nil: undefined })), {
      maxLength: 10,
    }),
  )
  .map((pairs) =>
    pairs
      .map(([key, after, text]) => (text === undefined ? key + after : `${key}${after}=${text}`))
      .join('&'),
  );
const anyText = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 30 }).map(join);

describe('parseUrlEncoded against qs', () => {
  it('gives what qs gives, key order included, or throws when qs throws, for names built from the grammar', () => {
    fc.assert(
      fc.property(query, (text) => expectSameAsQs(text)),
      { numRuns: 6000 },
    );
  });

  it('gives what qs gives for any string of the grammar pieces', () => {
    fc.assert(
      fc.property(anyText, (text) => expectSameAsQs(text)),
      { numRuns: 6000 },
    );
  });

  it('gives what qs gives at other depth and parameter limits', () => {
    const limits = fc.record({
      depth: fc.integer({ min: 1, max: 7 }),
      parameters: fc.integer({ min: 1, max: 6 }),
    });
    fc.assert(
      fc.property(query, limits, (text, given) => expectSameAsQs(text, given)),
      { numRuns: 2000 },
    );
  });

  it('returns objects with Object.prototype, as qs does, never arrays', () => {
    const text = 'a[]=1&a[0][b]=2&c=3&c=4&[0]=5&d=6&d[e]=7';
    for (const parsed of [parseUrlEncoded(text, FORM_LIMITS), qs.parse(text, qsOptions(FORM_LIMITS))]) {
      for (const object of objectsIn(parsed)) expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    }
  });

  const many = (count: number): string => '&'.repeat(count);

  it.each<{ rule: string; text: string; expected: unknown }>([
    { rule: 'a pair is a name and its value', text: 'a=1', expected: { a: '1' } },
    { rule: '+ and %20 are spaces', text: 'a=b+c%20d', expected: { a: 'b c d' } },
    { rule: 'an encoded + is a plus', text: 'a=%2B', expected: { a: '+' } },
    { rule: 'UTF-8 escapes decode in names and values', text: 'n%C3%A9=%C3%A9', expected: { né: 'é' } },
    {
      rule: 'a malformed escape leaves the whole text as sent, spaces decoded',
      text: 'a=%E9+x%C3%A9&b=%2',
      expected: { a: '%E9 x%C3%A9', b: '%2' },
    },
    { rule: 'a name without = has an empty value', text: 'a&b=', expected: { a: '', b: '' } },
    { rule: 'an empty name is dropped', text: '=1&&=&b=2', expected: { b: '2' } },
    {
      rule: 'a repeated name is an object keyed by index',
      text: 'a=1&a=2&a=',
      expected: { a: { 0: '1', 1: '2', 2: '' } },
    },
    { rule: '[] keys by index', text: 'slip[]=x&slip[]=y', expected: { slip: { 0: 'x', 1: 'y' } } },
    { rule: '[n] keys by n, never an array', text: 'a[3]=x&a[0]=y', expected: { a: { 0: 'y', 3: 'x' } } },
    {
      rule: 'an index that is not canonical is a key',
      text: 'a[01]=x&a[-1]=y&a[1.5]=z&a[9007199254740993]=w',
      expected: { a: { '01': 'x', '-1': 'y', '1.5': 'z', '9007199254740993': 'w' } },
    },
    {
      rule: 'a value after a list goes after its highest index',
      text: 'a[5]=x&a=y',
      expected: { a: { 5: 'x', 6: 'y' } },
    },
    {
      rule: 'a value before a list becomes its index 0, moving the list up one',
      text: 'a=1&a[3]=2',
      expected: { a: { 0: '1', 4: '2' } },
    },
    {
      rule: 'keys that only look like indexes (1e3, 09) do not move where the next value goes',
      text: 'a[0]=x&a[1e3]=y&a[09]=w&a=z',
      expected: { a: { 0: 'x', 1: 'z', '1e3': 'y', '09': 'w' } },
    },
    {
      rule: 'a list merged into a list raises its highest index',
      text: 'a[0]=1&a[7]=2&a=3',
      expected: { a: { 0: '1', 7: '2', 8: '3' } },
    },
    {
      rule: 'a list that a text joined at index 0 continues after its moved-up highest index',
      text: 'a[b]=1&a[b][3]=2&a[b]x=3',
      expected: { a: { b: { 0: '1', 4: '2', 5: '3' } } },
    },
    {
      rule: 'an object and a value for one name are paired in the order sent',
      text: 'a[b]=1&a=2&c=3&c[d]=4',
      expected: { a: { 0: { b: '1' }, 1: '2' }, c: { 0: '3', 1: { d: '4' } } },
    },
    {
      rule: 'integer names are read before the others',
      text: '0[x]=1&0=2',
      expected: { 0: { 0: '2', 1: { x: '1' } } },
    },
    { rule: 'keys under one name merge', text: 'a[b]=1&a[c]=2', expected: { a: { b: '1', c: '2' } } },
    {
      rule: 'an empty value adds nothing to a path another name has set',
      text: 'a[b]=1&a[b]c=',
      expected: { a: { b: '1' } },
    },
    {
      rule: 'a value for a path another name has set empty is paired with it',
      text: 'a[b]=&a[b]c=1',
      expected: { a: { b: { 0: '', 1: '1' } } },
    },
    { rule: 'text between groups is ignored', text: 'a[b]c[d]=1', expected: { a: { b: { d: '1' } } } },
    { rule: '= inside brackets belongs to the name', text: 'a[b=c]=d', expected: { a: { 'b=c': 'd' } } },
    { rule: ']= ends the name even after an earlier =', text: 'a=b]=c', expected: { 'a=b]': 'c' } },
    {
      rule: 'encoded brackets are brackets, either case',
      text: 'a%5Bb%5D=1&a%5bc%5d=2',
      expected: { a: { b: '1', c: '2' } },
    },
    {
      rule: 'brackets are unencoded before decoding: %%5B is a malformed %[',
      text: 'a=%%5B',
      expected: { a: '%[' },
    },
    { rule: 'a double-encoded bracket is text', text: 'a%255Bb%255D=1', expected: { 'a%5Bb%5D': '1' } },
    {
      rule: 'an unclosed group is one key, brackets and all',
      text: 'a[b[c=1',
      expected: { a: { '[b[c': '1' } },
    },
    {
      rule: 'brackets nested in a group stay in its key',
      text: 'a[b[c]]=1',
      expected: { a: { 'b[c]': '1' } },
    },
    { rule: 'a stray ] is part of the name', text: 'a]b=1&]=2', expected: { 'a]b': '1', ']': '2' } },
    {
      rule: 'a name may start with a group',
      text: '[a]=1&[0]=2&[]=3',
      expected: { 0: { 0: '2', 1: '3' }, a: '1' },
    },
    { rule: '[][] is one list', text: 'a[][]=x&a[][]=y', expected: { a: { 0: 'x', 1: 'y' } } },
    {
      rule: 'a prototype member name drops its parameter',
      text: 'toString=1&a[constructor]=2&hasOwnProperty[x]=3&a[__proto__]=4&__proto__[y]=5&b=6',
      expected: { b: '6' },
    },
    {
      rule: '_proto__ is an ordinary name',
      text: '_proto__=1&a[_proto__]=2',
      expected: { _proto__: '1', a: { _proto__: '2' } },
    },
    {
      rule: 'five groups are read',
      text: 'a[1][2][3][4][5]=x',
      expected: { a: { 1: { 2: { 3: { 4: { 5: 'x' } } } } } },
    },
    {
      rule: 'text after the fifth group is ignored',
      text: 'a[1][2][3][4][5]6=x',
      expected: { a: { 1: { 2: { 3: { 4: { 5: 'x' } } } } } },
    },
    { rule: 'a sixth group throws', text: 'b=1&a[1][2][3][4][5][6]=x', expected: 'throws' },
    { rule: 'an unclosed sixth group throws', text: 'a[1][2][3][4][5][6=x', expected: 'throws' },
    {
      rule: 'a prototype name in the first five groups drops before depth is checked',
      text: 'a[1][toString][3][4][5][6]=x',
      expected: {},
    },
    {
      rule: 'a prototype name after five groups throws',
      text: 'a[1][2][3][4][5][toString]=x',
      expected: 'throws',
    },
    { rule: 'the 501st part is read', text: `${many(500)}a=1`, expected: { a: '1' } },
    { rule: 'parts after the 501st are ignored, empty ones counted', text: `${many(501)}a=1`, expected: {} },
  ])('$rule', ({ text, expected }) => {
    const wanted =
      expected === 'throws' ? { threw: true } : { value: expected, text: JSON.stringify(expected) };
    expect(theirs(text)).toStrictEqual(wanted);
    expect(ours(text)).toStrictEqual(wanted);
  });
});
