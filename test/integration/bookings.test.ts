import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createCredential } from '#lib/auth/credential-admin.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { LEASE_MARGIN_MS, runOnceOrReplay } from '#lib/db/idempotency-store.ts';
import { giftcertKey, stockKey } from '#lib/db/keys.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { encodeSlip, verifySlip } from '#lib/slip/codec.ts';
import { TEST_SLIP_KEY, testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke, type TestResponse } from '#test/support/events.ts';
import { expectInvariant, sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
let staff: string;
let admin: string;
const day = addDays(todayIn('America/Toronto', Date.now()), 30);
const STATUSES = ['PEND', 'HOLD', 'PART', 'PAID', 'WAIT', 'STOP', 'VOID', 'CANCELLED'];

const form = (fields: Record<string, string> = {}) => ({
  'form[customer_name]': 'Ada Lovelace',
  'form[customer_email]': 'ada@example.com',
  ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`form[${name}]`, value])),
});

const encode = (fields: Record<string, string | string[]>) =>
  Object.entries(fields)
    .flatMap(([name, value]) =>
      [value].flat().map((entry) => `${encodeURIComponent(name)}=${encodeURIComponent(entry)}`),
    )
    .join('&');

const create = (fields: Record<string, string | string[]>, headers: Record<string, string> = {}) =>
  invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: encode(fields),
    contentType: 'application/x-www-form-urlencoded',
    headers,
  });

const staffCall = (
  path: string,
  options: { method?: string; query?: string; headers?: Record<string, string> } = {},
) =>
  invoke(handlers.bookings, {
    method: options.method ?? 'GET',
    path,
    ...(options.query ? { query: options.query } : {}),
    headers: { authorization: staff, ...options.headers },
  });

const usedOf = async (itemId: number, slot: string): Promise<number> => {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: stockKey(itemId, slot), ConsistentRead: true }),
  );
  return Number(Item?.used ?? 0);
};

/** A new session holding `qty` of item 1 on `date`. */
const cart = async (options: { itemId?: number; date?: string; qty?: number } = {}) => {
  const slip = await client.slip(
    options.itemId ?? 1,
    `date=${options.date ?? day}&param[qty]=${options.qty ?? 1}`,
  );
  return sessionOf(await client.add([slip])).id as string;
};

const book = async (
  fields: Record<string, string> = {},
  options: { itemId?: number; date?: string; qty?: number } = {},
) => {
  const sessionId = await cart(options);
  const response = await create({ session_id: sessionId, ...form(fields) });
  expect(response.status, JSON.stringify(response.json.request)).toBe(200);
  return { sessionId, created: response.json.booking, response };
};

beforeAll(async () => {
  db = await createTestDb('bookings');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST' },
        items: [
          makeItem({ item_id: 1, stock: 500 }),
          makeItem({ item_id: 2, sku: 'solo', name: 'Solo', stock: 1 }),
        ],
        taxes: [
          { tax_id: 'hst', name: 'HST', rate: 13 },
          { tax_id: 'city', name: 'City tax', rate: 4, inclusive: true },
        ],
        discounts: [
          { code: 'PADDLE10', name: 'Ten off kayaks', type: 'amount', value: '10.00', item_ids: [1] },
        ],
        giftcerts: [
          { code: 'GIFT-100', amount: '100.00' },
          { code: 'GIFT-RACE', amount: '60.00' },
        ],
        form: [
          {
            field_id: 'customer_name',
            lbl: 'Full name',
            type: 'text',
            customer: { required: true },
            staff: { required: true },
          },
          {
            field_id: 'customer_email',
            lbl: 'Email',
            type: 'text',
            mask: 'email',
            customer: { required: true },
          },
          {
            field_id: 'customer_country',
            lbl: 'Country',
            type: 'select',
            options: { CA: 'Canada', US: 'United States' },
          },
          { field_id: 'note', lbl: 'Note', type: 'textarea', max_length: 3000 },
          {
            field_id: 'staff_notes',
            lbl: 'Desk',
            type: 'textarea',
            customer: { form: false },
            staff: { form: true },
          },
        ],
        accounts: [
          { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' },
          { account_id: 2, first_name: 'Bo', email: 'bo@test.example.com', login_id: 'bo' },
        ],
      }),
    ),
    Date.now(),
  );
  const desk = await createCredential(db, { accountId: 1, onBehalf: false, label: 'desk', now: Date.now() });
  const owner = await createCredential(db, { accountId: 1, onBehalf: true, label: 'owner', now: Date.now() });
  staff = basic(desk.key, desk.secret);
  admin = basic(owner.key, owner.secret);
  handlers = createAllHandlers(testDeps(db));
  client = sessionClient(handlers);
});

