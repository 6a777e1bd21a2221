import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from '#test/support/dynamo.ts';
import { invoke, staffBasic, type TestResponse } from '#test/support/events.ts';
import { freshAddresses } from '#test/support/fresh.ts';
import { scriptClient } from '#test/support/script-client.ts';
import { expectInvariant, sessionOf } from '#test/support/session.ts';
import { makeAccount, makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// The attack: one address holds its share of an item-date, books it with any name and email (an unpaid
// booking stays in the first status for ever, and booking handed the client's budget back), and repeats:
// two unpaid bookings sold out a 12-seat tour in 8 requests.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
let now = Date.now();
const clock = () => now;
const start = addDays(todayIn('America/Toronto', Date.now()), 30);
// Moved on by the test that holds 48 item-dates, so later tests keep off them.
let nextDay = 0;
const freshDay = () => {
  nextDay += 1;
  return addDays(start, nextDay);
};
const freshAddress = freshAddresses();

const TOUR = 1; // 12 seats: a client may hold 6
const KAYAK = 2; // 100: a client may hold 50

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'unpaid',
    makeTenantJson({
      settings: { booking_code_prefix: 'TEST', void_unpaid_after_hours: 48 },
      items: [
        makeItem({ item_id: TOUR, sku: 'tour', name: 'Tour', stock: 12 }),
        makeItem({ item_id: KAYAK, sku: 'kayak', name: 'Kayak', stock: 100 }),
      ],
      accounts: [makeAccount('ada'), makeAccount('agent')],
    }),
    { clock },
  ));
  staff = await staffBasic(db, { now: 0 });
});

afterEach(async () => {
  await expectInvariant(db, now);
});

const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

/** A script at one address: rate, hold and book in three requests. */
const clientAt = (address: string, headers: Record<string, string> = {}) =>
  scriptClient(handlers, address, { headers, customer: 'Anyone' });

const expectHoldLimit = (response: TestResponse) => {
  expect(response.status).toBe(409);
  expect(response.json.request.error.id).toBe('hold_limit');
};

const staffUpdate = (code: string, query: string) =>
  invoke(handlers.bookings, {
    method: 'POST',
    path: `booking/${code}/update`,
    query,
    headers: { authorization: staff },
  });

describe('an unpaid booking keeps counting against the client that made it', () => {
  it('so one address cannot sell out a 12-seat tour by booking its share twice', async () => {
    const day = freshDay();
    const script = clientAt(freshAddress());
    const first = await script.hold(TOUR, `date=${day}&param[qty]=6`);
    expect(first.status).toBe(200);
    expect((await script.book(sessionOf(first).id, 'First')).status).toBe(200);
    // Before: the budget came back with the booking, and six more seats were held and booked.
    expectHoldLimit(await script.hold(TOUR, `date=${day}&param[qty]=6`));
    expectHoldLimit(await script.hold(TOUR, `date=${day}&param[qty]=1`));
    expect(await usedOf(TOUR, day)).toBe(6);
    // Another guest still finds the other six.
    const guest = clientAt(freshAddress());
    expect((await guest.hold(TOUR, `date=${day}&param[qty]=6`)).status).toBe(200);
  });

  it('until staff confirm it, take payment for it or void it', async () => {
    for (const query of ['status_id=HOLD', 'status_id=PAID&set_paid=1', 'status_id=VOID']) {
      const day = freshDay();
      const script = clientAt(freshAddress());
      const held = await script.hold(TOUR, `date=${day}&param[qty]=6`);
      const booked = await script.book(sessionOf(held).id);
      expectHoldLimit(await script.hold(TOUR, `date=${day}&param[qty]=1`));
      expect((await staffUpdate(booked.json.booking.id, query)).status).toBe(200);
      expect((await script.hold(TOUR, `date=${day}&param[qty]=1`)).status, query).toBe(200);
    }
  });

  it('and a client has at most three unpaid bookings at once', async () => {
    const script = clientAt(freshAddress());
    const codes: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const held = await script.hold(KAYAK, `date=${freshDay()}`);
      const booked = await script.book(sessionOf(held).id, `Guest${index}`);
      expect(booked.status).toBe(200);
      codes.push(booked.json.booking.id);
    }
    const day = freshDay();
    const fourth = await script.hold(KAYAK, `date=${day}`);
    const refused = await script.book(sessionOf(fourth).id, 'Fourth');
    expectHoldLimit(refused);
    expect(refused.json.request.error.data).toEqual({ unpaid_bookings: 3 });
    // Nothing was booked: the cart still holds its kayak, and paying one booking lets the fourth through.
    expect(await usedOf(KAYAK, day)).toBe(1);
    expect((await staffUpdate(codes[0] as string, 'status_id=PAID&set_paid=1')).status).toBe(200);
    expect((await script.book(sessionOf(fourth).id, 'Fourth')).status).toBe(200);
  });

  it('but staff and partners booking for guests are not counted', async () => {
    const day = freshDay();
    const desk = clientAt(freshAddress(), { authorization: staff });
    for (let index = 0; index < 4; index += 1) {
      const held = await desk.hold(KAYAK, `date=${day}&param[qty]=10`);
      expect((await desk.book(sessionOf(held).id, `Walkin${index}`)).status).toBe(200);
    }
    expect(await usedOf(KAYAK, day)).toBe(40);
  });
});

