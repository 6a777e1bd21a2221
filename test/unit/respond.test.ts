import { describe, expect, it } from 'vitest';
import { IGNORED_HEADER_BUDGET } from '#lib/http/ignored.ts';
import type { RequestState } from '#lib/http/request-state.ts';
import { respond } from '#lib/http/respond.ts';

// The headers of a Lambda result, as API Gateway writes them: every value must be writable, whatever a
// client sent, because the request may already have committed (a booking made) when the answer is built.

const stateOf = (ignored: string[]): RequestState => ({
  requestId: 'req-1',
  startedAt: 0,
  resource: 'booking',
  id: 'create',
  ignored: new Set(ignored),
});

const answer = (
  state: RequestState,
  options: { headers?: Record<string, string>; cookies?: string[] } = {},
) => respond(state, { status: 200, contentType: 'application/json', body: '{}', ...options });

describe('the headers of a response', () => {
  it('carry ignored names percent-encoded outside visible ASCII, and the separator, escape and plus too', () => {
    const { headers } = answer(
      stateOf([
        'qty',
        'form[имя]',
        '😀',
        'a\r\nX-Injected: 1',
        '\u0000',
        'a,b',
        '50%',
        'a+b',
        'sp ace',
        '\ud800',
      ]),
    );
    expect(headers?.['x-ignored-parameters']).toBe(
      'qty,form[%D0%B8%D0%BC%D1%8F],%F0%9F%98%80,a%0D%0AX-Injected:%201,%00,a%2Cb,50%25,a%2Bb,sp%20ace,%EF%BF%BD',
    );
    const decoded = String(headers?.['x-ignored-parameters'])
      .split(',')
      .map((element) => decodeURIComponent(element));
    expect(decoded.slice(0, 9)).toEqual([
      'qty',
      'form[имя]',
      '😀',
      'a\r\nX-Injected: 1',
      '\u0000',
      'a,b',
      '50%',
      'a+b',
      'sp ace',
    ]);
  });

  it('list the ignored names that fit the budget, whole, then how many were left out', () => {
    const names = Array.from({ length: 300 }, (_, index) => `unknown_${index}`);
    const header = String(answer(stateOf(names)).headers?.['x-ignored-parameters']);
    expect(header.length).toBeLessThanOrEqual(IGNORED_HEADER_BUDGET);
    const elements = header.split(',');
    const left = Number(elements.pop()?.replace(/^\+/, ''));
    expect(elements).toEqual(names.slice(0, elements.length));
    expect(elements.length + left).toBe(300);
    expect(answer(stateOf(['x'.repeat(IGNORED_HEADER_BUDGET + 1)])).headers?.['x-ignored-parameters']).toBe(
      '+1',
    );
  });

  it('leave out a header or cookie that cannot be written and keep the rest of the answer', () => {
    const result = answer(stateOf([]), {
      headers: { location: 'https://example.com/\r\nSet-Cookie: a=b', 'x-name': 'имя', allow: 'GET, POST' },
      cookies: ['session_id=abc; Path=/', 'bad=\u0000'],
    });
    expect(result.statusCode).toBe(200);
    expect(result.headers).not.toHaveProperty('location');
    expect(result.headers).not.toHaveProperty('x-name');
    expect(result.headers).toMatchObject({ allow: 'GET, POST', 'x-request-id': 'req-1' });
    expect(result.cookies).toEqual(['session_id=abc; Path=/']);
  });
});