afterEach(async () => {
  await expectInvariant(db);
});

describe('booking/form', () => {
  it('shows customers their fields and staff theirs, with the keys clients skip', async () => {
    const customer = await invoke(handlers.bookings, { path: 'booking/form' });
    const ui = customer.json.booking_form_ui;
    expect(ui).toMatchObject({ msg: [], errors: 0, mode: 'html', _cnf: [] });
    expect(ui.customer_name).toMatchObject({
      value: '',
      define: { required: 1, layout: { lbl: 'Full name', type: 'text' } },
    });
    // The server's length limits travel with the form, so a client checks them before sending.
    expect(ui.customer_email.define).toMatchObject({ required: 1, mask: 'email', max_length: 500 });
    expect(ui.note.define.max_length).toBe(3000);
    expect(ui.customer_country.define.layout.options).toEqual({ CA: 'Canada', US: 'United States' });
    expect(ui.staff_notes).toBeUndefined();
    expect(customer.json.booking_policy.fields.customer_tos_agree.define.layout.type).toBe('checkbox');
    // Also where the API 3.0 service's sample puts it, inside the form.
    expect(ui.booking_policy).toEqual(customer.json.booking_policy);
    const desk = await staffCall('booking/form');
    expect(desk.json.booking_form_ui.staff_notes).toBeDefined();
    expect(desk.json.booking_form_ui.customer_email.define.required).toBe(0);
  });
});

