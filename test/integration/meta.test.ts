import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { ROUTES } from '#functions/routes.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { createCredential } from '#lib/access/credential-admin.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke, staffBasic } from '#test/support/events.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
let onBehalfStaff: string;

const ENVELOPE_KEYS = ['version', 'account_id', 'host_id', 'name', 'locale', 'request', 'query'];
const REQUEST_KEYS = ['status', 'resource', 'id', 'method', 'records', 'limit', 'page', 'pages', 'time'];

beforeAll(async () => {
  db = await createTestDb('meta');
  const tenant = makeTenant(
    makeTenantJson({
      categories: [
        { category_id: 1, name: 'Rentals', pos: 2 },
        { category_id: 2, name: 'Stays', pos: 1 },
      ],
      items: [
        makeItem(),
        makeItem({ item_id: 2, sku: 'bike', name: 'Bike' }),
        makeItem({ item_id: 3, sku: 'dock', name: 'Dock', visibility: 'S' }),
        makeItem({ item_id: 4, sku: 'secret', name: 'Secret', visibility: 'P' }),
        makeItem({ item_id: 5, sku: 'cabin', name: 'Cabin', unit: 'N', category_id: 2 }),
        makeItem({ item_id: 6, sku: 'off', name: 'Off', enabled: false }),
      ],
      accounts: [
        { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' },
        { account_id: 2, first_name: 'Bo', email: 'bo@test.example.com', login_id: 'bo' },
      ],
    }),
  );
  await writeTenant(db, tenant, Date.now());
  const plain = await createCredential(db, { accountId: 2, onBehalf: false, label: 'test', now: Date.now() });
  const admin = await createCredential(db, { accountId: 1, onBehalf: true, label: 'admin', now: Date.now() });
  staff = basic(plain.key, plain.secret);
  onBehalfStaff = basic(admin.key, admin.secret);
  handlers = createAllHandlers(testDeps(db));
});

describe('the envelope', () => {
  it('wraps every success with the tenant, request and query', async () => {
    const { status, json, headers } = await invoke(handlers.meta, { path: 'ping' });
    expect(status).toBe(200);
    expect(Object.keys(json).slice(0, ENVELOPE_KEYS.length)).toEqual(ENVELOPE_KEYS);
    expect(json).toMatchObject({
      version: '3.0',
      account_id: 77,
      host_id: 'test.example.com',
      name: 'Test Rentals',
      locale: { id: 'en_CA', lang: 'en', currency: 'CAD' },
      query: false,
    });
    expect(Object.keys(json.request)).toEqual(REQUEST_KEYS);
    expect(json.request).toMatchObject({ status: 'OK', resource: 'ping', method: 'get', page: 1, pages: 1 });
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['content-type']).toContain('application/json');
  });

  it('wraps every error with the same envelope and request.error', async () => {
    const { status, json, headers } = await invoke(handlers.meta, { path: 'no/such/thing' });
    expect(status).toBe(404);
    expect(Object.keys(json)).toEqual(ENVELOPE_KEYS);
    expect(json.request).toMatchObject({ status: 'ERROR', error: { id: 'not_found', title: 'Not found' } });
    expect(headers['x-request-id']).toBeTruthy();
  });
});

