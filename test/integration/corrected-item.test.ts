import { beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, readUsed } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// The attack: a cart line added while its item was `unlimited` took nothing per unit, and kept taking
// nothing after the operator loaded the item with a finite stock: `alter` grew it to 99 and
// `booking/create` booked 101 units of a stock of 2, and `reconcile` saw nothing.
const KAYAK = 1;
const day = addDays(todayIn('America/Toronto', Date.now()), 30);
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
let loads = 0;

/** Loads the tenant with the kayak unlimited, or with a finite stock (a later load: a new stamp). */
const load = async (kayak: { unlimited: boolean; stock: number }) => {
  loads += 1;
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', limits: { client_hold_share: 1 } },
        items: [makeItem({ item_id: KAYAK, ...kayak })],
      }),
    ),
    Date.now() + loads,
  );
};

const usedOf = (slot: string): Promise<number> => readUsed(db, KAYAK, slot);

const book = (sessionId: string, email = 'guest@example.com') =>
  invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: `session_id=${sessionId}&form[customer_name]=Guest&form[customer_email]=${email}`,
    contentType: 'application/x-www-form-urlencoded',
  });

/** A cart holding one kayak, added while the kayak was unlimited. */
const cartWhileUnlimited = async (): Promise<string> => {
  await load({ unlimited: true, stock: 2 });
  const added = await client.add([await client.slip(KAYAK, `date=${day}&param[qty]=1`)]);
  expect(added.status).toBe(200);
  return sessionOf(added).id;
};

beforeEach(async () => {
  db = await createTestDb('corrected-item');
  handlers = createAllHandlers(testDeps(db));
  client = sessionClient(handlers);
});

describe('a cart line held while its item was unlimited, after the item is given a stock of 2', () => {
  it('cannot grow past the stock: growing holds what the item takes now, on its capacity', async () => {
    const sessionId = await cartWhileUnlimited();
    await load({ unlimited: false, stock: 2 });

    const grown = await client.alter(sessionId, { '1': '99' });
    expect(grown.status).toBe(409);
    expect(grown.json.request.error).toMatchObject({
      id: 'unavailable',
      data: { line: '1', item_id: KAYAK },
    });
    expect(await usedOf(day)).toBe(0);

    const two = await client.alter(sessionId, { '1': '2' });
    expect(two.status).toBe(200);
    expect(await usedOf(day)).toBe(2);
    const run = await runReconcile(db, { fix: false, now: Date.now() });
    expect(run.discrepancies).toEqual([]);
    expect(run.holderDiscrepancies).toEqual([]);
  });

  it('is booked only by holding what the item takes now, and refused when that is gone', async () => {
    const first = await cartWhileUnlimited();
    const second = await client.add([await client.slip(KAYAK, `date=${day}&param[qty]=1`)]);
    const secondId = sessionOf(second).id;
    // The second cart grows while the item is still unlimited: 99 of it, taking nothing.
    expect((await client.alter(secondId, { '1': '99' })).status).toBe(200);
    await load({ unlimited: false, stock: 2 });

    const booked = await book(first);
    expect(booked.status).toBe(200);
    expect(await usedOf(day)).toBe(1);

    const refused = await book(secondId, 'other@example.com');
    expect(refused.status).toBe(409);
    expect(refused.json.request.error).toMatchObject({
      id: 'unavailable',
      data: { line: '1', item_id: KAYAK },
    });
    expect(await usedOf(day)).toBe(1);
    expect((await client.read(secondId)).json.booking.session.item['1'].qty).toBe(99);

    const run = await runReconcile(db, { fix: false, now: Date.now() });
    expect(run.discrepancies).toEqual([]);
    // The booking holds its unit now; the 99 still in the second cart take nothing of the counter.
    expect(run.holderDiscrepancies).toEqual([
      expect.objectContaining({ kind: 'takes_more', holder: 'session', id: secondId, holds: 0, takes: 99 }),
    ]);
  });

  it('is seen by reconcile when it was booked before the correction', async () => {
    const sessionId = await cartWhileUnlimited();
    const booked = await book(sessionId);
    expect(booked.status).toBe(200);
    await load({ unlimited: false, stock: 2 });

    const run = await runReconcile(db, { fix: false, now: Date.now() });
    expect(run.discrepancies).toEqual([]);
    expect(run.holderDiscrepancies).toEqual([
      {
        kind: 'takes_more',
        holder: 'booking',
        id: booked.json.booking.code,
        line: '1',
        counterId: `${KAYAK}|${day}`,
        holds: 0,
        takes: 1,
      },
    ]);
  });
});

// Issue 41: the session function keeps its configuration (15 s) and the catalogue of that configuration's
// load, so right after the correction a warm function still saw the kayak unlimited: `alter` grew a line
// to 99 (200, the line showing 99) holding nothing. A change that takes stock now reads its items.
describe('a session function that kept the configuration and catalogue of before the correction', () => {
  /** Handlers that keep the configuration for a minute, warmed by a cart added while the kayak was unlimited. */
  const warmCart = async () => {
    const warm = createAllHandlers({ ...testDeps(db), configTtlMs: 60_000 });
    const warmClient = sessionClient(warm);
    const sessionId = sessionOf(
      await warmClient.add([await warmClient.slip(KAYAK, `date=${day}&param[qty]=1`)]),
    ).id;
    return { warmClient, sessionId };
  };

  it('does not grow a line to 99 of a stock of 2: the alter takes the stock or is refused', async () => {
    await load({ unlimited: true, stock: 2 });
    const { warmClient, sessionId } = await warmCart();
    await load({ unlimited: false, stock: 2 });

    const grown = await warmClient.alter(sessionId, { '1': '99' });
    expect(grown.status).toBe(409);
    expect(grown.json.request.error).toMatchObject({
      id: 'unavailable',
      data: { line: '1', item_id: KAYAK },
    });
    expect(await usedOf(day)).toBe(0);

    const two = await warmClient.alter(sessionId, { '1': '2' });
    expect(two.status).toBe(200);
    expect(sessionOf(two).item['1'].qty).toBe(2);
    expect(await usedOf(day)).toBe(2);
    const run = await runReconcile(db, { fix: false, now: Date.now() });
    expect(run.discrepancies).toEqual([]);
    expect(run.holderDiscrepancies).toEqual([]);
  });

  it('holds a new line on the stock the item has now', async () => {
    await load({ unlimited: true, stock: 2 });
    const { warmClient, sessionId } = await warmCart();
    await load({ unlimited: false, stock: 2 });

    const three = await warmClient.add([await warmClient.slip(KAYAK, `date=${day}&param[qty]=3`)], sessionId);
    expect(three.status).toBe(409);
    expect(three.json.request.error).toMatchObject({ id: 'unavailable', data: { item_id: KAYAK } });
    const one = await warmClient.add([await warmClient.slip(KAYAK, `date=${day}&param[qty]=2`)]);
    expect(one.status).toBe(200);
    expect(await usedOf(day)).toBe(2);
  });

  it('holds on a stock lowered by the load at once, not once the configuration is read again', async () => {
    await load({ unlimited: false, stock: 10 });
    const { warmClient } = await warmCart();
    await load({ unlimited: false, stock: 2 });

    const five = await warmClient.add([await warmClient.slip(KAYAK, `date=${day}&param[qty]=5`)]);
    expect(five.status).toBe(409);
    expect(await usedOf(day)).toBe(1);
  });
});