describe('booking/create', () => {
  it('books a session in one step: the booking, its invoice URL, the session ended, the stock handed over', async () => {
    const sessionId = await cart({ qty: 2 });
    const before = sessionOf(await client.read(sessionId));
    const response = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: encode(form({ customer_country: 'CA', note: 'Late arrival' })),
      contentType: 'application/x-www-form-urlencoded',
      cookies: [`session_id=${sessionId}`],
      headers: { host: 'api.test' },
    });
    expect(response.status).toBe(200);
    const created = response.json.booking;
    expect(created).toMatchObject({
      booking_id: expect.any(Number),
      status_id: 'PEND',
      status: 'PEND',
      status_name: 'Pending',
      total: before.total,
      paid_total: '0.00',
      due: before.total,
    });
    // Whether the email already belonged to a customer is not told to customers.
    expect(created).not.toHaveProperty('customer_id');
    expect(created.id).toMatch(/^TEST-[A-Z2-9]{6}$/);
    expect(created.code).toBe(created.id);
    expect(created.invoice_url).toBe(
      `http://api.test/api/3.0/booking/${created.code}/invoice?token=${created.token}`,
    );
    expect(response.json.request).toMatchObject({ id: 'create', data: { url: created.invoice_url } });
    expect((await client.read(sessionId)).status).toBe(409);
    expect(await usedOf(1, day)).toBeGreaterThanOrEqual(2);

    const record = (await staffCall(`booking/${created.code}`)).json.booking;
    expect(record).toMatchObject({
      booking_id: created.booking_id,
      code: created.code,
      id: created.code,
      status_id: 'PEND',
      customer_name: 'Ada Lovelace',
      customer_email: 'ada@example.com',
      customer_country: 'CA',
      sub_total: before.sub_total,
      tax_total: before.tax_total,
      tax_inc_total: before.tax_inc_total,
      total: before.total,
      due: before.total,
      amount_due: before.total,
      checked_in: 0,
      checked_out: 0,
      bookmarked: 0,
      meta: { note: 'Late arrival' },
      token: created.token,
    });
    expect(record.items['1']).toMatchObject({
      item_id: 1,
      qty: 1,
      param: { qty: { qty: 2 } },
      status_id: 'PEND',
    });
    expect(typeof record.created_date).toBe('number');
    expect(typeof record.start_date).toBe('number');
    expect((await staffCall(`booking/${created.booking_id}`)).json.booking.code).toBe(created.code);
  });

  it('returns the same booking when a booked session is booked again', async () => {
    const { sessionId, created } = await book();
    const again = await create({ session_id: sessionId, ...form() });
    expect(again.status).toBe(200);
    expect(again.json.booking.booking_id).toBe(created.booking_id);
  });

  it('makes one booking of ten concurrent creates of one session', async () => {
    const sessionId = await cart();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => create({ session_id: sessionId, ...form() })),
    );
    const ids = new Set(
      responses
        .filter((response) => response.status === 200)
        .map((response) => response.json.booking.booking_id),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(ids.size).toBe(1);
    const listed = await staffCall('booking/index', { query: 'limit=250' });
    const fromSession = Object.values<any>(listed.json['booking/index']).filter((row) =>
      ids.has(row.booking_id),
    );
    expect(fromSession).toHaveLength(1);
  });

  it('books SLIPs directly, holding and booking them', async () => {
    const slip = await client.slip(1, `date=${addDays(day, 1)}`);
    const before = await usedOf(1, addDays(day, 1));
    const response = await create({ 'slip[]': slip, ...form() });
    expect(response.status).toBe(200);
    expect(await usedOf(1, addDays(day, 1))).toBe(before + 1);
  });

  it('adds SLIPs sent with a session to it before booking', async () => {
    const sessionId = await cart();
    const slip = await client.slip(1, `date=${addDays(day, 2)}`);
    const response = await create({ session_id: sessionId, 'slip[]': slip, ...form() });
    expect(response.status).toBe(200);
    const record = await staffCall(`booking/${response.json.booking.code}`);
    expect(Object.keys(record.json.booking.items)).toEqual(['1', '2']);
  });

  it('lists each missing field, refuses bad fields, an empty or an expired session', async () => {
    const sessionId = await cart();
    const missing = await create({ session_id: sessionId, 'form[customer_country]': 'CA' });
    expect(missing.status).toBe(400);
    expect(missing.json.request.error).toMatchObject({
      id: 'validation_error',
      title: 'Missing required fields',
      data: { customer_name: 'Full name', customer_email: 'Email' },
    });
    const bad = await create({
      session_id: sessionId,
      ...form({ customer_email: 'nope', customer_country: 'FR', staff_notes: 'x' }),
    });
    expect(bad.json.request.error.data).toEqual({
      'form[customer_email]': 'not an email address',
      'form[customer_country]': 'not one of the options',
    });
    const emptied = sessionOf(await client.clear(sessionId)).id;
    const empty = await create({ session_id: emptied, ...form() });
    expect(empty.status).toBe(409);
    expect(empty.json.request.error.id).toBe('session_empty');
    await client.end(emptied);
    const ended = await create({ session_id: emptied, ...form() });
    expect(ended.json.request.error.id).toBe('session_expired');
    expect((await create({ ...form() })).json.request.error.id).toBe('session_empty');
  });

  it('replays an Idempotency-Key for 24 h, refuses it for another request, and while in progress', async () => {
    const sessionId = await cart();
    const first = await create({ session_id: sessionId, ...form() }, { 'Idempotency-Key': 'key-1' });
    const replay = await create({ session_id: sessionId, ...form() }, { 'idempotency-key': 'key-1' });
    expect(replay.status).toBe(200);
    expect(replay.json.booking).toEqual(first.json.booking);
    const other = await create(
      { session_id: sessionId, ...form({ customer_name: 'Someone Else' }) },
      { 'Idempotency-Key': 'key-1' },
    );
    expect(other.status).toBe(422);
    expect(other.json.request.error.id).toBe('idempotency_mismatch');
    const busySession = await cart();
    const running = await holdKey({ scope: busySession, key: 'key-2', requestHash: 'running' });
    const refused = await create({ session_id: busySession, ...form() }, { 'Idempotency-Key': 'key-2' });
    expect(refused.status).toBe(422);
    expect(refused.json.request.error.id).toBe('idempotency_mismatch');
    running.finish();
    await client.end(busySession);
  });

  /** The route's hash of a create request, to claim its key as a running request would. */
  const requestHashOf = async (sessionId: string, fields: Record<string, string>) => {
    const { createHash } = await import('node:crypto');
    const body = Object.fromEntries(
      Object.entries(fields).map(([name, value]) => [name.slice(5, -1), value]),
    );
    return createHash('sha256')
      .update(JSON.stringify({ sessionId, slips: [], form: body, giftcert: undefined }))
      .digest('base64url');
  };

  /** Claims a key as a request that is still running (or crashed) would, until `finish` is called. */
  const holdKey = async (call: { scope: string; key: string; requestHash: string; remainingMs?: number }) => {
    let finish = () => {};
    const blocked = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const claimed = runOnceOrReplay(db, { remainingMs: 10_000, ...call }, async () => {
      await blocked;
      return 'done';
    }).catch(() => undefined);
    await new Promise((wake) => setTimeout(wake, 150));
    return { finish: () => finish(), claimed };
  };

  it('answers 409 in_progress while the same request is still running', async () => {
    const sessionId = await cart();
    const fields = form();
    const requestHash = await requestHashOf(sessionId, fields);
    const running = await holdKey({ scope: sessionId, key: 'key-3', requestHash });
    const response = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-3' });
    expect(response.status).toBe(409);
    expect(response.json.request.error.id).toBe('in_progress');
    running.finish();
    await client.end(sessionId);
  });

  it('lets a key left in progress by a crashed process be claimed again once its lease is over', async () => {
    const sessionId = await cart();
    const fields = form();
    const requestHash = await requestHashOf(sessionId, fields);
    // The crashed process had 600 ms left: its claim lasts that and the lease margin, then lapses.
    await holdKey({ scope: sessionId, key: 'key-4', requestHash, remainingMs: 600 - LEASE_MARGIN_MS });
    const early = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-4' });
    expect(early.status).toBe(409);
    await new Promise((wake) => setTimeout(wake, 700));
    const later = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-4' });
    expect(later.status).toBe(200);
    expect(later.json.booking.token).toEqual(expect.any(String));
    const replay = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-4' });
    expect(replay.json.booking).toEqual(later.json.booking);
  });

  it('matches customers by email and takes no details from a public booking', async () => {
    const first = await book({ customer_email: 'Grace@Example.com', customer_name: 'Grace Hopper' });
    const second = await book({ customer_email: 'grace@example.com', customer_name: 'G. H.' });
    const customerOf = async (code: string) =>
      (await staffCall(`booking/${code}`)).json.booking.customer_id as number;
    const customerId = await customerOf(first.created.code);
    expect(await customerOf(second.created.code)).toBe(customerId);
    const customer = await staffCall(`customer/${customerId}`);
    // Whoever typed an email into the public form may not be its owner: only the email is the customer's.
    expect(customer.json.customer).toMatchObject({
      customer_name: '',
      customer_email: 'grace@example.com',
      details_from: '',
    });
    expect(Object.keys(customer.json.customer.bookings).sort()).toEqual(
      [first.created.code, second.created.code].sort(),
    );
    expect((await staffCall(`booking/${second.created.code}`)).json.booking.customer_name).toBe('G. H.');
    const found = await staffCall('customer', { query: 'customer_email=GRACE@example.com' });
    expect(Object.keys(found.json.customers)).toEqual([String(customerId)]);
    expect((await staffCall('customer/C-999999')).status).toBe(404);
  });

  it('takes a customer’s details from the newest booking staff entered, never from a stranger’s public one', async () => {
    // A stranger books first with the guest's email, planting a name and a country on the future record.
    const planted = await book({
      customer_email: 'victor@example.com',
      customer_name: 'Mallory',
      customer_country: 'US',
    });
    const sessionId = await cart();
    const byStaff = await create(
      {
        session_id: sessionId,
        ...form({
          customer_email: 'victor@example.com',
          customer_name: 'Victor Vance',
          customer_country: 'CA',
        }),
      },
      { authorization: staff },
    );
    expect(byStaff.status).toBe(200);
    const later = await book({
      customer_email: 'victor@example.com',
      customer_name: 'Mallory again',
      customer_country: 'US',
    });
    const customerId = byStaff.json.booking.customer_id;
    const customer = (await staffCall(`customer/${customerId}`)).json.customer;
    expect(customer).toMatchObject({
      customer_name: 'Victor Vance',
      customer_country: 'CA',
      customer_email: 'victor@example.com',
      details_from: byStaff.json.booking.code,
    });
    expect(Object.keys(customer.bookings).sort()).toEqual(
      [planted.created.code, byStaff.json.booking.code, later.created.code].sort(),
    );
    const found = (await staffCall('customer', { query: 'customer_email=victor@example.com' })).json
      .customers;
    expect(found[String(customerId)]).toMatchObject({
      customer_name: 'Victor Vance',
      customer_country: 'CA',
    });
    // Each booking shows what was entered on it: the record, the list row and the invoice.
    for (const [code, name, country] of [
      [planted.created.code, 'Mallory', 'US'],
      [byStaff.json.booking.code, 'Victor Vance', 'CA'],
      [later.created.code, 'Mallory again', 'US'],
    ]) {
      const record = (await staffCall(`booking/${code}`)).json.booking;
      expect(record).toMatchObject({
        customer_name: name,
        customer_country: country,
        customer_id: customerId,
      });
      const invoice = (await staffCall(`booking/${code}/invoice`)).json.booking.invoice;
      expect(invoice.customer).toMatchObject({ customer_name: name, customer_country: country });
    }
    const rows = (await staffCall('booking/index', { query: `customer_id=${customerId}` })).json[
      'booking/index'
    ];
    expect(
      Object.values(rows)
        .map((row: any) => [row.code, row.customer_name])
        .sort(),
    ).toEqual(
      [
        [planted.created.code, 'Mallory'],
        [byStaff.json.booking.code, 'Victor Vance'],
        [later.created.code, 'Mallory again'],
      ].sort(),
    );
  });
});