describe('errors', () => {
  it('answers a wrong method with 405 and Allow', async () => {
    const { status, json, headers } = await invoke(handlers.meta, { method: 'DELETE', path: 'company' });
    expect(status).toBe(405);
    expect(json.request.error.id).toBe('method_not_allowed');
    expect(headers.allow).toBe('GET');
  });

  it('answers an oversized body with 413 and a malformed one with 400', async () => {
    const big = await invoke(handlers.meta, {
      method: 'GET',
      path: 'ping',
      body: `a=${'x'.repeat(70_000)}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(big.status).toBe(413);
    expect(big.json.request.error.id).toBe('payload_too_large');
    const broken = await invoke(handlers.meta, {
      path: 'ping',
      body: '{"a":',
      contentType: 'application/json',
    });
    expect(broken.status).toBe(400);
    expect(broken.json.request.error).toMatchObject({
      id: 'validation_error',
      data: { body: 'not valid JSON' },
    });
  });

  it('ignores unknown parameters and reports them, as sent', async () => {
    const { status, json, headers } = await invoke(handlers.meta, {
      path: 'company',
      query: 'colour=blue&_=123&tag[a]=1&tag[b]=2',
    });
    expect(status).toBe(200);
    expect(json.request.ignored).toEqual(['colour', 'tag[a]', 'tag[b]']);
    expect(headers['x-ignored-parameters']).toBe('colour,tag[a],tag[b]');
    const clean = await invoke(handlers.meta, { path: 'company', query: '_=123' });
    expect(clean.json.request).not.toHaveProperty('ignored');
    expect(clean.headers).not.toHaveProperty('x-ignored-parameters');
  });

  it('answers a route without an implementation with 501 not_implemented, after access checks', async () => {
    const { createApiHandler } = await import('#lib/http/group-handler.ts');
    const { BOOKINGS_ROUTES } = await import('#functions/bookings/table.ts');
    // The bookings group's routes declared without their implementations.
    const routes = BOOKINGS_ROUTES.map(({ handler: _handler, ...route }) => route);
    const bare = createApiHandler({ group: 'bookings', deps: testDeps(db), routes, context: {} });
    const form = await invoke(bare, { path: 'booking/form' });
    expect(form.status).toBe(501);
    expect(form.json.request.error.id).toBe('not_implemented');
    expect((await invoke(bare, { path: 'booking/LOON-1' })).status).toBe(401);
    expect((await invoke(bare, { path: 'booking/LOON-1', headers: { authorization: staff } })).status).toBe(
      501,
    );
  });

  it('hides internals behind a 500 with the request id', async () => {
    const broken = createAllHandlers({
      db: { ...db, tableName: 'missing-table' },
      provider: 'test',
      configTtlMs: 0,
    });
    const { status, json, headers } = await invoke(broken.meta, { path: 'ping' });
    expect(status).toBe(500);
    expect(json.request.error.id).toBe('internal');
    expect(json.request.error.details).toContain(headers['x-request-id']);
    expect(JSON.stringify(json)).not.toMatch(/missing-table|ResourceNotFound|at .*\.ts/);
  });
});

describe('access', () => {
  it('refuses account without credentials, with a wrong secret, and with a bad token', async () => {
    for (const authorization of [undefined, basic('bk_nope', 'wrong-wrong-wrong-wrong'), 'Bearer bt_nope']) {
      const { status, json, headers } = await invoke(handlers.meta, {
        path: 'account',
        headers: authorization ? { authorization } : {},
      });
      expect(status).toBe(401);
      expect(Object.keys(json)).toEqual(['error', 'error_description']);
      expect(headers['www-authenticate']).toContain('Basic');
    }
  });

  it('refuses a present but invalid Authorization even on public routes', async () => {
    const { status } = await invoke(handlers.meta, {
      path: 'ping',
      headers: { authorization: basic('x', 'y') },
    });
    expect(status).toBe(401);
  });

  it('answers 401 on staff routes whether or not the id exists', async () => {
    for (const path of ['booking/LOON-1', 'booking/999999', 'customer/5']) {
      expect((await invoke(handlers[resolveGroup('GET', `/api/3.0/${path}`).group], { path })).status).toBe(
        401,
      );
    }
  });

  it('refuses an invoice without a token, or with a wrong one, without saying whether it exists', async () => {
    expect((await invoke(handlers.bookings, { path: 'booking/LOON-1/invoice' })).status).toBe(401);
    expect(
      (await invoke(handlers.bookings, { path: 'booking/LOON-1/invoice', query: 'token=abc' })).status,
    ).toBe(401);
    const asStaff = await invoke(handlers.bookings, {
      path: 'booking/LOON-1/invoice',
      headers: { authorization: staff },
    });
    expect(asStaff.status).toBe(404);
  });

  it('needs credentials on public routes when the tenant turns the public API off', async () => {
    const closedDb = await createTestDb('closed');
    await writeTenant(
      closedDb,
      makeTenant(makeTenantJson({ settings: { booking_code_prefix: 'TEST', public_api: false } })),
      Date.now(),
    );
    const closed = createAllHandlers({ db: closedDb, provider: 'test', configTtlMs: 0 });
    expect((await invoke(closed.meta, { path: 'company' })).status).toBe(401);
    const authorization = await staffBasic(closedDb);
    expect((await invoke(closed.meta, { path: 'company', headers: { authorization } })).status).toBe(200);
    expect(
      (await invoke(closed.meta, { path: 'company', headers: { authorization, 'x-on-behalf': 'off' } }))
        .status,
    ).toBe(200);
  });
});

describe('GET company', () => {
  it('returns the company fields with currency and UTC offset', async () => {
    const { json } = await invoke(handlers.meta, { path: 'company/' });
    expect(json.company).toMatchObject({
      name: 'Test Rentals',
      email: 'hello@test.example.com',
      country_id: 'CA',
      currency_id: 'CAD',
      currency: { symbol: '$', decimals: 2 },
      timezone: 'America/Toronto',
      locale_id: 'en_CA',
      lang_id: 'en',
      plan_id: 1,
      // A tenant that takes no payment at booking says so (issue 43).
      payment: { take: 'none' },
    });
    expect([-4, -5]).toContain(json.company.utc_offset);
    expect(json.request).toMatchObject({ resource: 'company', records: 1 });
  });
});

describe('GET category', () => {
  it('keys enabled categories by id and counts the items a customer sees', async () => {
    const { json } = await invoke(handlers.meta, { path: 'category' });
    expect(Object.keys(json.category)).toEqual(['1', '2']);
    expect(json.category['1']).toEqual({
      category_id: 1,
      name: 'Rentals',
      description: '',
      pos: 2,
      image: '',
      qty: 2,
      unit: 'D',
    });
    expect(json.category['2']).toMatchObject({ qty: 1, unit: 'N' });
    expect(json.request.records).toBe(2);
  });

  it('counts staff-only items for staff, never private or disabled ones', async () => {
    const { json } = await invoke(handlers.meta, { path: 'category', headers: { authorization: staff } });
    expect(json.category['1'].qty).toBe(3);
  });
});

describe('GET account', () => {
  it('lists staff accounts as an array without secrets', async () => {
    const { status, json } = await invoke(handlers.meta, {
      path: 'account',
      headers: { authorization: staff },
    });
    expect(status).toBe(200);
    expect(json.account.map((account: { account_id: number }) => account.account_id)).toEqual([1, 2]);
    expect(Object.keys(json.account[0]).sort()).toEqual(
      [
        'account_id',
        'date_created',
        'date_last_login',
        'email',
        'enabled',
        'first_name',
        'ip_last_login',
        'last_name',
        'login_id',
        'mobile_phone',
        'nickname',
        'partner',
      ].sort(),
    );
    expect(JSON.stringify(json)).not.toMatch(/secret|salt|hash/);
  });

  it('records the first sign-in of a credential with the address it came from', async () => {
    const fresh = await createCredential(db, {
      accountId: 2,
      onBehalf: false,
      label: 'fresh',
      now: Date.now(),
    });
    const authorization = basic(fresh.key, fresh.secret);
    const { json } = await invoke(handlers.meta, {
      path: 'account',
      headers: { authorization },
      sourceIp: '198.51.100.7',
    });
    const bo = json.account.find((account: { account_id: number }) => account.account_id === 2);
    expect(bo.ip_last_login).toBe('198.51.100.7');
    expect(bo.date_last_login).toBeGreaterThan(0);
  });

  it('honours X-On-Behalf only for a credential allowed to act on behalf', async () => {
    expect(
      (
        await invoke(handlers.meta, {
          path: 'account',
          headers: { authorization: onBehalfStaff, 'X-On-Behalf': '2' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await invoke(handlers.meta, {
          path: 'account',
          headers: { authorization: staff, 'x-on-behalf': '1' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await invoke(handlers.meta, {
          path: 'account',
          headers: { authorization: onBehalfStaff, 'x-on-behalf': 'Off' },
        })
      ).status,
    ).toBe(401);
  });
});

describe('GET ping', () => {
  it('reports the connection address API Gateway saw, never X-Forwarded-For', async () => {
    const { json } = await invoke(handlers.meta, {
      path: 'ping',
      sourceIp: '192.0.2.44',
      headers: { 'x-forwarded-for': '10.9.9.9' },
    });
    expect(json.pong).toMatchObject({
      remote_addr: '192.0.2.44',
      timezone: 'America/Toronto',
      provider: 'test',
    });
    expect(Math.abs(json.pong.time - Date.now() / 1000)).toBeLessThan(60);
  });
});

describe('the routers', () => {
  it('route every row of the route table in its own group (never 404 or 405)', async () => {
    // The booking page and the widget's files, outside the API prefix, have tests of their own.
    for (const route of ROUTES.filter((row) => (row.kind ?? 'api') === 'api')) {
      const path = route.path.replace(/\{[^}]+\}/g, '1');
      const { status, json } = await invoke(handlers[route.group], { method: route.method, path });
      const routerMiss = status === 405 || (status === 404 && json.request?.error?.data?.path !== undefined);
      expect(routerMiss, `${route.method} ${route.path}`).toBe(false);
    }
  });
});
