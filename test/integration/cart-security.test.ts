import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createCredential } from '#lib/auth/credential-admin.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { giftcertKey, stockKey } from '#lib/db/keys.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke, staffBasic, type TestRequest } from '#test/support/events.ts';
import { expectInvariant, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Attack scripts for issue 9, points 5 to 8: each got through before.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
let partner: string;
const start = addDays(todayIn('America/Toronto', Date.now()), 30);
let nextDay = 0;
const freshDay = () => {
  nextDay += 1;
  return addDays(start, nextDay);
};

const tenantJson = (overrides: { hidden?: boolean; unlimitedRaft?: boolean } = {}) =>
  makeTenantJson({
    settings: { booking_code_prefix: 'TEST', cors_origins: ['https://shop.example.com'] },
    items: [
      makeItem({ item_id: 1, sku: 'kayak', stock: 10 }),
      makeItem({ item_id: 2, sku: 'free', name: 'Free tour', stock: 10, params: { qty: { price: '0.00' } } }),
      makeItem({ item_id: 3, sku: 'desk', name: 'Desk only', stock: 10, visibility: 'S' }),
      makeItem({ item_id: 6, sku: 'secret', name: 'Private link', stock: 10, visibility: 'P' }),
      makeItem({
        item_id: 4,
        sku: 'canoe',
        name: 'Canoe',
        stock: 10,
        ...(overrides.hidden ? { visibility: 'S' } : {}),
      }),
      makeItem({
        item_id: 5,
        sku: 'raft',
        name: 'Raft',
        stock: 2,
        unlimited: overrides.unlimitedRaft ?? false,
      }),
    ],
    giftcerts: [
      { code: 'GIFT-LIVE', amount: '50.00' },
      { code: 'GIFT-OLD', amount: '50.00', expires: '20200101' },
      { code: 'GIFT-EMPTY', amount: '50.00' },
      { code: 'GIFT-SPARE', amount: '500.00' },
    ],
    accounts: [
      { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' },
      {
        account_id: 2,
        first_name: 'Lake Tours',
        email: 'a@tours.example.com',
        login_id: 'tours',
        partner: true,
      },
    ],
  });

beforeAll(async () => {
  db = await createTestDb('cartsec');
  await writeTenant(db, makeTenant(tenantJson()), Date.now());
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: giftcertKey('GIFT-EMPTY'),
      UpdateExpression: 'SET balance = :zero',
      ExpressionAttributeValues: { ':zero': 0 },
    }),
  );
  handlers = createAllHandlers(testDeps(db));
  staff = await staffBasic(db, { now: 0 });
  const tours = await createCredential(db, { accountId: 2, onBehalf: false, label: 'tours', now: 0 });
  partner = basic(tours.key, tours.secret);
});

afterEach(async () => {
  await expectInvariant(db);
});

const usedOf = async (itemId: number, slot: string): Promise<number> => {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: stockKey(itemId, slot), ConsistentRead: true }),
  );
  return Number(Item?.used ?? 0);
};

const slipOf = async (itemId: number, query: string, headers: Record<string, string> = {}) => {
  const { json } = await invoke(handlers.items, { path: `item/${itemId}`, query, headers });
  return json.item.rate.slip as string;
};

const post = (group: 'session' | 'bookings', path: string, body: string, extra: Partial<TestRequest> = {}) =>
  invoke(handlers[group], {
    method: 'POST',
    path,
    body,
    contentType: 'application/x-www-form-urlencoded',
    ...extra,
  });

const customerForm = 'form[customer_name]=Ada&form[customer_email]=ada@example.com';