describe('gift certificates', () => {
  const balance = async (code: string) =>
    Number(
      (
        await db.client.send(
          new GetCommand({ TableName: db.tableName, Key: giftcertKey(code), ConsistentRead: true }),
        )
      ).Item?.balance,
    );

  it('spends a balance on create and restores it on VOID', async () => {
    const sessionId = await cart({ qty: 1 });
    const response = await create({ session_id: sessionId, giftcert_code: 'gift-100', ...form() });
    const created = response.json.booking;
    expect(created.paid_total).toBe(created.total);
    expect(created.due).toBe('0.00');
    expect(created.status_id).toBe('PAID');
    expect(await balance('GIFT-100')).toBe(10_000 - Math.round(Number(created.total) * 100));
    await staffCall(`booking/${created.code}/update`, { method: 'POST', query: 'status_id=VOID' });
    expect(await balance('GIFT-100')).toBe(10_000);
  });

  it('never lets two bookings spend one balance twice', async () => {
    const sessions = [await cart({ qty: 1 }), await cart({ qty: 1 })];
    const responses = await Promise.all(
      sessions.map((sessionId) => create({ session_id: sessionId, giftcert_code: 'GIFT-RACE', ...form() })),
    );
    const paid = responses
      .filter((r) => r.status === 200)
      .map((r) => Math.round(Number(r.json.booking.paid_total) * 100));
    expect(paid.reduce((sum, amount) => sum + amount, 0)).toBeLessThanOrEqual(6000);
    expect(await balance('GIFT-RACE')).toBe(6000 - paid.reduce((sum, amount) => sum + amount, 0));
    for (const sessionId of sessions) await client.end(sessionId).catch(() => undefined);
  });
});

