import { afterEach, beforeAll } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from './deps.ts';
import { createTestDb, readUsed } from './dynamo.ts';
import { expectInvariant, sessionClient } from './session.ts';
import { makeItem, makeTenant, makeTenantJson } from './tenant.ts';

// The world of the session tests (test/integration/session-*.test.ts): kayaks, a last unit, a cabin, a
// hamper and a package of both, and a session client of handlers on the file's clock, which its tests move.

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let client: ReturnType<typeof sessionClient>;
export const start = addDays(todayIn('America/Toronto', Date.now()), 30);

export const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

/** Sets the world up before the file's tests, and holds the stock invariant at the file's clock after each. */
export function setUpSessionWorld(clock: () => number): void {
  beforeAll(async () => {
    db = await createTestDb('session');
    const tenant = makeTenant(
      makeTenantJson({
        params: { qty: { lbl: 'Quantity' }, adults: { lbl: 'Adults' } },
        // Hold budgets have their own tests (hoarding.test.ts); here one cart may hold a whole item-date.
        settings: { booking_code_prefix: 'TEST', hold_minutes: 15, limits: { client_hold_share: 1 } },
        items: [
          makeItem({ item_id: 1, sku: 'kayak', stock: 10 }),
          makeItem({ item_id: 2, sku: 'last', name: 'Last one', stock: 1 }),
          makeItem({
            item_id: 3,
            sku: 'cabin',
            name: 'Cabin',
            unit: 'N',
            stock: 2,
            params: { adults: { price: '50.00', def: 2 } },
          }),
          makeItem({
            item_id: 4,
            sku: 'hamper',
            name: 'Hamper',
            unit: 'N',
            stock: 3,
            params: { adults: { price: '10.00', def: 2 } },
          }),
          makeItem({
            item_id: 5,
            sku: 'getaway',
            name: 'Getaway',
            unit: 'N',
            stock: 5,
            params: { adults: { price: '0.00', def: 2 } },
            package: { items: [{ item_id: 3 }, { item_id: 4, optional: true }] },
          }),
          makeItem({ item_id: 6, sku: 'race', name: 'Race', stock: 1 }),
          makeItem({ item_id: 7, sku: 'overlap', name: 'Overlap', stock: 1 }),
        ],
      }),
    );
    await writeTenant(db, tenant, Date.now());
    handlers = createAllHandlers(testDeps(db, { clock }));
    client = sessionClient(handlers);
  });

  afterEach(async () => {
    await expectInvariant(db, clock());
  });
}
