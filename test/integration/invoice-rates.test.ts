import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke, staffBasic } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// An invoice shows what was sold: it had recomputed each tax at the tenant's rates of the day while
// printing the totals stored with the booking, so after a rate changed its taxes no longer added up.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
const day = addDays(todayIn('America/Toronto', Date.now()), 30);

const load = (taxes: Record<string, unknown>[], loadedAt: number) =>
  writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST' },
        items: [
          makeItem({ item_id: 1, stock: 50 }),
          makeItem({ item_id: 2, sku: 'boat', name: 'Boat', stock: 5 }),
        ],
        taxes,
      }),
    ),
    loadedAt,
  );

beforeAll(async () => {
  db = await createTestDb('invoice-rates');
  await load(
    [
      { tax_id: 'hst', name: 'HST', rate: 13 },
      { tax_id: 'city', name: 'City tax', rate: 4, inclusive: true, item_ids: [1] },
    ],
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db));
  staff = await staffBasic(db, { label: 'invoice-rates' });
});

describe('a booking sold before every tax rate changed', () => {
  it('reads the same afterwards: its invoice, its record and its lines', async () => {
    const client = sessionClient(handlers);
    const cart = sessionOf(
      await client.add([
        await client.slip(1, `date=${day}&param[qty]=3`),
        await client.slip(2, `date=${day}&param[qty]=1`),
      ]),
    );
    const created = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `session_id=${cart.id}&form[customer_name]=Ada&form[customer_email]=ada@example.com`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(created.status).toBe(200);
    const { code, token } = created.json.booking;
    const read = async () => ({
      invoice: (await invoke(handlers.bookings, { path: `booking/${code}/invoice`, query: `token=${token}` }))
        .json.booking.invoice,
      record: (
        await invoke(handlers.bookings, { path: `booking/${code}`, headers: { authorization: staff } })
      ).json.booking,
    });
    const before = await read();
    const taxTotal = before.invoice.taxes
      .filter((tax: { inclusive: number }) => !tax.inclusive)
      .reduce((sum: number, tax: { amount: string }) => sum + Number(tax.amount), 0);
    expect(taxTotal.toFixed(2)).toBe(before.record.tax_total);

    // Every rate changes, one tax is gone and another is new.
    await load(
      [
        { tax_id: 'hst', name: 'HST', rate: 15 },
        { tax_id: 'gst', name: 'GST', rate: 5 },
      ],
      Date.now() + 1,
    );
    const after = await read();
    expect(after.invoice).toEqual(before.invoice);
    expect(after.record).toEqual(before.record);
  });
});