describe('amount discounts', () => {
  const cents = (money: string) => Math.round(Number(money) * 100);
  const sum = (values: string[]) => values.reduce((total, value) => total + cents(value), 0);

  /** `count` distinct SLIPs of `qty` kayaks on one date with the amount code (a SLIP differs by its expiry). */
  const slips = async (options: { date: string; qty: number; count: number }) => {
    const slip = await client.slip(
      1,
      `date=${options.date}&param[qty]=${options.qty}&discount_code=PADDLE10`,
    );
    const payload = verifySlip(slip, { keys: [TEST_SLIP_KEY], tenant: 'test', now: Date.now() });
    return Array.from({ length: options.count }, (_, index) =>
      encodeSlip({ ...payload, expiresAt: payload.expiresAt - index }, TEST_SLIP_KEY),
    );
  };

  it('takes an amount once per cart: five lines of one kayak get what one line of five gets', async () => {
    const date = addDays(day, 40);
    const one = sessionOf(await client.add(await slips({ date, qty: 5, count: 1 })));
    const five = sessionOf(await client.add(await slips({ date, qty: 1, count: 5 })));
    expect(Object.keys(five.item)).toHaveLength(5);
    expect(one.discount).toBe('10.00');
    expect(five.discount).toBe(one.discount);
    expect(five.total).toBe(one.total);
    // Each line shows its share, and the shares add up to the cart's discount.
    const shares = Object.values(five.item).map(
      (line) => (line as { rate: { discount: string } }).rate.discount,
    );
    expect(shares).toEqual(['2.00', '2.00', '2.00', '2.00', '2.00']);

    for (const session of [one, five]) {
      const made = await create({ session_id: session.id, ...form() });
      expect(made.status).toBe(200);
      expect(made.json.booking.total).toBe(session.total);
      const record = (await staffCall(`booking/${made.json.booking.code}`)).json.booking;
      expect(record.discount).toBe('10.00');
      expect(sum(Object.values(record.items).map((line) => (line as { total: string }).total))).toBe(
        cents(record.total),
      );
      const invoice = (await staffCall(`booking/${made.json.booking.code}/invoice`)).json.booking.invoice;
      expect(invoice.discount).toBe('10.00');
      expect(sum(invoice.lines.map((line: { discount: string }) => line.discount))).toBe(1000);
      expect(sum(invoice.lines.map((line: { total: string }) => line.total))).toBe(
        cents(invoice.sub_total) - cents(invoice.discount),
      );
    }
  });

  it('spreads an amount over its lines in proportion, never more than a line, summing to the amount', async () => {
    const date = addDays(day, 41);
    const [big] = await slips({ date, qty: 2, count: 1 });
    const small = await slips({ date, qty: 1, count: 2 });
    const session = sessionOf(await client.add([big as string, ...small]));
    const shares = Object.values(session.item).map(
      (line) => (line as { rate: { discount: string } }).rate.discount,
    );
    // 10.00 over 80.00, 40.00 and 40.00: 5.00, 2.50 and 2.50.
    expect(shares).toEqual(['5.00', '2.50', '2.50']);
    expect(session.discount).toBe('10.00');
    await client.end(session.id);
  });
});