describe('booking/create validates before it holds', () => {
  it('refuses a bad gift certificate before holding the SLIPs', async () => {
    const day = freshDay();
    const slip = await slipOf(1, `date=${day}`);
    const refused = await post(
      'bookings',
      'booking/create',
      `slip[]=${slip}&${customerForm}&giftcert_code=NOPE`,
    );
    expect(refused.status).toBe(400);
    expect(await usedOf(1, day)).toBe(0);
  });

  it('releases what it held when booking fails after holding', async () => {
    const day = freshDay();
    // A free tour leaves nothing for the gift certificate to pay: found only after the SLIP is held.
    const slip = await slipOf(2, `date=${day}`);
    const refused = await post(
      'bookings',
      'booking/create',
      `slip[]=${slip}&${customerForm}&giftcert_code=GIFT-LIVE`,
    );
    expect(refused.status).toBe(400);
    expect(await usedOf(2, day)).toBe(0);
    const rated = await invoke(handlers.items, { path: 'item/2', query: `date=${day}` });
    expect(rated.json.item.rate.available).toBe(10);
  });
});

describe('a session id is not a key to someone else’s booking', () => {
  it('never sets the cookie from a session_id parameter', async () => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    const made = await post('session', 'booking/session', `slip[]=${slip}`);
    expect(made.cookies).toHaveLength(1);
    const id = sessionOf(made).id;
    const byLink = await invoke(handlers.session, { path: 'booking/session', query: `session_id=${id}` });
    expect(byLink.status).toBe(200);
    expect(byLink.cookies).toEqual([]);
    const added = await post('session', 'booking/session', `session_id=${id}&alter[1]=2`);
    expect(added.cookies).toEqual([]);
    const byCookie = await invoke(handlers.session, {
      path: 'booking/session',
      cookies: [`session_id=${id}`],
    });
    expect(byCookie.cookies[0]).toContain(`session_id=${id}`);
    await post('session', 'booking/session/end', `session_id=${id}`);
  });

  it('tells a repeat create by session id alone only the id, code and status', async () => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    const id = sessionOf(await post('session', 'booking/session', `slip[]=${slip}`)).id;
    const first = await post('bookings', 'booking/create', `session_id=${id}&${customerForm}`, {
      headers: { 'idempotency-key': 'k-1' },
    });
    expect(first.status).toBe(200);
    expect(first.json.booking.token).toBeTruthy();

    const stranger = await post(
      'bookings',
      'booking/create',
      `session_id=${id}&form[customer_name]=Eve&form[customer_email]=eve@example.com`,
    );
    expect(stranger.status).toBe(200);
    expect(stranger.json.booking).toEqual({
      id: first.json.booking.code,
      booking_id: first.json.booking.booking_id,
      code: first.json.booking.code,
      status_id: 'PEND',
      status: 'PEND',
      status_name: 'Pending',
    });
    expect(JSON.stringify(stranger.json)).not.toContain(first.json.booking.token);
    expect(stranger.json.request.data).toEqual({ existing: 1 });

    const sameEmail = await post(
      'bookings',
      'booking/create',
      `session_id=${id}&form[customer_name]=Ada&form[customer_email]=ADA@example.com`,
    );
    expect(sameEmail.json.booking.token).toBe(first.json.booking.token);
    const sameKey = await post('bookings', 'booking/create', `session_id=${id}&${customerForm}`, {
      headers: { 'idempotency-key': 'k-1' },
    });
    expect(sameKey.json.booking.token).toBe(first.json.booking.token);
  });

  it('never tells a customer its customer id, and tells staff', async () => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    const customer = await post('bookings', 'booking/create', `slip[]=${slip}&${customerForm}`);
    expect(customer.json.booking).not.toHaveProperty('customer_id');
    const desk = await post(
      'bookings',
      'booking/create',
      `slip[]=${await slipOf(1, `date=${freshDay()}`)}&${customerForm}`,
      {
        headers: { authorization: staff },
      },
    );
    expect(desk.json.booking.customer_id).toEqual(expect.any(Number));
  });
});

