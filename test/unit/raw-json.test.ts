import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawJson, stringify } from '#lib/http/raw-json.ts';

describe('stringify with RawJson values', () => {
  it('writes each raw value as its JSON, at any depth, and everything else as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.jsonValue(), (a, b, around) => {
        const raw = {
          around,
          items: { '1': new RawJson(JSON.stringify(a)), list: [new RawJson(JSON.stringify(b))] },
        };
        const plain = { around, items: { '1': a, list: [b] } };
        expect(stringify(raw)).toBe(JSON.stringify(plain));
      }),
    );
  });

  it('leaves text that imitates its marker as text: a client cannot splice JSON into an answer', () => {
    const raw = new RawJson('{"x":1}');
    for (const text of [
      '\u0000raw-json:00000000-0000-0000-0000-000000000000:0',
      '\u0000raw-json:',
      '\u0000raw-json:0',
      '"\\u0000raw-json:x:0"',
    ]) {
      const body = { echo: text, item: raw };
      expect(JSON.parse(stringify(body))).toEqual({ echo: text, item: { x: 1 } });
    }
  });

  it('is the value its JSON stands for when serialized any other way', () => {
    expect(JSON.stringify({ item: new RawJson('{"a":[1,"b"]}') })).toBe('{"item":{"a":[1,"b"]}}');
  });
});