describe('status changes', () => {
  const update = (code: string, query: string) =>
    staffCall(`booking/${code}/update`, { method: 'POST', query });

  it('walks every pair of statuses, releasing and taking stock as it leaves or enters VOID and CANCELLED', async () => {
    const date = addDays(day, 3);
    const { created } = await book({}, { date, qty: 2 });
    const held = await usedOf(1, date);
    const inactive = (status: string) => status === 'VOID' || status === 'CANCELLED';
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        expect((await update(created.code, `status_id=${from}`)).status).toBe(200);
        const response = await update(created.code, `status_id=${to}&notify=0`);
        expect(response.status, `${from} -> ${to}`).toBe(200);
        expect(response.json.booking.status_id).toBe(to);
        expect(await usedOf(1, date), `${from} -> ${to}`).toBe(inactive(to) ? held - 2 : held);
      }
    }
  });

  it('fails to revive a voided booking whose stock was sold meanwhile', async () => {
    const date = addDays(day, 4);
    const { created } = await book({}, { itemId: 2, date });
    expect((await update(created.code, 'status_id=VOID')).status).toBe(200);
    const other = await book({}, { itemId: 2, date });
    const revive = await update(created.code, 'status_id=PEND');
    expect(revive.status).toBe(409);
    expect(revive.json.request.error).toMatchObject({ id: 'unavailable', data: { item_id: 2, date } });
    expect((await staffCall(`booking/${created.code}`)).json.booking.status_id).toBe('VOID');
    expect(other.created.status_id).toBe('PEND');
  });

  it('records one payment of exactly what is due with set_paid, then nothing is due', async () => {
    const { created } = await book();
    const paid = await update(created.code, 'status_id=PAID&set_paid=1');
    expect(paid.status).toBe(200);
    expect(paid.json.booking).toMatchObject({ status_id: 'PAID', due: '0.00', paid_total: created.total });
    expect(paid.json.booking.transactions).toEqual([
      expect.objectContaining({ amount: created.total, method: 'pos', account_id: 1 }),
    ]);
    const again = await update(created.code, 'status_id=PAID&set_paid=1');
    expect(again.status).toBe(409);
    expect(again.json.request.error.id).toBe('nothing_due');
  });

  it.each([
    ['set_paid with another status', 'status_id=HOLD&set_paid=1', 'set_paid'],
    ['set_paid with notify', 'status_id=PAID&set_paid=1&notify=1', 'set_paid'],
    ['an unknown status', 'status_id=NOPE', 'status_id'],
    ['no status', 'notify=1', 'status_id'],
  ])('refuses %s with 400', async (_name, query, field) => {
    const { created } = await book();
    const response = await update(created.code, query);
    expect(response.status).toBe(400);
    expect(Object.keys(response.json.request.error.data)).toEqual([field]);
  });
});

