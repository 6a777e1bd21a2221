import { readFileSync } from 'node:fs';
import { parseTenant, type Tenant, type TenantItem } from '#lib/config/tenant-schema.ts';

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> | T[K] : T[K] };

/** The demo tenant file as raw JSON. */
export const demoTenantJson = (): Record<string, unknown> =>
  JSON.parse(readFileSync('infra/tenants/demo.json', 'utf8')) as Record<string, unknown>;

/**
 * The demo tenant file as raw JSON, taking no payment: for tests of something other than payment, which the
 * demo's deposit (issue 43) would only get in the way of.
 */
export const demoTenantJsonWithoutPayment = (): Record<string, unknown> => {
  const tenant = demoTenantJson() as { settings: Record<string, unknown> };
  tenant.settings = { ...tenant.settings, payment: { take: 'none' } };
  return tenant;
};

/** An item of the raw tenant file, with overrides. */
export const makeItem = (
  overrides: Partial<Record<keyof TenantItem, unknown>> = {},
): Record<string, unknown> => ({
  item_id: 1,
  sku: 'kayak',
  name: 'Kayak',
  unit: 'D',
  category_id: 1,
  stock: 5,
  params: { qty: { price: '40.00', counts_stock: true, def: 1 } },
  ...overrides,
});

// The accounts the tests' tenants hold: staff Ada, and partners that tests name by their logins.
const ACCOUNTS = {
  ada: { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' },
  agent: {
    account_id: 2,
    first_name: 'Agent',
    email: 'agent@test.example.com',
    login_id: 'agent',
    partner: true,
  },
  tours: {
    account_id: 2,
    first_name: 'Lake Tours',
    email: 'a@tours.example.com',
    login_id: 'tours',
    partner: true,
  },
  inn: { account_id: 3, first_name: 'Inn Agent', email: 'b@inn.example.com', login_id: 'inn', partner: true },
};

/** An account of the raw tenant file, by its login (ada is staff account 1), with overrides. */
export const makeAccount = (
  login: keyof typeof ACCOUNTS,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> => ({ ...ACCOUNTS[login], ...overrides });

/** A small valid raw tenant file, with top-level overrides. */
export const makeTenantJson = (
  overrides: DeepPartial<Record<keyof Tenant, unknown>> = {},
): Record<string, unknown> => ({
  tenant: 'test',
  company: {
    account_id: 77,
    host_id: 'test.example.com',
    name: 'Test Rentals',
    email: 'hello@test.example.com',
    country_id: 'CA',
    timezone: 'America/Toronto',
  },
  locale: { id: 'en_CA', lang: 'en', currency: 'CAD', currency_symbol: '$' },
  settings: { booking_code_prefix: 'TEST' },
  params: { qty: { lbl: 'Quantity' } },
  categories: [{ category_id: 1, name: 'Rentals', pos: 1 }],
  items: [makeItem()],
  form: [
    { field_id: 'customer_name', lbl: 'Name', type: 'text', customer: { required: true } },
    { field_id: 'customer_email', lbl: 'Email', type: 'text', mask: 'email', customer: { required: true } },
  ],
  accounts: [makeAccount('ada')],
  ...overrides,
});

/** A validated tenant built from raw JSON; throws with the problems if it is invalid. */
export function makeTenant(raw: Record<string, unknown> = makeTenantJson()): Tenant {
  const result = parseTenant(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.tenant;
}

/** Validated items of one tenant with the parameters qty, adults and children, from item overrides. */
export const makeCatalog = (...items: Record<string, unknown>[]): TenantItem[] =>
  makeTenant(
    makeTenantJson({
      params: { qty: { lbl: 'Quantity' }, adults: { lbl: 'Adults' }, children: { lbl: 'Children' } },
      items: items.map((overrides) => makeItem(overrides)),
    }),
  ).items;
