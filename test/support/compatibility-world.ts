import { beforeAll, expect } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { accountBasic, invoke, staffBasic } from './events.ts';
import { makeAccount, makeItem, makeTenantJson } from './tenant.ts';
import { loadTenant } from './tenant-table.ts';

// The world of the compatibility tests (test/integration/compatibility-*.test.ts, issue 10): a kayak with
// seasonal and weekend rates and a closed day, a cabin by the night, two discount codes, and the credentials
// of staff (who may act on behalf of others) and of two partners.

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let staff: string;
export let partner: string;
export let otherPartner: string;
export const day = addDays(todayIn('America/Toronto', Date.now()), 30);

/** Sets the world up before the file's tests. */
export function setUpCompatibilityWorld(): void {
  beforeAll(async () => {
    ({ db, handlers } = await loadTenant(
      'compat',
      makeTenantJson({
        params: { qty: { lbl: 'Quantity' }, adults: { lbl: 'Adults' } },
        accounts: [makeAccount('ada'), makeAccount('tours'), makeAccount('inn')],
        items: [
          makeItem({
            item_id: 1,
            sku: 'kayak',
            stock: 10,
            rates: [
              {
                name: 'Summer',
                start_date: '20270601',
                end_date: '20270831',
                price: { param: { qty: '50.00' } },
              },
              { name: 'Weekend', dow: [0, 6], price: { param: { qty: '55.00' } } },
            ],
            rules: { closed_dates: ['20271225'], closed_dow: [] },
          }),
          makeItem({
            item_id: 2,
            sku: 'cabin',
            name: 'Cabin',
            unit: 'N',
            stock: 3,
            params: { adults: { price: '50.00', def: 2 } },
            rates: [{ name: 'Weekend', dow: [0, 6], price: { param: { adults: '60.00' } } }],
          }),
        ],
        discounts: [
          { code: 'EARLY', name: 'Early bird', type: 'percent', value: '10', end_date: '20200101' },
          { code: 'KAYAK5', name: 'Kayak five', type: 'amount', value: '5.00', item_ids: [1] },
        ],
      }),
    ));
    staff = await staffBasic(db, { onBehalf: true, now: 0 });
    partner = await accountBasic(db, 2, { label: 'tours', now: 0 });
    otherPartner = await accountBasic(db, 3, { label: 'inn', now: 0 });
  });
}

/** Books one item for a query through the public flow and returns the booking code. */
export const book = async (
  itemId: number,
  query: string,
  options: { headers?: Record<string, string>; email?: string } = {},
): Promise<string> => {
  const rated = await invoke(handlers.items, { path: `item/${itemId}`, query });
  const slip = rated.json.item.rate.slip;
  const created = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: `slip[]=${slip}&form[customer_name]=Sync&form[customer_email]=${options.email ?? 'sync@example.com'}`,
    contentType: 'application/x-www-form-urlencoded',
    headers: options.headers ?? {},
  });
  expect(created.status).toBe(200);
  return created.json.booking.code;
};
