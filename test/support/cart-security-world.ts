import { afterEach, beforeAll } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed, setGiftcertBalance } from './dynamo.ts';
import { accountBasic, invoke, staffBasic, type TestRequest } from './events.ts';
import { freshDays } from './fresh.ts';
import { expectInvariant } from './session.ts';
import { makeAccount, makeItem, makeTenantJson } from './tenant.ts';
import { loadTenant } from './tenant-table.ts';

// The world of the cart attack scripts (test/integration/cart-security-*.test.ts, issue 9 points 5 to 8):
// items of every visibility, a free one and a raft whose unlimited flag a test flips, gift certificates live,
// expired and empty, and staff and partner credentials.

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let staff: string;
export let partner: string;
export const freshDay = freshDays();

export const tenantJson = (overrides: { hidden?: boolean; unlimitedRaft?: boolean } = {}) =>
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
    accounts: [makeAccount('ada'), makeAccount('tours')],
  });

/** Sets the world up before the file's tests, and holds the stock invariant after each. */
export function setUpCartSecurityWorld(): void {
  beforeAll(async () => {
    ({ db, handlers } = await loadTenant('cartsec', tenantJson()));
    await setGiftcertBalance(db, 'GIFT-EMPTY', 0);
    staff = await staffBasic(db, { now: 0 });
    partner = await accountBasic(db, 2, { label: 'tours', now: 0 });
  });

  afterEach(async () => {
    await expectInvariant(db);
  });
}

export const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

export const slipOf = async (itemId: number, query: string, headers: Record<string, string> = {}) => {
  const { json } = await invoke(handlers.items, { path: `item/${itemId}`, query, headers });
  return json.item.rate.slip as string;
};

export const post = (
  group: 'session' | 'bookings',
  path: string,
  body: string,
  extra: Partial<TestRequest> = {},
) =>
  invoke(handlers[group], {
    method: 'POST',
    path,
    body,
    contentType: 'application/x-www-form-urlencoded',
    ...extra,
  });

export const customerForm = 'form[customer_name]=Ada&form[customer_email]=ada@example.com';

/** Books a SLIP for Ada with a gift certificate code, as a guest or with the given request fields. */
export const bookWithCode = (slip: string, code: string, extra: Partial<TestRequest> = {}) =>
  post('bookings', 'booking/create', `slip[]=${slip}&${customerForm}&giftcert_code=${code}`, extra);