describe('cross-site cart changes', () => {
  const cart = async () => {
    const day = freshDay();
    const id = sessionOf(
      await post('session', 'booking/session', `slip[]=${await slipOf(1, `date=${day}`)}`),
    ).id;
    return { id, day, cookies: [`session_id=${id}`] };
  };

  it('refuses a cookie-only change from another site, and changes nothing', async () => {
    const { id, day, cookies } = await cart();
    // Without Origin, a same-site page (another subdomain of the site) is not the service's own origin,
    // and a value the Fetch Metadata spec does not define is not trusted either.
    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example.net' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'Same-Site' },
      { 'sec-fetch-site': 'bogus' },
    ];
    for (const headers of crossSite) {
      for (const [path, body] of [
        ['booking/session', 'alter[1]=5'],
        ['booking/session/clear', ''],
        ['booking/session/end', ''],
      ] as const) {
        const refused = await post('session', path, body, { cookies, headers });
        expect(refused.status).toBe(403);
        expect(refused.json.request.error.id).toBe('forbidden');
      }
      const create = await post('bookings', 'booking/create', customerForm, { cookies, headers });
      expect(create.status).toBe(403);
    }
    expect(await usedOf(1, day)).toBe(1);
    const read = await invoke(handlers.session, {
      path: 'booking/session',
      cookies,
      headers: { origin: 'https://evil.example.net' },
    });
    expect(read.status).toBe(200);
    await post('session', 'booking/session/end', `session_id=${id}`);
  });

  it('serves the tenant’s origins, its own origin, same-origin or user-typed requests and server-side clients', async () => {
    const { day, cookies } = await cart();
    const allowed: Record<string, string>[] = [
      { origin: 'https://shop.example.com' },
      { origin: 'http://localhost' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      { 'sec-fetch-site': 'SAME-ORIGIN' },
      { origin: 'https://shop.example.com', 'sec-fetch-site': 'cross-site' },
      {},
    ];
    for (const [index, headers] of allowed.entries()) {
      // Each change moves the line between 2 and 3, within the client's share of the item-date.
      const response = await post('session', 'booking/session', `alter[1]=${(index % 2) + 2}`, {
        cookies,
        headers,
      });
      expect(response.status, JSON.stringify(headers)).toBe(200);
    }
    expect(await usedOf(1, day)).toBe(((allowed.length - 1) % 2) + 2);
    await post('session', 'booking/session/end', '', { cookies });
  });
});

describe('staff SLIPs and items', () => {
  it('refuses a SLIP rated with rules=soft by staff in a customer’s cart', async () => {
    const slip = await slipOf(1, `date=${freshDay()}&rules=soft`, { authorization: staff });
    const refused = await post('session', 'booking/session', `slip[]=${slip}`);
    expect(refused.status).toBe(400);
    expect(refused.json.request.error).toMatchObject({ id: 'invalid_slip', data: { reason: 'staff_only' } });
    expect(
      (await post('session', 'booking/session', `slip[]=${slip}`, { headers: { authorization: staff } }))
        .status,
    ).toBe(200);
  });

  it('refuses a SLIP of a staff-only item to customers', async () => {
    const day = freshDay();
    const slip = await slipOf(3, `date=${day}`, { authorization: staff });
    const refused = await post('bookings', 'booking/create', `slip[]=${slip}&${customerForm}`);
    expect(refused.status).toBe(400);
    expect(refused.json.request.error.data.reason).toBe('staff_only');
    expect(await usedOf(3, day)).toBe(0);
  });

  it('still books a private item for a customer who has its id', async () => {
    const day = freshDay();
    const added = await post('session', 'booking/session', `slip[]=${await slipOf(6, `date=${day}`)}`);
    expect(added.status).toBe(200);
    expect(await usedOf(6, day)).toBe(1);
    await post('session', 'booking/session/end', `session_id=${sessionOf(added).id}`);
  });

  it('re-checks visibility and that the item is enabled when a line grows', async () => {
    const day = freshDay();
    const made = await post('session', 'booking/session', `slip[]=${await slipOf(4, `date=${day}`)}`);
    const id = sessionOf(made).id;
    await writeTenant(db, makeTenant(tenantJson({ hidden: true })), Date.now());
    const grown = await post('session', 'booking/session', `session_id=${id}&alter[1]=3`);
    expect(grown.status).toBe(409);
    expect(grown.json.request.error.id).toBe('unavailable');
    expect(await usedOf(4, day)).toBe(1);
    expect((await post('session', 'booking/session', `session_id=${id}&alter[1]=remove`)).status).toBe(200);
    await writeTenant(db, makeTenant(tenantJson()), Date.now());
    await post('session', 'booking/session/end', `session_id=${id}`);
  });
});

