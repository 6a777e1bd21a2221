import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { NOTHING_FOR_NOTHING } from '#lib/catalog/rate-item.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, readUsed } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { expectInvariant, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Attack: a cabin priced per guest, rated for no guests, was AVAILABLE at 0.00 with a SLIP; adding and
// booking it held the cabin for nothing, night after night.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
const CABIN = 1;
const TOUR = 2;
const start = addDays(todayIn('America/Toronto', Date.now()), 40);
let nextDay = 0;
const freshStay = () => {
  nextDay += 3;
  return { start: addDays(start, nextDay), end: addDays(start, nextDay + 2) };
};

const loadTenant = (allowFree: boolean | undefined) =>
  writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: {
          booking_code_prefix: 'TEST',
          ...(allowFree === undefined ? {} : { allow_free_bookings: allowFree }),
        },
        params: { adults: { lbl: 'Adults' }, children: { lbl: 'Children' } },
        items: [
          makeItem({
            item_id: CABIN,
            sku: 'cabin',
            name: 'Cabin',
            unit: 'N',
            stock: 3,
            params: { adults: { price: '60.00', def: 2 }, children: { price: '25.00', def: 0 } },
          }),
          makeItem({
            item_id: TOUR,
            sku: 'tour',
            name: 'Free tour',
            stock: 10,
            params: { adults: { price: '0.00', counts_stock: true, def: 1 } },
          }),
        ],
      }),
    ),
    Date.now(),
  );

beforeAll(async () => {
  db = await createTestDb('free');
  await loadTenant(undefined);
  handlers = createAllHandlers(testDeps(db));
});

afterEach(async () => {
  await expectInvariant(db);
});

const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

const rated = (itemId: number, query: string) => invoke(handlers.items, { path: `item/${itemId}`, query });
const nobody = (stay: { start: string; end: string }) =>
  `start_date=${stay.start}&end_date=${stay.end}&param[adults]=0&param[children]=0`;
const post = (group: 'session' | 'bookings', path: string, body: string) =>
  invoke(handlers[group], { method: 'POST', path, body, contentType: 'application/x-www-form-urlencoded' });
const customer = 'form[customer_name]=Ada&form[customer_email]=ada@example.com';

describe('a booking of nobody at no charge', () => {
  it('is rated RULE without a SLIP by default (settings.allow_free_bookings is false)', async () => {
    const response = await rated(CABIN, nobody(freshStay()));
    expect(response.status).toBe(200);
    expect(response.json.item.rate).toMatchObject({ status: 'RULE' });
    expect(response.json.item.rate.slip).toBeUndefined();
    expect(JSON.stringify(response.json.item.rate.error)).toContain('nobody at no charge');
  });

  it('refuses a SLIP issued while the tenant allowed it, on add (409) and on create (409), holding nothing', async () => {
    await loadTenant(true);
    const stay = freshStay();
    const issued = await rated(CABIN, nobody(stay));
    expect(issued.json.item.rate).toMatchObject({ status: 'AVAILABLE', sub_total: '0.00' });
    const slip = issued.json.item.rate.slip as string;
    await loadTenant(false);

    const added = await post('session', 'booking/session', `slip[]=${slip}`);
    expect(added.status).toBe(409);
    expect(added.json.request.error).toMatchObject({ id: 'unavailable' });
    expect(added.json.request.error.data.reason).toContain(NOTHING_FOR_NOTHING);
    const created = await post('bookings', 'booking/create', `slip[]=${slip}&${customer}`);
    expect(created.status).toBe(409);
    expect(created.json.request.error).toMatchObject({ id: 'unavailable' });
    expect(await usedOf(CABIN, stay.start)).toBe(0);
  });

  it('books seats of a free tour and a guest at a price, whatever the setting', async () => {
    const stay = freshStay();
    const tour = await rated(TOUR, `date=${stay.start}&param[adults]=2`);
    expect(tour.json.item.rate).toMatchObject({ status: 'AVAILABLE', sub_total: '0.00' });
    const booked = await post('bookings', 'booking/create', `slip[]=${tour.json.item.rate.slip}&${customer}`);
    expect(booked.status).toBe(200);
    expect(booked.json.booking.total).toBe('0.00');
    expect(await usedOf(TOUR, stay.start)).toBe(2);
    const guest = await rated(CABIN, `start_date=${stay.start}&end_date=${stay.end}&param[adults]=1`);
    expect(guest.json.item.rate).toMatchObject({ status: 'AVAILABLE', sub_total: '120.00' });
  });

  it('refuses on create a cart line added while the tenant allowed it, keeping the cart and its hold', async () => {
    await loadTenant(true);
    const stay = freshStay();
    const issued = await rated(CABIN, nobody(stay));
    const added = await post('session', 'booking/session', `slip[]=${issued.json.item.rate.slip}`);
    expect(added.status).toBe(200);
    const session = sessionOf(added).id as string;
    await loadTenant(false);

    const refused = await post('bookings', 'booking/create', `session_id=${session}&${customer}`);
    expect(refused.status).toBe(409);
    expect(refused.json.request.status).toBe('ERROR');
    expect(refused.json.request.error).toMatchObject({
      id: 'unavailable',
      data: { line: '1', item_id: CABIN },
    });
    expect(refused.json.request.error.data.reason).toContain(NOTHING_FOR_NOTHING);
    expect(refused.json.booking).toBeUndefined();
    const kept = await invoke(handlers.session, { path: 'booking/session', query: `session_id=${session}` });
    expect(kept.status).toBe(200);
    expect(Object.keys(sessionOf(kept).item)).toEqual(['1']);
    expect(await usedOf(CABIN, stay.start)).toBe(1);

    // Turned on again, the very same cart books: the refusal changed nothing.
    await loadTenant(true);
    const booked = await post('bookings', 'booking/create', `session_id=${session}&${customer}`);
    expect(booked.status).toBe(200);
    expect(await usedOf(CABIN, stay.start)).toBe(1);
    await loadTenant(false);
  });

  it('is booked when the tenant allows free bookings', async () => {
    await loadTenant(true);
    const stay = freshStay();
    const issued = await rated(CABIN, nobody(stay));
    const added = await post('session', 'booking/session', `slip[]=${issued.json.item.rate.slip}`);
    expect(added.status).toBe(200);
    const booked = await post('bookings', 'booking/create', `session_id=${sessionOf(added).id}&${customer}`);
    expect(booked.status).toBe(200);
    expect(booked.json.booking.total).toBe('0.00');
    expect(await usedOf(CABIN, stay.start)).toBe(1);
    await loadTenant(false);
  });
});
