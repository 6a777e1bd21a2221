import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getBookingRecord } from '#lib/bookings/repository.ts';
import { getConfig, listItems } from '#lib/config/repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { dateInWords } from '#lib/kernel/guest-words.ts';
import { formBody, invoke, staffBasic } from '#test/support/events.ts';
import { expectInvariant, sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant, type TenantTable } from '#test/support/tenant-table.ts';

// A cancellation policy machines can read (issue 44, item 1): booking/form shows it, with and without a cart;
// a create keeps the policies in force with the booking; a later tenant file changes new bookings only.

const ZONE = 'America/Toronto';
const TENANT_POLICY = {
  refunds: [
    { before: { hours: 48 }, percent: 50 },
    { before: { days: 14 }, percent: 100 },
  ],
  fee: 2_500,
  deposit_refundable: false,
  cutoff: { hours: 24 },
  staff_override: true,
};
const BOARD_POLICY = { refunds: [{ before: { hours: 2 }, percent: 100 }] };
const BODY = 'Be kind to the boats.';

const tenantJson = (overrides: { policy?: Record<string, unknown>; board?: Record<string, unknown> } = {}) =>
  makeTenantJson({
    policy: { body: BODY, cancellation: overrides.policy ?? TENANT_POLICY },
    items: [
      makeItem({ item_id: 1, stock: 50 }),
      makeItem({
        item_id: 2,
        sku: 'board',
        name: 'Paddleboard',
        stock: 50,
        ...(overrides.board ?? { cancellation: BOARD_POLICY }),
      }),
    ],
  });

const day = addDays(todayIn(ZONE, Date.now()), 30);
const dated = (ymd: string) => dateInWords(ymd, { locale: 'en-CA', today: todayIn(ZONE, Date.now()) });
const RELATIVE =
  'Full refund up to 14 days before the start; 50% back up to 48 hours before; no refund after that. ' +
  'A fee of $25.00 is kept from any refund. Changes and cancellations close 24 hours before the start.';
const datedTenantTerms = () =>
  `full refund before ${dated(addDays(day, -14))}; 50% back before ${dated(addDays(day, -2))}; no refund after that`;
const datedBoardTerms = () =>
  `full refund before 10:00 p.m. on ${dated(addDays(day, -1))}; no refund after that`;
const CART_TAIL = `A fee of $25.00 is kept from any refund. Changes and cancellations are possible only before `;

let world: TenantTable;
let staff: string;
let client: ReturnType<typeof sessionClient>;

beforeAll(async () => {
  world = await loadTenant('cancel', tenantJson());
  staff = await staffBasic(world.db);
  client = sessionClient(world.handlers);
});

afterEach(async () => {
  await expectInvariant(world.db);
});

const form = (options: { query?: string; cookies?: string[]; handlers?: TenantTable['handlers'] } = {}) =>
  invoke((options.handlers ?? world.handlers).bookings, {
    path: 'booking/form',
    ...(options.query ? { query: options.query } : {}),
    ...(options.cookies ? { cookies: options.cookies } : {}),
  });

/** A cart of a kayak (line 1) and, unless told otherwise, a paddleboard (line 2) on `day`. */
const cartOf = async (itemIds = [1, 2]): Promise<string> => {
  const slips = [];
  for (const itemId of itemIds) slips.push(await client.slip(itemId, `date=${day}&param[qty]=1`));
  return sessionOf(await client.add(slips)).id as string;
};

const book = async (sessionId: string) => {
  const created = await invoke(world.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      session_id: sessionId,
      'form[customer_name]': 'Ada',
      'form[customer_email]': 'ada@example.com',
    }),
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  return created.json.booking as { code: string; booking_id: number };
};

const staffRecord = async (code: string) =>
  (await invoke(world.handlers.bookings, { path: `booking/${code}`, headers: { authorization: staff } })).json
    .booking;

describe('booking/form', () => {
  it("shows the tenant's policy without a cart: its fields, and its words as lengths before the start, ending the body", async () => {
    const { json } = await form();
    expect(json.booking_policy.cancellation).toEqual({
      text: RELATIVE,
      refunds: [
        { before: { days: 14 }, percent: 100 },
        { before: { hours: 48 }, percent: 50 },
      ],
      fee: '25.00',
      deposit_refundable: false,
      cutoff: { hours: 24 },
    });
    expect(json.booking_policy.body).toBe(`${BODY}\n\n${RELATIVE}`);
    expect(Object.keys(json.booking_policy.fields)).toEqual(['customer_tos_agree']);
    expect(json.booking_form_ui.booking_policy).toEqual(json.booking_policy);
  });

  it("words the cart's own policies at its dates, per item, given its session as a parameter or a cookie", async () => {
    const sessionId = await cartOf();
    const text =
      `Kayak: ${datedTenantTerms()}. Paddleboard: ${datedBoardTerms()}. ` +
      `${CART_TAIL}${dated(addDays(day, -1))}.`;
    for (const response of [
      await form({ query: `session_id=${sessionId}` }),
      await form({ cookies: [`session_id=${sessionId}`] }),
    ]) {
      const { cancellation } = response.json.booking_policy;
      expect(cancellation.text).toBe(text);
      expect(cancellation.refunds).toBeUndefined();
      expect(cancellation.policies).toEqual([
        {
          lines: ['1'],
          refunds: [
            { before: { days: 14 }, percent: 100 },
            { before: { hours: 48 }, percent: 50 },
          ],
          fee: '25.00',
          deposit_refundable: false,
          cutoff: { hours: 24 },
        },
        {
          lines: ['2'],
          refunds: [{ before: { hours: 2 }, percent: 100 }],
          fee: '0.00',
          deposit_refundable: true,
        },
      ]);
      expect(response.json.booking_policy.body).toBe(`${BODY}\n\n${text}`);
    }
    const kayakOnly = (await form({ query: `session_id=${await cartOf([1])}` })).json.booking_policy
      .cancellation;
    expect(kayakOnly.text).toBe(
      `${datedTenantTerms().replace('full', 'Full')}. ${CART_TAIL}${dated(addDays(day, -1))}.`,
    );
    expect(kayakOnly).toMatchObject({ fee: '25.00', policies: [{ lines: ['1'] }] });
  });

  it("falls back to the tenant's words for a session that is no cart, and refuses a session_id that is not one value", async () => {
    const ended = await cartOf([1]);
    await client.end(ended);
    for (const sessionId of [ended, 'AAAAAAAAAAAAAAAAAAAAAAAA', 'not-a-session']) {
      const { status, json } = await form({ query: `session_id=${sessionId}` });
      expect(status).toBe(200);
      expect(json.booking_policy.cancellation.text).toBe(RELATIVE);
    }
    const twice = await form({ query: 'session_id=a&session_id=b' });
    expect(twice.status).toBe(400);
    expect(twice.json.request.error).toMatchObject({
      id: 'validation_error',
      data: { session_id: 'one session id' },
    });
  });
});

