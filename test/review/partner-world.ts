import { beforeAll } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, readUsed } from '#test/support/dynamo.ts';
import { accountBasic, invoke } from '#test/support/events.ts';
import { makeAccount, makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

/** The tour of the partner reviews: 12 seats, so one client may hold 6. */
export const TOUR = 1;
const PARTNER_IP = '192.0.2.77';

/**
 * A tenant with a 12-seat tour, a staff account and a partner account (2) with a credential, set up before
 * the tests of the file that calls it: the partner's calls as a script would make them.
 */
export function setUpPartnerWorld(name: string, settings: Record<string, unknown>) {
  let db: Db;
  let handlers: ReturnType<typeof createAllHandlers>;
  let partner: string;

  beforeAll(async () => {
    db = await createTestDb(name);
    await writeTenant(
      db,
      makeTenant(
        makeTenantJson({
          settings: { booking_code_prefix: 'TEST', ...settings },
          items: [makeItem({ item_id: TOUR, sku: 'tour', name: 'Tour', stock: 12 })],
          accounts: [makeAccount('ada'), makeAccount('agent')],
        }),
      ),
      Date.now(),
    );
    handlers = createAllHandlers(testDeps(db));
    partner = await accountBasic(db, 2, { label: 'agent', now: 0 });
  });

  const usedOf = (slot: string): Promise<number> => readUsed(db, TOUR, slot);

  const asPartner = (headers: Record<string, string>) => {
    const all = { authorization: partner, ...headers };
    return {
      hold: async (query: string) => {
        const rated = await invoke(handlers.items, {
          path: `item/${TOUR}`,
          query,
          headers: all,
          sourceIp: PARTNER_IP,
        });
        return invoke(handlers.session, {
          method: 'POST',
          path: 'booking/session',
          body: `slip[]=${encodeURIComponent(rated.json.item?.rate?.slip)}`,
          contentType: 'application/x-www-form-urlencoded',
          headers: all,
          sourceIp: PARTNER_IP,
        });
      },
      book: (sessionId: string, who: string) =>
        invoke(handlers.bookings, {
          method: 'POST',
          path: 'booking/create',
          body: `session_id=${sessionId}&form[customer_name]=${who}&form[customer_email]=${who}@example.com`,
          contentType: 'application/x-www-form-urlencoded',
          headers: all,
          sourceIp: PARTNER_IP,
        }),
    };
  };

  return {
    get handlers() {
      return handlers;
    },
    get partner() {
      return partner;
    },
    usedOf,
    asPartner,
  };
}
