import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke, staffBasic, type TestRequest } from '#test/support/events.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Attack scripts against the per-client request limits (issue 9, point 2): each would have been served
// without limit before.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
let now = Date.UTC(2027, 0, 4, 12, 0, 5);
const clock = () => now;
const day = addDays(todayIn('America/Toronto', Date.now()), 30);

const LIMITS = { requests_per_minute: 20, writes_per_minute: 5, staff_requests_per_minute: 30 };

beforeAll(async () => {
  db = await createTestDb('limits');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', trusted_proxies: ['10.0.0.0/8'], limits: LIMITS },
        items: [makeItem({ item_id: 1, stock: 50 })],
      }),
    ),
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db, { clock }));
  staff = await staffBasic(db, { now: 0 });
});

/** A fresh minute for each test, so windows never carry over. */
const nextMinute = () => {
  now += 60_000;
};

const ping = (request: Partial<TestRequest> = {}) => invoke(handlers.meta, { path: 'ping', ...request });

describe('per-client request limits', () => {
  it('answers a burst from one address with 429, Retry-After and RateLimit headers, and serves others', async () => {
    nextMinute();
    const attacker = '203.0.113.66';
    const served = [];
    for (let index = 0; index < LIMITS.requests_per_minute; index += 1) {
      served.push(await ping({ sourceIp: attacker }));
    }
    expect(served.every((response) => response.status === 200)).toBe(true);
    expect(served[0]?.headers).toMatchObject({
      'ratelimit-limit': '20',
      'ratelimit-remaining': '19',
      'ratelimit-reset': '55',
    });
    expect(served.at(-1)?.headers['ratelimit-remaining']).toBe('0');

    const refused = await ping({ sourceIp: attacker });
    expect(refused.status).toBe(429);
    expect(refused.json.request.status).toBe('ERROR');
    expect(refused.json.request.error).toMatchObject({ id: 'rate_limited' });
    expect(refused.headers).toMatchObject({
      'retry-after': '55',
      'ratelimit-limit': '20',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '55',
    });
    // The refusal is not counted: the attacker stays at the limit, not above it.
    expect((await ping({ sourceIp: '203.0.113.67' })).status).toBe(200);
    const items = await invoke(handlers.items, { path: 'item', sourceIp: '203.0.113.67' });
    expect(items.status).toBe(200);

    now += 55_000;
    expect((await ping({ sourceIp: attacker })).status).toBe(200);
  });

  it('limits writes apart from reads: session changes and create share the write budget', async () => {
    nextMinute();
    const attacker = '203.0.113.70';
    const rated = await invoke(handlers.items, { path: 'item/1', query: `date=${day}`, sourceIp: attacker });
    const slip = rated.json.item.rate.slip;
    const statuses: number[] = [];
    for (let index = 0; index < LIMITS.writes_per_minute + 1; index += 1) {
      const response = await invoke(handlers.session, {
        method: 'POST',
        path: 'booking/session/clear',
        body: `session_id=${'x'.repeat(20)}${index}`,
        contentType: 'application/x-www-form-urlencoded',
        sourceIp: attacker,
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, LIMITS.writes_per_minute).every((status) => status === 404)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const create = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `slip[]=${slip}`,
      contentType: 'application/x-www-form-urlencoded',
      sourceIp: attacker,
    });
    expect(create.status).toBe(429);
    expect(create.headers['ratelimit-limit']).toBe(String(LIMITS.writes_per_minute));
    // Reads are still within their own budget.
    const read = await invoke(handlers.session, { path: 'booking/session', sourceIp: attacker });
    expect(read.status).toBe(200);
    expect(read.headers['ratelimit-limit']).toBe(String(LIMITS.requests_per_minute));
  });

  it('shares one count between function instances (never kept in memory)', async () => {
    nextMinute();
    const other = createAllHandlers(testDeps(db, { clock }));
    const address = '203.0.113.80';
    for (let index = 0; index < LIMITS.requests_per_minute / 2; index += 1) {
      expect((await ping({ sourceIp: address })).status).toBe(200);
      expect((await invoke(other.meta, { path: 'ping', sourceIp: address })).status).toBe(200);
    }
    expect((await invoke(other.meta, { path: 'ping', sourceIp: address })).status).toBe(429);
  });

  it('keeps one count under a concurrent burst: exactly the budget is served', async () => {
    nextMinute();
    const responses = await Promise.all(Array.from({ length: 40 }, () => ping({ sourceIp: '203.0.113.90' })));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(LIMITS.requests_per_minute);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(20);
  });

  it('cannot be escaped by forging X-Forwarded-For from an untrusted peer', async () => {
    nextMinute();
    const statuses: number[] = [];
    for (let index = 0; index < LIMITS.requests_per_minute + 1; index += 1) {
      const forged = { 'x-forwarded-for': `192.0.2.${index + 1}` };
      statuses.push((await ping({ sourceIp: '203.0.113.95', headers: forged })).status);
    }
    expect(statuses.at(-1)).toBe(429);
  });

  it('counts each customer behind a trusted proxy apart, by the address the proxy forwards', async () => {
    nextMinute();
    const viaProxy = (customer: string) =>
      ping({ sourceIp: '10.20.30.40', headers: { 'x-forwarded-for': `${customer}, 10.1.1.1` } });
    for (let index = 0; index < LIMITS.requests_per_minute; index += 1) {
      expect((await viaProxy('198.18.5.5')).status).toBe(200);
    }
    expect((await viaProxy('198.18.5.5')).status).toBe(429);
    expect((await viaProxy('198.18.5.6')).status).toBe(200);
  });

  it('counts IPv6 clients by their /64, so rotating addresses in one subnet does not help', async () => {
    nextMinute();
    const statuses: number[] = [];
    for (let index = 0; index < LIMITS.requests_per_minute + 1; index += 1) {
      statuses.push((await ping({ sourceIp: `2001:db8:77:1::${(index + 1).toString(16)}` })).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect((await ping({ sourceIp: '2001:db8:77:2::1' })).status).toBe(200);
  });

  it('counts every spelling of one address as one client (mapped IPv4 in hex, a dotted IPv6 tail)', async () => {
    nextMinute();
    const ipv4 = ['198.18.9.9', '::ffff:198.18.9.9', '::ffff:c612:909', '0:0:0:0:0:FFFF:C612:0909'];
    const v4: number[] = [];
    for (let index = 0; index < LIMITS.requests_per_minute + 1; index += 1) {
      v4.push((await ping({ sourceIp: ipv4[index % ipv4.length] })).status);
    }
    expect(v4.at(-1)).toBe(429);
    const v6: number[] = [];
    for (let index = 0; index < LIMITS.requests_per_minute + 1; index += 1) {
      v6.push((await ping({ sourceIp: `2001:db8:78:1::10.0.0.${index + 1}` })).status);
    }
    expect(v6.at(-1)).toBe(429);
  });

  it('gives staff credentials their own budget, untouched by the address they call from', async () => {
    nextMinute();
    const shared = '203.0.113.100';
    for (let index = 0; index < LIMITS.requests_per_minute + 1; index += 1) await ping({ sourceIp: shared });
    expect((await ping({ sourceIp: shared })).status).toBe(429);
    const account = await invoke(handlers.meta, {
      path: 'account',
      sourceIp: shared,
      headers: { authorization: staff },
    });
    expect(account.status).toBe(200);
    expect(account.headers['ratelimit-limit']).toBe(String(LIMITS.staff_requests_per_minute));
    const statuses: number[] = [];
    for (let index = 0; index < LIMITS.staff_requests_per_minute; index += 1) {
      const response = await invoke(handlers.meta, {
        path: 'account',
        sourceIp: `198.18.9.${index + 1}`,
        headers: { authorization: staff },
      });
      statuses.push(response.status);
    }
    expect(statuses.at(-1)).toBe(429);
  });

  it('counts refused credentials against the client, so guessing keys is limited too', async () => {
    nextMinute();
    const guess = (index: number) =>
      invoke(handlers.meta, {
        path: 'account',
        sourceIp: '203.0.113.120',
        headers: { authorization: basic(`bk_guess${index}`, 'not-the-secret-at-all') },
      });
    const statuses: number[] = [];
    for (let index = 0; index < LIMITS.requests_per_minute + 1; index += 1)
      statuses.push((await guess(index)).status);
    expect(statuses.slice(0, LIMITS.requests_per_minute).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect((await ping({ sourceIp: '203.0.113.121' })).status).toBe(200);
  });

  it('uses the X-Forwarded-For of a staff integration calling for its customers (X-On-Behalf: off)', async () => {
    nextMinute();
    const integration = (customer: string) =>
      ping({
        sourceIp: '198.51.100.200',
        headers: { authorization: staff, 'x-on-behalf': 'off', 'x-forwarded-for': customer },
      });
    for (let index = 0; index < LIMITS.requests_per_minute; index += 1) {
      expect((await integration('203.0.113.150')).status).toBe(200);
    }
    const refused = await integration('203.0.113.150');
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe(String(LIMITS.requests_per_minute));
    expect((await integration('203.0.113.151')).status).toBe(200);
  });
});
