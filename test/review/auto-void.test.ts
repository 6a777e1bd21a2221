import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke, staffBasic } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 4's auto-void (settings.void_unpaid_after_hours): what it voids
// besides a stranger's unpaid hold.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
let now = Date.now();
const clock = () => now;
const day = addDays(todayIn('America/Toronto', Date.now()), 60);
let nextAddress = 0;
const freshAddress = () => `203.0.113.${++nextAddress}`;

beforeAll(async () => {
  db = await createTestDb('review-void');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', void_unpaid_after_hours: 1 },
        items: [makeItem({ item_id: 1, stock: 100 })],
        giftcerts: [{ code: 'GIFT-HALF', amount: '20.00' }],
      }),
    ),
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db, { clock }));
  staff = await staffBasic(db, { now: 0 });
});

const customerBooking = async (extra = '') => {
  const address = freshAddress();
  const rated = await invoke(handlers.items, {
    path: 'item/1',
    query: `date=${day}&param[qty]=1`,
    sourceIp: address,
  });
  const held = await invoke(handlers.session, {
    method: 'POST',
    path: 'booking/session',
    body: `slip[]=${encodeURIComponent(rated.json.item.rate.slip)}`,
    contentType: 'application/x-www-form-urlencoded',
    sourceIp: address,
  });
  const booked = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: `session_id=${sessionOf(held).id}&form[customer_name]=G&form[customer_email]=g${nextAddress}@example.com${extra}`,
    contentType: 'application/x-www-form-urlencoded',
    sourceIp: address,
  });
  expect(booked.status).toBe(200);
  return booked.json.booking.id as string;
};

const statusOf = async (code: string) =>
  (await invoke(handlers.bookings, { path: `booking/${code}`, headers: { authorization: staff } })).json
    .booking.status_id;

describe('review: the auto-void of unpaid bookings', () => {
  // Failed at 73acd22: a guest staff checked in (they are on the water) is voided an hour later and their
  // stock is sold again: check-in is staff confirming the booking, yet it leaves the `budget` in place.
  it('never voids a booking staff checked in', async () => {
    const code = await customerBooking();
    const checkin = await invoke(handlers.bookings, {
      method: 'POST',
      path: `booking/${code}/checkin`,
      headers: { authorization: staff },
    });
    expect(checkin.status).toBe(200);
    now += 2 * 3_600_000;
    await createSweeper({ db, clock })();
    expect(await statusOf(code)).not.toBe('VOID');
  });

  // Failed at 73acd22: a guest who paid half with a gift certificate is voided as "unpaid".
  it('never voids a booking partly paid', async () => {
    const code = await customerBooking('&giftcert_code=GIFT-HALF');
    now += 2 * 3_600_000;
    await createSweeper({ db, clock })();
    expect(await statusOf(code)).not.toBe('VOID');
  });

  // Failed at 73acd22: the voider looks back only 30 days past the cutoff (LOOK_BACK_SECONDS in
  // lib/bookings/unpaid.ts), so an unpaid customer booking older than that (the setting turned on later, or
  // the sweeper down for a month) is never voided and keeps counting against its client for ever.
  it('voids an unpaid booking made more than 30 days before the sweep', async () => {
    const code = await customerBooking();
    now += 40 * 86_400_000;
    await createSweeper({ db, clock })();
    expect(await statusOf(code)).toBe('VOID');
  });

  // Failed at 73acd22: the voider reads only the partition of the tenant's first active status as it is
  // now; a tenant that puts a status before PEND (here NEW) never voids the unpaid PEND bookings made
  // before, and they count against their clients for ever. (Runs last: it reloads the tenant.)
  it('voids unpaid bookings made under an earlier first status', async () => {
    const code = await customerBooking();
    expect(await statusOf(code)).toBe('PEND');
    await writeTenant(
      db,
      makeTenant(
        makeTenantJson({
          settings: { booking_code_prefix: 'TEST', void_unpaid_after_hours: 1 },
          items: [makeItem({ item_id: 1, stock: 100 })],
          giftcerts: [{ code: 'GIFT-HALF', amount: '20.00' }],
          statuses: [
            { status_id: 'NEW', name: 'New' },
            { status_id: 'PEND', name: 'Pending' },
            { status_id: 'HOLD', name: 'On hold' },
            { status_id: 'PAID', name: 'Paid' },
            { status_id: 'VOID', name: 'Void' },
          ],
        }),
      ),
      Date.now() + 1,
    );
    now += 2 * 3_600_000;
    await createSweeper({ db, clock })();
    expect(await statusOf(code)).toBe('VOID');
  });
});
