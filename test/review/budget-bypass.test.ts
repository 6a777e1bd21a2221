import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { clientUnpaidKey } from '#lib/kernel/storage/keys.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, readUsed } from '#test/support/dynamo.ts';
import { invoke, staffBasic } from '#test/support/events.ts';
import { freshAddresses } from '#test/support/fresh.ts';
import { scriptClient } from '#test/support/script-client.ts';
import { sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 4 (one address cannot own more than its share through bookings),
// with the default limits (client_hold_share 0.5, unpaid_bookings_per_client 3).
const KAYAK = 1;
const FREE_TOUR = 2;
const day = addDays(todayIn('America/Toronto', Date.now()), 40);
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let loads = 0;
const freshAddress = freshAddresses();

const load = async (kayak: { unlimited: boolean; stock: number }) => {
  loads += 1;
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST' },
        items: [
          makeItem({ item_id: KAYAK, ...kayak }),
          makeItem({
            item_id: FREE_TOUR,
            sku: 'free-tour',
            name: 'Free walking tour',
            stock: 12,
            params: { qty: { price: '0.00', counts_stock: true, def: 1 } },
          }),
        ],
      }),
    ),
    Date.now() + loads,
  );
};

const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

const clientAt = (address: string) => scriptClient(handlers, address, { customer: 'Anyone' });

beforeEach(async () => {
  db = await createTestDb('review-budget');
  handlers = createAllHandlers(testDeps(db));
  await load({ unlimited: false, stock: 10 });
});

describe('review: a corrected item lets one address book past its share', () => {
  // Failed at 73acd22: booking/create catches up a line held while the item was unlimited by holding the
  // difference "on capacity" only, with no share check, and the booking's budget records the cart's holds
  // (nothing) rather than what it took: one address books all 10 of 10 (share 5), and then holds more.
  it('books all 10 of a stock of 10 from one address through a line added while unlimited', async () => {
    await load({ unlimited: true, stock: 10 });
    const attacker = clientAt(freshAddress());
    const cart = await attacker.hold(KAYAK, `date=${day}&param[qty]=10`);
    expect(cart.status).toBe(200);
    await load({ unlimited: false, stock: 10 });
    const booked = await attacker.book(sessionOf(cart).id, 'Hoarder');
    // Contract: the address may own at most floor(10 × 0.5) = 5 of the item-date through bookings.
    expect(await usedOf(KAYAK, day)).toBeLessThanOrEqual(5);
    expect(booked.status).toBe(409);
  });

  // Failed at 73acd22: the booking counts nothing against the client (its budget is the cart's holds, 0).
  it('does not hand the address a fresh share after it booked a caught-up line', async () => {
    await load({ unlimited: true, stock: 10 });
    const attacker = clientAt(freshAddress());
    const cart = await attacker.hold(KAYAK, `date=${day}&param[qty]=5`);
    await load({ unlimited: false, stock: 10 });
    expect((await attacker.book(sessionOf(cart).id, 'First')).status).toBe(200);
    expect(await usedOf(KAYAK, day)).toBe(5);
    // Reconcile agrees with the wrong record (the budget it proves is the cart's, 0): it sees nothing.
    const run = await runReconcile(db, { fix: false, now: Date.now() });
    // At 73acd22: {"discrepancies":[],"clientDiscrepancies":[],"holderDiscrepancies":[]}.
    expect(run.discrepancies).toEqual([]);
    const more = await attacker.hold(KAYAK, `date=${day}&param[qty]=5`);
    // Contract: the unpaid booking's 5 units count against the address's share of 5: hold_limit.
    expect(more.status).toBe(409);
    expect(more.json.request.error?.id).toBe('hold_limit');
  });

  // Resisted (passes): growing the stale line checks the share.
  it('growing a line added while unlimited past the share is refused', async () => {
    await load({ unlimited: true, stock: 10 });
    const attacker = clientAt(freshAddress());
    const cart = await attacker.hold(KAYAK, `date=${day}&param[qty]=1`);
    await load({ unlimited: false, stock: 10 });
    const grown = await attacker.alter(sessionOf(cart).id, '1', '10');
    expect(grown.status).toBe(409);
    expect(await usedOf(KAYAK, day)).toBeLessThanOrEqual(5);
  });
});

describe('review: bookings that owe nothing hand the budget back', () => {
  // Failed at 73acd22 (if free seats are bookable by default): a booking with total 0 gets no `budget`
  // (booking-create: `totals.total - paid > 0`), so the address's share comes back at once and one
  // address books out a free 12-seat tour in 4 writes: the hoarding of issue 27 item 4, on free events.
  it('one address cannot book out a free 12-seat tour by booking its share twice', async () => {
    const attacker = clientAt(freshAddress());
    const first = await attacker.hold(FREE_TOUR, `date=${day}&param[qty]=6`);
    expect(first.status).toBe(200);
    const firstBooking = await attacker.book(sessionOf(first).id, 'One');
    expect(firstBooking.status).toBe(200);
    const second = await attacker.hold(FREE_TOUR, `date=${day}&param[qty]=6`);
    if (second.status === 200) await attacker.book(sessionOf(second).id, 'Two');
    expect(await usedOf(FREE_TOUR, day)).toBeLessThanOrEqual(6);
    expect(second.status).toBe(409);
  });
});

describe('review: the unpaid count under a race of status changes', () => {
  // Expected to pass (resisted): parallel staff changes of one unpaid booking give its count back once.
  it('never goes negative nor leaves a mismatch', async () => {
    const staff = await staffBasic(db, { now: 0 });
    const address = freshAddress();
    const attacker = clientAt(address);
    const cart = await attacker.hold(KAYAK, `date=${day}&param[qty]=2`);
    const booked = await attacker.book(sessionOf(cart).id, 'Race');
    expect(booked.status).toBe(200);
    const code = booked.json.booking.id;
    const results = await Promise.all(
      ['HOLD', 'VOID', 'CANCELLED', 'PAID', 'HOLD', 'VOID'].map((status) =>
        invoke(handlers.bookings, {
          method: 'POST',
          path: `booking/${code}/update`,
          query: `status_id=${status}`,
          headers: { authorization: staff },
        }),
      ),
    );
    for (const result of results) expect(result.status).toBeLessThan(500);
    const { Item } = await db.documents.send(
      new GetCommand({ TableName: db.tableName, Key: clientUnpaidKey(address), ConsistentRead: true }),
    );
    expect(Number(Item?.unpaid ?? 0)).toBe(0);
    const run = await runReconcile(db, { fix: false, now: Date.now() });
    expect(run.discrepancies).toEqual([]);
    expect(run.holderDiscrepancies).toEqual([]);
  });
});