describe('a change of the unlimited flag', () => {
  it('cannot make the counters drift through void and revival', async () => {
    const day = freshDay();
    const booked = await post(
      'bookings',
      'booking/create',
      `slip[]=${await slipOf(5, `date=${day}`)}&${customerForm}`,
    );
    const code = booked.json.booking.code;
    const update = (status: string) =>
      post('bookings', `booking/${code}/update`, '', {
        query: `status_id=${status}`,
        headers: { authorization: staff },
      });
    expect((await update('VOID')).status).toBe(200);
    await writeTenant(db, makeTenant(tenantJson({ unlimitedRaft: true })), Date.now());
    expect((await update('PEND')).status).toBe(200);
    expect(await usedOf(5, day)).toBe(1);
    expect((await update('VOID')).status).toBe(200);
    await writeTenant(db, makeTenant(tenantJson()), Date.now());
    expect(await usedOf(5, day)).toBe(0);
    expect((await update('PEND')).status).toBe(200);
    expect(await usedOf(5, day)).toBe(1);
  });
});

describe('gift certificate errors', () => {
  it('tell customers nothing about why a code fails, and tell staff', async () => {
    const customerErrors = [];
    for (const code of ['GIFT-NONE', 'GIFT-OLD', 'GIFT-EMPTY']) {
      const slip = await slipOf(1, `date=${freshDay()}`);
      const response = await post(
        'bookings',
        'booking/create',
        `slip[]=${slip}&${customerForm}&giftcert_code=${code}`,
      );
      expect(response.status).toBe(400);
      customerErrors.push(response.json.request.error);
    }
    expect(new Set(customerErrors.map((error) => JSON.stringify(error))).size).toBe(1);
    const slip = await slipOf(1, `date=${freshDay()}`);
    const desk = await post(
      'bookings',
      'booking/create',
      `slip[]=${slip}&${customerForm}&giftcert_code=GIFT-OLD`,
      {
        headers: { authorization: staff },
      },
    );
    expect(desk.json.request.error.data).toEqual({ giftcert_code: 'has expired' });
  });
});

describe('the gift certificate oracle', () => {
  /** Sessions in every state that has nothing to book, each made afresh: none, unknown, empty, ended. */
  const nothingToBook = async (): Promise<Record<string, string>> => {
    const emptied = sessionOf(
      await post('session', 'booking/session', `slip[]=${await slipOf(1, `date=${freshDay()}`)}`),
    ).id;
    await post('session', 'booking/session/clear', `session_id=${emptied}`);
    const ended = sessionOf(
      await post('session', 'booking/session', `slip[]=${await slipOf(1, `date=${freshDay()}`)}`),
    ).id;
    await post('session', 'booking/session/end', `session_id=${ended}`);
    return {
      none: '',
      unknown: 'session_id=Zz0000000000000000000000&',
      empty: `session_id=${emptied}&`,
      ended: `session_id=${ended}&`,
    };
  };

  it('answers a real and a made-up code alike when there is nothing to book', async () => {
    const sessions = await nothingToBook();
    for (const [state, session] of Object.entries(sessions)) {
      const answers = [];
      for (const code of ['GIFT-LIVE', 'GIFT-MADE-UP']) {
        const response = await post(
          'bookings',
          'booking/create',
          `${session}${customerForm}&giftcert_code=${code}`,
        );
        answers.push(JSON.stringify({ status: response.status, error: response.json.request.error }));
      }
      expect(answers[0], state).toBe(answers[1]);
      expect(JSON.parse(answers[0] ?? '{}').status, state).not.toBe(400);
    }
  });

  it('gives a partner’s own credential the customer’s one answer, not staff’s', async () => {
    const answers = [];
    for (const code of ['GIFT-NONE', 'GIFT-OLD', 'GIFT-EMPTY']) {
      const slip = await slipOf(1, `date=${freshDay()}`);
      const response = await post(
        'bookings',
        'booking/create',
        `slip[]=${slip}&${customerForm}&giftcert_code=${code}`,
        { headers: { authorization: partner } },
      );
      expect(response.status).toBe(400);
      answers.push(JSON.stringify(response.json.request.error));
    }
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0] ?? '{}').data).toEqual({ giftcert_code: 'not valid' });
  });
});

