import { beforeAll } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from './deps.ts';
import { createTestDb, setUsed } from './dynamo.ts';
import { invoke, staffBasic } from './events.ts';
import { demoTenantJson, makeTenant } from './tenant.ts';

// The world of the items tests (test/integration/items-*.test.ts): the demo tenant and a staff credential.

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let staff: string;
export const today = todayIn('America/Toronto', Date.now());
// A Tuesday about two months ahead, clear of lead times, closed days and the demo's season edges.
export const day = (() => {
  let candidate = addDays(today, 60);
  while (
    new Date(
      `${candidate.slice(0, 4)}-${candidate.slice(4, 6)}-${candidate.slice(6)}T12:00:00Z`,
    ).getUTCDay() !== 2
  ) {
    candidate = addDays(candidate, 1);
  }
  return candidate;
})();

export const hold = (itemId: number, slot: string, used: number) => setUsed(db, itemId, slot, used);

export const items = (query: string, headers: Record<string, string> = {}) =>
  invoke(handlers.items, { path: 'item', query, headers });

/** Sets the world up before the file's tests. */
export function setUpItemsWorld(): void {
  beforeAll(async () => {
    db = await createTestDb('items');
    await writeTenant(db, makeTenant(demoTenantJson()), Date.now());
    staff = await staffBasic(db, { label: 'items' });
    handlers = createAllHandlers(testDeps(db));
  });
}
