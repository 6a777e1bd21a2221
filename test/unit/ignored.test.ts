import { describe, expect, it } from 'vitest';
import { collectIgnored, reportIgnored } from '#lib/http/ignored.ts';

// `request.ignored`: the parameters a request sent that nothing read, each request's to itself.

describe('ignored parameters', () => {
  it('go to the request whose input sent them, across awaits and requests in flight together', async () => {
    const first = { qty: '1' };
    const second = { utm_source: 'mail' };
    const firstNames = new Set<string>();
    const secondNames = new Set<string>();
    collectIgnored(first, firstNames);
    collectIgnored(second, secondNames);
    await Promise.all([
      (async () => {
        await new Promise((done) => setTimeout(done, 5));
        reportIgnored(first, ['qty']);
      })(),
      (async () => {
        reportIgnored(second, ['utm_source']);
        await Promise.resolve();
        reportIgnored(second, ['param[x]']);
      })(),
    ]);
    expect([...firstNames]).toEqual(['qty']);
    expect([...secondNames]).toEqual(['utm_source', 'param[x]']);
  });

  it('are dropped for an input no request collects (a parser called outside the API layer)', () => {
    expect(() => reportIgnored({ a: 1 }, ['a'])).not.toThrow();
  });
});
