import { afterEach, beforeAll, expect } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from './dynamo.ts';
import { formBody, invoke, staffBasic } from './events.ts';
import { expectInvariant, sessionClient, sessionOf } from './session.ts';
import { makeItem, makeTenantJson } from './tenant.ts';
import { loadTenant } from './tenant-table.ts';

// The world of the bookings tests (test/integration/bookings-*.test.ts): one table per file with a tenant
// of two kayaks (500 and 1), two taxes, an amount discount, gift certificates and a form with a staff-only
// field; a desk credential (`staff`) and an owner's that may act on behalf of others (`admin`). The state is
// exported live: each test file that calls `setUpBookingsWorld` gets its own.

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let client: ReturnType<typeof sessionClient>;
export let staff: string;
export let admin: string;
export const day = addDays(todayIn('America/Toronto', Date.now()), 30);

export const form = (fields: Record<string, string> = {}) => ({
  'form[customer_name]': 'Ada Lovelace',
  'form[customer_email]': 'ada@example.com',
  ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`form[${name}]`, value])),
});

/** A form body of fields: formBody, by the name the bookings tests call it. */
export const encode = formBody;

export const create = (fields: Record<string, string | string[]>, headers: Record<string, string> = {}) =>
  invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: encode(fields),
    contentType: 'application/x-www-form-urlencoded',
    headers,
  });

export const staffCall = (
  path: string,
  options: { method?: string; query?: string; headers?: Record<string, string> } = {},
) =>
  // The function API Gateway sends the path to: the bookings group's, or the admin group's (customers).
  invoke(handlers[resolveGroup(options.method ?? 'GET', `/api/3.0/${path}`).group], {
    method: options.method ?? 'GET',
    path,
    ...(options.query ? { query: options.query } : {}),
    headers: { authorization: staff, ...options.headers },
  });

export const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

/** A new session holding `qty` of item 1 on `date`. */
export const cart = async (options: { itemId?: number; date?: string; qty?: number } = {}) => {
  const slip = await client.slip(
    options.itemId ?? 1,
    `date=${options.date ?? day}&param[qty]=${options.qty ?? 1}`,
  );
  return sessionOf(await client.add([slip])).id as string;
};

export const book = async (
  fields: Record<string, string> = {},
  options: { itemId?: number; date?: string; qty?: number } = {},
) => {
  const sessionId = await cart(options);
  const response = await create({ session_id: sessionId, ...form(fields) });
  expect(response.status, JSON.stringify(response.json.request)).toBe(200);
  return { sessionId, created: response.json.booking, response };
};

/** Sets the world up before the file's tests, and holds the stock invariant after each. */
export function setUpBookingsWorld(): void {
  beforeAll(async () => {
    ({ db, handlers } = await loadTenant(
      'bookings',
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
    ));
    staff = await staffBasic(db, { label: 'desk' });
    admin = await staffBasic(db, { onBehalf: true, label: 'owner' });
    client = sessionClient(handlers);
  });

  afterEach(async () => {
    await expectInvariant(db);
  });
}
