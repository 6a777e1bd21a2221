import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createCredential } from '#lib/auth/credential-admin.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke } from '#test/support/events.ts';
import { expectInvariant } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Attacks from an adversarial review: a partner (an agent's credential) reaching what is not its own,
// customer details entered by others, every staff account, and staff privileges over stock and rules.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
/** Partner account 2 ("tours"), granted nothing. */
let tours: string;
const start = addDays(todayIn('America/Toronto', Date.now()), 30);
let nextDay = 0;
/** A date no earlier test touched. */
const freshDay = () => {
  nextDay += 1;
  return addDays(start, nextDay);
};

const encode = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');

/** Books item 1 for a day with these form fields, as `authorization` (or a guest), and returns the code. */
const book = async (fields: Record<string, string>, authorization?: string): Promise<string> => {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  const rated = await invoke(handlers.items, { path: 'item/1', query: `date=${freshDay()}`, headers });
  const created = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: encode({
      'slip[]': rated.json.item.rate.slip,
      ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`form[${name}]`, value])),
    }),
    contentType: 'application/x-www-form-urlencoded',
    headers,
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  return created.json.booking.code;
};

const get = (path: string, authorization: string, query = '') =>
  invoke(path === 'account' ? handlers.meta : handlers.bookings, { path, query, headers: { authorization } });

const tenantJson = () =>
  makeTenantJson({
    items: [makeItem({ item_id: 1, sku: 'kayak', stock: 10 })],
    form: [
      { field_id: 'customer_name', lbl: 'Name', type: 'text', customer: { required: true } },
      { field_id: 'customer_email', lbl: 'Email', type: 'text', mask: 'email', customer: { required: true } },
      { field_id: 'customer_phone', lbl: 'Phone', type: 'text' },
      { field_id: 'customer_address', lbl: 'Address', type: 'text' },
    ],
    accounts: [
      {
        account_id: 1,
        first_name: 'Ada',
        email: 'ada@test.example.com',
        mobile_phone: '+1 555 0001',
        login_id: 'ada',
      },
      {
        account_id: 2,
        first_name: 'Lake Tours',
        email: 'a@tours.example.com',
        login_id: 'tours',
        partner: true,
      },
      { account_id: 3, first_name: 'Inn Agent', email: 'b@inn.example.com', login_id: 'inn', partner: true },
    ],
  });

beforeAll(async () => {
  db = await createTestDb('partners');
  await writeTenant(db, makeTenant(tenantJson()), Date.now());
  handlers = createAllHandlers(testDeps(db));
  const credential = async (accountId: number) => {
    const made = await createCredential(db, { accountId, onBehalf: false, label: 't', now: 0 });
    return basic(made.key, made.secret);
  };
  staff = await credential(1);
  tours = await credential(2);
});

afterEach(async () => {
  await expectInvariant(db);
});

describe('customer details a partner sees', () => {
  const guest = {
    customer_name: 'Grace Guest',
    customer_email: 'grace@example.com',
    customer_phone: '+1 555 0100',
    customer_address: '1 Lake Road',
  };
  const codes: Record<string, string> = {};

  beforeAll(async () => {
    codes.guest = await book(guest);
    codes.tours = await book({ customer_name: 'Tours Client', customer_email: 'GRACE@example.com' }, tours);
  });

  it('shows a customer found by email with the details of the partner’s own booking, never the guest’s', async () => {
    const found = await get('customer', tours, 'customer_email=grace@example.com');
    const customers = Object.values(found.json.customers) as Record<string, unknown>[];
    expect(customers).toHaveLength(1);
    expect(customers[0]).toMatchObject({
      customer_name: 'Tours Client',
      customer_email: 'grace@example.com',
      customer_phone: '',
      customer_address: '',
    });
    expect(Object.keys(customers[0]?.bookings as object)).toEqual([codes.tours]);
    expect(JSON.stringify(found.json)).not.toMatch(/Grace Guest|555 0100|Lake Road/);
  });

  it('shows a customer by id with the partner’s own booking’s details only', async () => {
    const record = await get(`booking/${codes.tours}`, tours);
    const customerId = record.json.booking.customer_id;
    const customer = await get(`customer/${customerId}`, tours);
    expect(customer.status).toBe(200);
    expect(customer.json.customer).toMatchObject({ customer_name: 'Tours Client', customer_phone: '' });
    expect(JSON.stringify(customer.json)).not.toMatch(/Grace Guest|555 0100|Lake Road/);
  });

  it('shows the partner’s record, row and invoice with what its booking entered', async () => {
    const record = (await get(`booking/${codes.tours}`, tours)).json;
    const rows = (await get('booking/index', tours)).json;
    const invoice = (await get(`booking/${codes.tours}/invoice`, tours)).json;
    for (const json of [record, rows, invoice]) {
      expect(JSON.stringify(json)).not.toMatch(/Grace Guest|555 0100|Lake Road/);
    }
    expect(record.booking).toMatchObject({ customer_name: 'Tours Client', customer_phone: '' });
    expect(invoice.booking.invoice.customer.customer_name).toBe('Tours Client');
  });
});

describe('GET account for a partner', () => {
  it('lists only the partner’s own account', async () => {
    const own = await get('account', tours);
    expect(own.status).toBe(200);
    expect(own.json.account.map((account: { account_id: number }) => account.account_id)).toEqual([2]);
    expect(own.json.request.records).toBe(1);
    expect(JSON.stringify(own.json)).not.toMatch(/ada@test|555 0001|inn\.example/);
    const all = await get('account', staff);
    expect(all.json.account.map((account: { account_id: number }) => account.account_id)).toEqual([1, 2, 3]);
  });
});
