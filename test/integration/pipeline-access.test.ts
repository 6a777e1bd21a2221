import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteName } from '#functions/routes.ts';
import type { AccessStore } from '#lib/access/access.ts';
import { hashSecret } from '#lib/access/secrets.ts';
import { AuthError } from '#lib/http/errors.ts';
import { authorise } from '#lib/http/middleware/authorise.ts';
import { parseInput } from '#lib/http/middleware/parse-input.ts';
import { rateLimit } from '#lib/http/middleware/rate-limit.ts';
import { resolveAddress } from '#lib/http/middleware/resolve-address.ts';
import { trustedProxies } from '#lib/http/requester-address.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, type makeEvent } from '#test/support/events.ts';
import { config, NOW, requestOf, routeNamed, run, SECRET, started } from '#test/support/pipeline.ts';

// The steps of the request pipeline that count in DynamoDB: who is calling and what it may call
// (authorise), and the per-client budgets (rateLimit). The other steps: test/unit/pipeline.test.ts.

/** A credential store with one staff credential (`bk_key`) and one partner's (`bk_partner`, account 2). */
const store: AccessStore = {
  getCredential: async (key) =>
    ['bk_key', 'bk_partner'].includes(key)
      ? {
          key,
          account_id: key === 'bk_key' ? 1 : 2,
          on_behalf: true,
          status: 'active',
          salt: 'salt',
          secret_hash: hashSecret(SECRET, 'salt'),
          rotated_at: NOW - 3_600_000,
          last_used_at: NOW,
        }
      : undefined,
  getToken: async () => undefined,
  getAccount: async (id) => ({ enabled: true, ...(id === 2 ? { partner: true } : {}) }),
  recordUse: async () => {},
};

let db: Db;
beforeAll(async () => {
  db = await createTestDb('pipeline');
});

describe('authorise', () => {
  /** Runs the steps before authorisation, then authorisation, for a route. */
  async function authorised(
    name: RouteName,
    request: Parameters<typeof makeEvent>[0],
    settings: Record<string, unknown> = {},
  ) {
    const { event, state } = await started(request, { config: config(settings) });
    await run(
      resolveAddress(() => trustedProxies([])),
      'before',
      requestOf(event),
    );
    await run(parseInput(), 'before', requestOf(event));
    await run(authorise({ db, store, route: routeNamed(name) }), 'before', requestOf(event));
    return state;
  }

  it('lets a customer call a public route, counted by its address', async () => {
    const state = await authorised('item.list', { path: 'item', sourceIp: '192.0.2.7' });
    expect(state.caller).toEqual({ kind: 'customer' });
    expect(state.requester).toBe('192.0.2.7');
  });

  it('refuses a customer on a staff route, and on a public one when the API is not public', async () => {
    await expect(authorised('booking.list', { path: 'booking' })).rejects.toBeInstanceOf(AuthError);
    await expect(authorised('item.list', { path: 'item' }, { public_api: false })).rejects.toBeInstanceOf(
      AuthError,
    );
  });

  it('asks for staff credentials or the token on a token route', async () => {
    await expect(authorised('booking.invoice', { path: 'booking/1/invoice' })).rejects.toBeInstanceOf(
      AuthError,
    );
    const state = await authorised('booking.invoice', { path: 'booking/1/invoice', query: 'token=t' });
    expect(state.caller?.kind).toBe('customer');
  });

  it("counts a staff credential calling for its customer by the address it forwards, a partner's by its key", async () => {
    const request = (key: string) => ({
      path: 'booking/session',
      sourceIp: '198.18.0.1',
      headers: {
        authorization: basic(key, SECRET),
        'x-on-behalf': 'off',
        'x-forwarded-for': '203.0.113.44',
      },
    });
    const staff = await authorised('session.write', request('bk_key'));
    expect([staff.requesterAddress, staff.requester]).toEqual(['203.0.113.44', '203.0.113.44']);
    const partner = await authorised('session.write', request('bk_partner'));
    expect([partner.requesterAddress, partner.requester]).toEqual(['198.18.0.1', 'credential:bk_partner']);
  });

  it('charges a refused credential to its address, so guessing keys is rate limited too', async () => {
    const request = {
      path: 'item',
      sourceIp: '192.0.2.99',
      headers: { authorization: basic('bk_key', 'wrong') },
    };
    const limits = { ...config().settings.limits, requests_per_minute: 1 };
    const first = await authorised('item.list', request, { limits }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(AuthError);
    // The second guess within the minute is over the budget of one: refused as rate limited, not checked.
    await expect(authorised('item.list', request, { limits })).rejects.toMatchObject({ id: 'rate_limited' });
  });
});

describe('rateLimit', () => {
  it("charges a customer's client, answers the limit headers and refuses past the budget", async () => {
    const route = routeNamed('item.list');
    const limits = { ...config().settings.limits, requests_per_minute: 2 };
    const call = async () => {
      const { event, state } = await started(
        { path: 'item' },
        { config: config({ limits }), parsed: { input: {}, headers: {}, cookies: {} } },
      );
      Object.assign(state, { caller: { kind: 'customer' }, requester: '192.0.2.150' });
      await run(rateLimit({ db, route }), 'before', requestOf(event));
      return state.limitHeaders;
    };
    expect(await call()).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1' });
    expect(await call()).toMatchObject({ 'ratelimit-remaining': '0' });
    await expect(call()).rejects.toMatchObject({ id: 'rate_limited' });
  });

  it('leaves a customer call of a staff route alone (it was refused before) and charges staff per credential', async () => {
    const { event, state } = await started(
      { path: 'booking' },
      { config: config(), parsed: { input: {}, headers: {}, cookies: {} } },
    );
    Object.assign(state, {
      caller: { kind: 'staff', accountId: 1, credentialKey: 'bk_rate', credentialAccountId: 1 },
      requester: '192.0.2.151',
    });
    await run(rateLimit({ db, route: routeNamed('booking.list') }), 'before', requestOf(event));
    expect(state.limitHeaders?.['ratelimit-limit']).toBe(
      String(config().settings.limits.staff_requests_per_minute),
    );
  });
});