describe('the gift certificate guessing budget', () => {
  // A clock at least ten minutes from the end of its hour, so the hour's budget cannot roll over mid-test,
  // and less than a hold time ahead, so the carts made at the real time are still open by it.
  const offset = new Date().getUTCMinutes() >= 50 ? 11 * 60_000 : 0;
  const timed = () => createAllHandlers(testDeps(db, { clock: () => Date.now() + offset }));
  const BUDGET = 10;

  const bookable = async (): Promise<string> => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    return sessionOf(await post('session', 'booking/session', `slip[]=${slip}`)).id;
  };
  const attempt = (
    handlers: ReturnType<typeof createAllHandlers>,
    options: { sessionId: string; code: string; sourceIp: string; headers?: Record<string, string> },
  ) =>
    invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `session_id=${options.sessionId}&${customerForm}&giftcert_code=${options.code}`,
      contentType: 'application/x-www-form-urlencoded',
      sourceIp: options.sourceIp,
      ...(options.headers ? { headers: options.headers } : {}),
    });

  it('stops a script guessing codes after the budget, even for a real code, and charges no real code', async () => {
    const service = timed();
    const attacker = '203.0.113.90';
    const real = await attempt(service, {
      sessionId: await bookable(),
      code: 'GIFT-SPARE',
      sourceIp: attacker,
    });
    expect(real.status).toBe(200);
    const sessionId = await bookable();
    const statuses: number[] = [];
    for (let index = 0; index < BUDGET; index += 1) {
      statuses.push(
        (await attempt(service, { sessionId, code: `GUESS-${index}`, sourceIp: attacker })).status,
      );
    }
    expect(statuses).toEqual(Array(BUDGET).fill(400));
    const stopped = await attempt(service, { sessionId, code: 'GUESS-X', sourceIp: attacker });
    expect(stopped.status).toBe(429);
    expect(stopped.json.request.error).toMatchObject({ id: 'rate_limited', data: { limit: BUDGET } });
    const retryAfter = Number(stopped.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Guessing stops: a correct code gets the same 429, so a hit cannot be told apart.
    const correct = await attempt(service, { sessionId, code: 'GIFT-SPARE', sourceIp: attacker });
    expect(correct.status).toBe(429);
    expect(correct.json.request.error.id).toBe('rate_limited');
    // Another client's budget is its own.
    expect((await attempt(service, { sessionId, code: 'GIFT-SPARE', sourceIp: '203.0.113.91' })).status).toBe(
      200,
    );
  });

  it('keeps to the budget under a concurrent burst of guesses', async () => {
    const service = timed();
    const sessionId = await bookable();
    const burst = await Promise.all(
      Array.from({ length: BUDGET + 5 }, (_, index) =>
        attempt(service, { sessionId, code: `BURST-${index}`, sourceIp: '203.0.113.95' }),
      ),
    );
    const statuses = burst.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(BUDGET).fill(400), ...Array(5).fill(429)]);
  });

  it('counts a partner’s own credential by the credential, whatever address it calls from', async () => {
    const service = timed();
    const desk = await createCredential(db, { accountId: 2, onBehalf: false, label: 'desk', now: 0 });
    const agent = basic(desk.key, desk.secret);
    const sessionId = await bookable();
    for (let index = 0; index < BUDGET; index += 1) {
      const guess = await attempt(service, {
        sessionId,
        code: `PGUESS-${index}`,
        sourceIp: `203.0.113.${100 + index}`,
        headers: { authorization: agent },
      });
      expect(guess.status).toBe(400);
    }
    const stopped = await attempt(service, {
      sessionId,
      code: 'PGUESS-X',
      sourceIp: '203.0.113.200',
      headers: { authorization: agent },
    });
    expect(stopped.status).toBe(429);
  });
});