describe('a booking keeps the policies it was sold under', () => {
  let code: string;
  let bookingId: number;

  it('stores the distinct policies with the lines each covers at create, and shows them to staff at its dates', async () => {
    ({ code, booking_id: bookingId } = await book(await cartOf()));
    const stored = (await getBookingRecord(world.db, bookingId))?.booking;
    expect(stored?.cancellation_policy).toEqual({
      policies: [
        {
          policy: { ...TENANT_POLICY, refunds: [...TENANT_POLICY.refunds].reverse() },
          lines: ['1'],
        },
        {
          policy: { ...BOARD_POLICY, fee: 0, deposit_refundable: true, staff_override: false },
          lines: ['2'],
        },
      ],
    });
    const record = await staffRecord(code);
    expect(record.cancellation_policy).toMatchObject({
      text: `Kayak: ${datedTenantTerms()}. Paddleboard: ${datedBoardTerms()}. ${CART_TAIL}${dated(addDays(day, -1))}.`,
      policies: [
        { lines: ['1'], staff_override: true, fee: '25.00' },
        { lines: ['2'], staff_override: false, fee: '0.00' },
      ],
    });
  });

  it("keeps a booking's policies when the tenant file changes them, while the form and new bookings take the new ones", async () => {
    const before = await staffRecord(code);
    const lenient = { refunds: [{ before: { days: 1 }, percent: 100 }] };
    await writeTenant(world.db, makeTenant(tenantJson({ policy: lenient, board: {} })), Date.now());
    expect(await staffRecord(code)).toEqual({ ...before, last_modified: before.last_modified });
    expect((await getBookingRecord(world.db, bookingId))?.booking.cancellation_policy?.policies).toHaveLength(
      2,
    );
    // The paddleboard no longer has its own: both lines are the tenant's new policy.
    expect((await form()).json.booking_policy.cancellation.text).toBe(
      'Free cancellation up to 1 day before the start; no refund after that.',
    );
    const next = await book(await cartOf());
    expect((await getBookingRecord(world.db, next.booking_id))?.booking.cancellation_policy).toEqual({
      policies: [
        {
          policy: { ...lenient, fee: 0, deposit_refundable: true, staff_override: false },
          lines: ['1', '2'],
        },
      ],
    });
    // The item's own policy is gone from its record and from the configuration's list, not left behind.
    expect((await listItems(world.db)).find((item) => item.item_id === 2)?.cancellation).toBeUndefined();
    expect((await getConfig(world.db))?.items_with_cancellation).toEqual([]);
  });
});

describe('a tenant without a cancellation policy', () => {
  it('shows the form as before and keeps no policy with its bookings', async () => {
    const bare = await loadTenant('cancel-bare', makeTenantJson({ policy: { body: BODY } }));
    const { json } = await form({ handlers: bare.handlers });
    expect(json.booking_policy).toEqual({
      body: BODY,
      fields: { customer_tos_agree: expect.any(Object) },
    });
    const bareClient = sessionClient(bare.handlers);
    const sessionId = sessionOf(
      await bareClient.add([await bareClient.slip(1, `date=${day}&param[qty]=1`)]),
    ).id;
    const created = await invoke(bare.handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: formBody({
        session_id: sessionId,
        'form[customer_name]': 'Ada',
        'form[customer_email]': 'ada@example.com',
      }),
      contentType: 'application/x-www-form-urlencoded',
    });
    const stored = (await getBookingRecord(bare.db, created.json.booking.booking_id))?.booking;
    expect(stored).toBeDefined();
    expect(stored?.cancellation_policy).toBeUndefined();
    const record = await invoke(bare.handlers.bookings, {
      path: `booking/${created.json.booking.code}`,
      headers: { authorization: await staffBasic(bare.db) },
    });
    expect(record.json.booking.cancellation_policy).toBeUndefined();
    await expectInvariant(bare.db);
  });

  it('says the deposit stays only when the tenant takes a deposit', async () => {
    const deposit = await loadTenant(
      'cancel-deposit',
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', payment: { take: 'deposit', deposit: { percent: 30 } } },
        policy: { cancellation: TENANT_POLICY },
      }),
    );
    expect((await form({ handlers: deposit.handlers })).json.booking_policy.cancellation.text).toBe(
      RELATIVE.replace('refund. Changes', 'refund. The deposit is not refunded. Changes'),
    );
  });
});