describe('a budget too large to give back in the same transaction as the change', () => {
  // 47: the longest run of days a cart lets go of in one transaction with its three stay zones.
  it('is given back first, and the change follows: 47 item-dates voided, nothing left counted', async () => {
    const first = freshDay();
    nextDay += 47;
    const address = freshAddress();
    const script = clientAt(address);
    const held = await script.hold(KAYAK, `start_date=${first}&end_date=${addDays(first, 46)}&param[qty]=2`);
    expect(held.status).toBe(200);
    const booked = await script.book(sessionOf(held).id);
    expect(booked.status).toBe(200);
    expect((await staffUpdate(booked.json.booking.id, 'status_id=VOID')).status).toBe(200);
    expect(await usedOf(KAYAK, addDays(first, 46))).toBe(0);
    // The afterEach reconcile proves the client's records and unpaid count went back with it.
    expect((await script.hold(KAYAK, `date=${first}&param[qty]=50`)).status).toBe(200);
  });
});

describe('settings.void_unpaid_after_hours', () => {
  it('voids a customer booking still unpaid after that long, releasing its stock and its client, with an event', async () => {
    const day = freshDay();
    const address = freshAddress();
    const script = clientAt(address);
    const held = await script.hold(TOUR, `date=${day}&param[qty]=6`);
    const booked = await script.book(sessionOf(held).id);
    const paid = await script.book(
      sessionOf(await clientAt(freshAddress()).hold(TOUR, `date=${day}&param[qty]=2`)).id,
    );
    expect((await staffUpdate(paid.json.booking.id, 'status_id=PAID&set_paid=1')).status).toBe(200);

    now += 47 * 3_600_000;
    expect((await createSweeper({ db, clock })()).voidedUnpaid).toBe(0);
    now += 2 * 3_600_000;
    expect((await createSweeper({ db, clock })()).voidedUnpaid).toBeGreaterThanOrEqual(1);

    const record = await invoke(handlers.bookings, {
      path: `booking/${booked.json.booking.id}`,
      query: 'events=1',
      headers: { authorization: staff },
    });
    expect(record.json.booking.status_id).toBe('VOID');
    expect(record.json.booking.events.at(-1)).toMatchObject({
      type: 'booking.status_changed',
      data: { from: 'PEND', to: 'VOID', reason: 'unpaid' },
    });
    const other = await invoke(handlers.bookings, {
      path: `booking/${paid.json.booking.id}`,
      headers: { authorization: staff },
    });
    expect(other.json.booking.status_id).toBe('PAID');
    expect(await usedOf(TOUR, day)).toBe(2);
    expect((await script.hold(TOUR, `date=${day}&param[qty]=6`)).status).toBe(200);
  });
});
