import { describe, expect, it } from 'vitest';
import { ApiError } from '#lib/http/errors.ts';
import { asList, parseRequest, REQUEST_LIMITS } from '#lib/http/parse.ts';

const form = 'application/x-www-form-urlencoded';

const failure = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
};

describe('parseRequest', () => {
  it('merges the query string and a PHP-style form body, the body winning', () => {
    const { input } = parseRequest({
      rawQueryString: 'start_date=20270105&param[adults]=1',
      body: 'param[adults]=2&slip[]=a.b.c&slip[]=d.e.f&alter[2.1]=optout&alter[3]=5&form[customer_name]=Ann+Lee',
      headers: { 'content-type': `${form}; charset=UTF-8` },
    });
    expect(input).toEqual({
      start_date: '20270105',
      param: { adults: '2' },
      slip: { 0: 'a.b.c', 1: 'd.e.f' },
      alter: { '2.1': 'optout', 3: '5' },
      form: { customer_name: 'Ann Lee' },
    });
  });

  it('parses a JSON body into the same shape', () => {
    const { input } = parseRequest({
      body: JSON.stringify({ slip: ['a.b.c'], form: { customer_name: 'Ann' } }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(input).toEqual({ slip: ['a.b.c'], form: { customer_name: 'Ann' } });
  });

  it('decodes a base64 body as API Gateway sends form posts', () => {
    const { input } = parseRequest({
      body: Buffer.from('note=hello%20there').toString('base64'),
      isBase64Encoded: true,
      headers: { 'content-type': form },
    });
    expect(input).toEqual({ note: 'hello there' });
  });

  it('reads cookies from the event and lower-cases header names', () => {
    const parsed = parseRequest({
      cookies: ['session_id=abc', 'theme=dark'],
      headers: { 'X-On-Behalf': 'Off' },
    });
    expect(parsed.cookies).toEqual({ session_id: 'abc', theme: 'dark' });
    expect(parsed.headers['x-on-behalf']).toBe('Off');
  });

  it('refuses a body over 64 KiB with 413', () => {
    const error = failure(() =>
      parseRequest({ body: `a=${'x'.repeat(REQUEST_LIMITS.bodyBytes)}`, headers: { 'content-type': form } }),
    );
    expect(error.status).toBe(413);
    expect(error.id).toBe('payload_too_large');
  });

  it('refuses a body declared over 64 KiB by its Content-Length, whatever of it arrived', () => {
    for (const body of [undefined, 'a=1']) {
      const error = failure(() =>
        parseRequest({
          ...(body ? { body } : {}),
          headers: { 'content-type': form, 'Content-Length': String(REQUEST_LIMITS.bodyBytes + 1) },
        }),
      );
      expect(error.status).toBe(413);
      expect(error.data).toEqual({ limit: REQUEST_LIMITS.bodyBytes });
    }
    const declaredAtLimit = { 'content-type': form, 'content-length': String(REQUEST_LIMITS.bodyBytes) };
    expect(parseRequest({ body: 'a=1', headers: declaredAtLimit }).input).toEqual({ a: '1' });
  });

  it('accepts a body of exactly 64 KiB', () => {
    const value = 'x'.repeat(4090);
    const fields = Array.from({ length: 16 }, (_, index) => `f${String(index).padStart(2, '0')}=${value}`);
    const body = fields.join('&');
    const padded = `${body}&z=${'y'.repeat(REQUEST_LIMITS.bodyBytes - body.length - 3)}`;
    expect(padded).toHaveLength(REQUEST_LIMITS.bodyBytes);
    expect(Object.keys(parseRequest({ body: padded, headers: { 'content-type': form } }).input)).toHaveLength(
      17,
    );
  });

  it('refuses any single value over 4,096 characters, known parameter or not', () => {
    const ok = parseRequest({ rawQueryString: `a=${'x'.repeat(4096)}` });
    expect(ok.input.a).toHaveLength(4096);
    expect(() => parseRequest({ rawQueryString: `tag[deep]=${'x'.repeat(4097)}` })).toThrow(
      expect.objectContaining({ id: 'validation_error', data: { 'tag[deep]': 'at most 4096 characters' } }),
    );
  });

  it.each([
    ['malformed JSON', '{"a":', 'application/json'],
    ['a JSON array', '[1,2]', 'application/json'],
    ['JSON nested too deep', JSON.stringify({ a: { b: { c: { d: { e: { f: 1 } } } } } }), 'application/json'],
    [
      'a JSON list too long',
      JSON.stringify({ slip: Array.from({ length: 101 }, () => 'x') }),
      'application/json',
    ],
    ['a form nested too deep', 'a[b][c][d][e][f][g]=1', form],
    ['too many form parameters', Array.from({ length: 501 }, (_, i) => `p${i}=1`).join('&'), form],
  ])('refuses %s with 400 validation_error', (_name, body, contentType) => {
    const error = failure(() => parseRequest({ body, headers: { 'content-type': contentType } }));
    expect(error.status).toBe(400);
    expect(error.id).toBe('validation_error');
    expect(Object.keys(error.data)).toEqual(['body']);
  });

  it('refuses too many query parameters', () => {
    const rawQueryString = Array.from({ length: 501 }, (_, i) => `p${i}=1`).join('&');
    expect(failure(() => parseRequest({ rawQueryString })).data).toEqual({ query: 'at most 500 parameters' });
  });

  it('refuses other media types with 415', () => {
    expect(
      failure(() => parseRequest({ body: '<a/>', headers: { 'content-type': 'application/xml' } })).status,
    ).toBe(415);
  });

  it('drops prototype-polluting keys', () => {
    const { input } = parseRequest({ rawQueryString: '__proto__[admin]=1&constructor[x]=1&a=1' });
    expect(input).toEqual({ a: '1' });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('asList', () => {
  it.each([
    ['one value', 'a', ['a']],
    ['an array', ['a', 'b'], ['a', 'b']],
    ['an object keyed by index, in index order', { 10: 'c', 2: 'b', 0: 'a' }, ['a', 'b', 'c']],
    ['nothing', undefined, []],
    ['an empty string', '', []],
  ])('reads %s', (_name, value, expected) => {
    expect(asList(value)).toEqual(expected);
  });

  it('splits a comma list when asked', () => {
    expect(asList('1, 2,,3', { commas: true })).toEqual(['1', '2', '3']);
    expect(asList('1,2')).toEqual(['1,2']);
  });
});
