import { afterEach, beforeAll, expect } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from './dynamo.ts';
import { staffBasic, type TestResponse } from './events.ts';
import { scriptClient } from './script-client.ts';
import { expectInvariant } from './session.ts';
import { makeItem, makeTenantJson } from './tenant.ts';
import { loadTenant } from './tenant-table.ts';

// The world of the hoarding attack scripts (test/integration/hoarding.test.ts): four items with hold budgets
// and no re-hold cooldown, handlers on the file's clock, which its tests move, and a script's client.

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let staff: string;

export const KAYAK = 1; // stock 10: a client may hold 5
export const LAST = 2; // stock 1: a client may hold 1
export const FREE = 3; // unlimited
export const CABIN = 4; // nightly, stock 4: a client may hold 2

/** Sets the world up before the file's tests, and holds the stock invariant at the file's clock after each. */
export function setUpHoardingWorld(clock: () => number): void {
  beforeAll(async () => {
    ({ db, handlers } = await loadTenant(
      'hoarding',
      makeTenantJson({
        // The budgets alone: the re-hold cooldown (rehold-cooldown.test.ts) would refuse the re-holds
        // that prove each path gives the budget back.
        settings: {
          booking_code_prefix: 'TEST',
          hold_minutes: 15,
          max_session_minutes: 60,
          limits: { rehold_cooldown_minutes: 0 },
        },
        items: [
          makeItem({ item_id: KAYAK, sku: 'kayak', stock: 10 }),
          makeItem({ item_id: LAST, sku: 'last', name: 'Last', stock: 1 }),
          makeItem({ item_id: FREE, sku: 'free', name: 'Free', stock: 5, unlimited: true }),
          makeItem({ item_id: CABIN, sku: 'cabin', name: 'Cabin', unit: 'N', stock: 4 }),
        ],
      }),
      { clock },
    ));
    staff = await staffBasic(db, { now: 0 });
  });

  afterEach(async () => {
    await expectInvariant(db, clock());
  });
}

export const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

/** A client of the cart at one address, as a script would drive it. */
export const clientAt = (address: string, headers: Record<string, string> = {}) =>
  scriptClient(handlers, address, { headers });

export const expectHoldLimit = (response: TestResponse, data: Record<string, unknown>) => {
  expect(response.status).toBe(409);
  expect(response.json.request.error).toMatchObject({ id: 'hold_limit', data });
};
