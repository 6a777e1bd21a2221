import { afterEach, beforeAll, expect } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { accountBasic, formBody, invoke } from './events.ts';
import { freshDays } from './fresh.ts';
import { scriptClient } from './script-client.ts';
import { expectInvariant } from './session.ts';
import { makeAccount, makeItem, makeTenantJson } from './tenant.ts';
import { loadTenant } from './tenant-table.ts';

// The world of the partner attacks (test/integration/partners.test.ts): a kayak and a staff-only boat slip,
// staff, two partner accounts and their credentials, and the calls a partner's integration makes.

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let staff: string;
/** Partner account 2 ("tours"), granted nothing. */
export let tours: string;
/** A second credential of partner account 2. */
export let toursDesk: string;
/** Partner account 3 ("inn"), granted what a test gives it. */
export let inn: string;
/** A date no earlier test touched. */
export const freshDay = freshDays();

/** Books item 1 for a day with these form fields, as `authorization` (or a guest), and returns the code. */
export const book = async (fields: Record<string, string>, authorization?: string): Promise<string> => {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  const rated = await invoke(handlers.items, { path: 'item/1', query: `date=${freshDay()}`, headers });
  const created = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      'slip[]': rated.json.item.rate.slip,
      ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`form[${name}]`, value])),
    }),
    contentType: 'application/x-www-form-urlencoded',
    headers,
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  return created.json.booking.code;
};

export const get = (path: string, authorization: string, query = '') =>
  invoke(handlers[resolveGroup('GET', `/api/3.0/${path}`).group], {
    path,
    query,
    headers: { authorization },
  });

export const KAYAK = 1; // stock 10: a budgeted client may hold 5
export const SLIP = 2; // staff-only

/** The tenant, with what the inn partner's account (3) is granted. */
export const tenantJson = (innGrants?: string[]) =>
  makeTenantJson({
    items: [
      makeItem({ item_id: KAYAK, sku: 'kayak', stock: 10 }),
      makeItem({ item_id: SLIP, sku: 'slip', name: 'Boat slip', stock: 4, visibility: 'S' }),
    ],
    form: [
      { field_id: 'customer_name', lbl: 'Name', type: 'text', customer: { required: true } },
      { field_id: 'customer_email', lbl: 'Email', type: 'text', mask: 'email', customer: { required: true } },
      { field_id: 'customer_phone', lbl: 'Phone', type: 'text' },
      { field_id: 'customer_address', lbl: 'Address', type: 'text' },
    ],
    accounts: [
      makeAccount('ada', { mobile_phone: '+1 555 0001' }),
      makeAccount('tours'),
      makeAccount('inn', innGrants ? { grants: innGrants } : {}),
    ],
  });

/** Sets the world up before the file's tests, and holds the stock invariant after each. */
export function setUpPartnerAttacksWorld(): void {
  beforeAll(async () => {
    ({ db, handlers } = await loadTenant('partners', tenantJson()));
    const credential = (accountId: number) => accountBasic(db, accountId, { now: 0 });
    staff = await credential(1);
    tours = await credential(2);
    toursDesk = await credential(2);
    inn = await credential(3);
  });

  afterEach(async () => {
    await expectInvariant(db);
  });
}

/** A caller of the cart (from one address, or a fresh one each call), as a partner's integration would drive it. */
export const cartOf = (authorization: string, sourceIp?: string) =>
  scriptClient(handlers, sourceIp, { headers: { authorization }, customer: 'Agent' });

export const sessionIdOf = (response: { json: Record<string, any> }): string =>
  response.json.booking.session.id;