describe('check-in, check-out, notes and bookmarks', () => {
  it('checks in and out once each, with a note under the acting account unless note=0', async () => {
    const { created } = await book();
    const checkedIn = await staffCall(`booking/${created.code}/checkin`);
    expect(checkedIn.status).toBe(200);
    expect(checkedIn.json.booking.checked_in).toBeGreaterThan(0);
    expect(checkedIn.json.booking.notes).toEqual([
      expect.objectContaining({ body: 'Checked in', account_id: 1, booking_id: created.booking_id }),
    ]);
    expect(
      (await staffCall(`booking/${created.code}/checkin`, { method: 'POST' })).json.request.error.id,
    ).toBe('invalid_status');
    const out = await staffCall(`booking/${created.code}/checkout`, { method: 'POST', query: 'note=0' });
    expect(out.json.booking.notes).toHaveLength(1);
    expect((await staffCall(`booking/${created.code}/checkout`)).status).toBe(409);
  });

  it('refuses to check in a VOID or CANCELLED booking', async () => {
    for (const status of ['VOID', 'CANCELLED']) {
      const { created } = await book();
      await staffCall(`booking/${created.code}/update`, { method: 'POST', query: `status_id=${status}` });
      const response = await staffCall(`booking/${created.code}/checkin`);
      expect(response.status).toBe(409);
      expect(response.json.request.error.id).toBe('invalid_status');
    }
  });

  it('takes notes of 1 to 3000 characters after trimming, authored by the acting account', async () => {
    const { created } = await book();
    const long = await staffCall(`booking/${created.code}/note`, {
      method: 'POST',
      query: `body=${'x'.repeat(3000)}`,
    });
    expect(long.status).toBe(200);
    const tooLong = await staffCall(`booking/${created.code}/note`, {
      method: 'POST',
      query: `body=${'x'.repeat(3001)}`,
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.request.error.data).toEqual({ body: '1 to 3000 characters' });
    expect(
      (await staffCall(`booking/${created.code}/note`, { method: 'POST', query: 'body=%20%20' })).status,
    ).toBe(400);
    const byBo = await invoke(handlers.bookings, {
      method: 'POST',
      path: `booking/${created.code}/note`,
      query: 'body=From%20Bo',
      headers: { authorization: admin, 'x-on-behalf': '2' },
    });
    expect(byBo.json.booking.notes.at(-1)).toMatchObject({ body: 'From Bo', account_id: 2 });
  });

  it('bookmarks per acting account', async () => {
    const { created } = await book();
    const marked = await staffCall(`booking/${created.code}/bookmark`, { method: 'POST', query: 'mark=1' });
    expect(marked.json.booking.bookmarked).toBe(1);
    const asBo = await invoke(handlers.bookings, {
      path: `booking/${created.code}`,
      headers: { authorization: admin, 'x-on-behalf': '2' },
    });
    expect(asBo.json.booking.bookmarked).toBe(0);
    expect(
      (await staffCall(`booking/${created.code}/bookmark`, { query: 'mark=0' })).json.booking.bookmarked,
    ).toBe(0);
  });

  it('keeps every change as an event of the audit trail', async () => {
    const { created } = await book();
    await staffCall(`booking/${created.code}/checkin`);
    await staffCall(`booking/${created.code}/update`, { method: 'POST', query: 'status_id=HOLD&notify=0' });
    await staffCall(`booking/${created.code}/note`, { method: 'POST', query: 'body=hello' });
    const record = await staffCall(`booking/${created.code}`, { query: 'events=1' });
    expect(record.json.booking.events.map((event: { type: string }) => event.type)).toEqual([
      'booking.created',
      'booking.checked_in',
      'booking.status_changed',
      'booking.note_added',
    ]);
    expect(record.json.booking.events[2].data).toMatchObject({ from: 'PEND', to: 'HOLD', notify: false });
    expect((await staffCall(`booking/${created.code}`)).json.booking.events).toBeUndefined();
  });
});

describe('invoice', () => {
  it('opens with the token (JSON or HTML) and escapes every value', async () => {
    const { created } = await book({ customer_name: '<script>alert(1)</script>' });
    const json = await invoke(handlers.bookings, {
      path: `booking/${created.code}/invoice`,
      query: `token=${created.token}`,
    });
    expect(json.status).toBe(200);
    const invoice = json.json.booking.invoice;
    expect(invoice).toMatchObject({ code: created.code, total: created.total, due: created.due });
    expect(invoice.taxes.map((tax: { tax_id: string }) => tax.tax_id)).toEqual(['hst', 'city']);
    expect(invoice.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(invoice.html).not.toContain('<script>');
    const { makeEvent, testContext } = await import('#test/support/events.ts');
    const html = await handlers.bookings(
      makeEvent({
        path: `booking/${created.code}/invoice`,
        query: `token=${created.token}`,
        headers: { accept: 'text/html' },
      }),
      testContext(),
    );
    expect(html.headers?.['content-type']).toContain('text/html');
    expect(html.body).toContain('&#60;script&#62;');
    expect(
      (await invoke(handlers.bookings, { path: `booking/${created.code}/invoice`, query: 'token=wrong' }))
        .status,
    ).toBe(401);
  });
});

describe('the invoice page', () => {
  const directives = (header: string | undefined) =>
    Object.fromEntries(
      (header ?? '')
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .filter((words) => words[0])
        .map(([name, ...values]) => [name, values.join(' ')]),
    );

  it('is sent with a strict Content-Security-Policy and nosniff: no script, frame, base, form or fetch', async () => {
    const { created } = await book({ customer_name: '<img src=x onerror=alert(1)>' });
    const page = await invoke(handlers.bookings, {
      path: `booking/${created.code}/invoice`,
      query: `token=${created.token}`,
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = directives(page.headers['content-security-policy']);
    expect(csp).toMatchObject({
      'default-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    // Nothing loosens default-src for scripts, and whatever style is allowed is no script.
    expect(csp['script-src']).toBeUndefined();
    expect(Object.values(csp).join(' ')).not.toMatch(/unsafe-eval|\*|data:|https?:/);
  });

  it('is not the only answer with nosniff: JSON answers, errors and 401s carry it too', async () => {
    const { created } = await book();
    const answers = [
      await invoke(handlers.bookings, {
        path: `booking/${created.code}/invoice`,
        query: `token=${created.token}`,
      }),
      await invoke(handlers.bookings, { path: `booking/${created.code}/invoice`, query: 'token=wrong' }),
      await invoke(handlers.bookings, { path: 'booking/form' }),
      await invoke(handlers.bookings, { method: 'POST', path: 'booking/create', body: 'form[x]=1' }),
      await invoke(handlers.meta, { path: 'ping' }),
      await invoke(handlers.meta, { path: 'nothing/here' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 200, 400, 200, 404]);
    for (const answer of answers) expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('the links a booking hands out', () => {
  const FORGED: Record<string, string>[] = [
    { 'x-forwarded-proto': 'javascript:alert(document.cookie)//', host: 'api.test' },
    { 'x-forwarded-proto': 'data:text/html,<script>alert(1)</script>//', host: 'x' },
    { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'attacker.example', host: 'attacker.example' },
    { host: 'attacker.example:443/phish#' },
  ];

  it.each(FORGED)('are built on the configured API URL, whatever a client forges (%o)', async (forged) => {
    const sessionId = await cart();
    const response = await create({ session_id: sessionId, ...form() }, forged);
    expect(response.status).toBe(200);
    const created = response.json.booking;
    const expected = `http://api.test/api/3.0/booking/${created.code}/invoice?token=${created.token}`;
    expect(created.invoice_url).toBe(expected);
    expect(created.customer_payment_url).toBe(expected);
    expect(response.json.request.data.url).toBe(expected);
    const invoice = await invoke(handlers.bookings, {
      path: `booking/${created.code}/invoice`,
      query: `token=${created.token}`,
      headers: forged,
    });
    expect(invoice.json.request.data.url).toBe(expected);
    const help = await invoke(handlers.meta, { path: 'help', headers: forged });
    expect(help.json.help.documentation).toBe('http://api.test/api/3.0/docs');
  });
});

describe('lists and access', () => {
  it('answers 401 without credentials on every staff route, whether or not the id exists', async () => {
    const { created } = await book();
    for (const path of [
      'booking',
      'booking/index',
      `booking/${created.code}`,
      'booking/TEST-ZZZZZZ',
      `booking/${created.code}/checkin`,
      'customer/1',
      'customer',
    ]) {
      expect((await invoke(handlers.bookings, { path })).status, path).toBe(401);
    }
  });

  it('lists under "booking/index" with filters and paging', async () => {
    const marker = `list-${Date.now()}@example.com`;
    const made: TestResponse['json'][] = [];
    for (let index = 0; index < 3; index += 1) made.push((await book({ customer_email: marker })).created);
    const byEmail = await staffCall('booking/index', { query: `customer_email=${marker}&limit=2` });
    expect(byEmail.json.request).toMatchObject({ records: 2, limit: 2, page: 1, pages: 2, total_records: 3 });
    const rows = Object.values<any>(byEmail.json['booking/index']);
    expect(rows[0]).toMatchObject({
      customer_email: marker,
      status_id: 'PEND',
      status_name: 'Pending',
      token: expect.any(String),
    });
    const second = await staffCall('booking', { query: `customer_email=${marker}&limit=2&page=2` });
    expect(second.json.request.records).toBe(1);
    await staffCall(`booking/${made[0]?.code}/update`, { method: 'POST', query: 'status_id=HOLD' });
    const held = await staffCall('booking/index', { query: 'status_id=HOLD&limit=250' });
    expect(Object.values<any>(held.json['booking/index']).map((row) => row.code)).toContain(made[0]?.code);
    expect(
      Object.keys((await staffCall('booking/index', { query: 'status_id=NOPE' })).json['booking/index']),
    ).toEqual([]);
    const recent = await staffCall('booking/index', {
      query: `created_date=>${Math.floor(Date.now() / 1000) - 3600}&limit=250`,
    });
    expect(recent.json.request.total_records).toBeGreaterThanOrEqual(3);
    const future = await staffCall('booking/index', { query: `created_date=>${addDays(day, 400)}` });
    expect(future.json.request.total_records).toBe(0);
    const onDay = await staffCall('booking/index', { query: `customer_email=${marker}&start_date=${day}` });
    expect(onDay.json.request.total_records).toBe(3);
    const before = await staffCall('booking/index', { query: `customer_email=${marker}&start_date=<${day}` });
    expect(before.json.request.total_records).toBe(0);
    const ending = await staffCall('booking/index', {
      query: `customer_email=${marker}&end_date=>${addDays(day, -1)}`,
    });
    expect(ending.json.request.total_records).toBe(3);
    const byItem = await staffCall('booking/index', { query: 'item_id=2&limit=250' });
    expect(
      Object.values<any>(byItem.json['booking/index']).every((row) => row.summary.includes('Solo')),
    ).toBe(true);
    expect((await staffCall('booking/index', { query: 'limit=251' })).status).toBe(400);
    expect((await staffCall('booking/index', { query: 'created_date=yesterdayish' })).status).toBe(400);
  });
});
