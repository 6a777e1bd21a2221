import { beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, readUsed } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 3: lines held while unlimited, raced after the correction by
// alters (by line and by SLIP) and creates of several carts at once.
const KAYAK = 1;
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
let loads = 0;

const load = async (unlimited: boolean) => {
  loads += 1;
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', limits: { client_hold_share: 1 } },
        items: [makeItem({ item_id: KAYAK, unlimited, stock: 3 })],
      }),
    ),
    Date.now() + loads,
  );
};

const usedOf = (slot: string): Promise<number> => readUsed(db, KAYAK, slot);

beforeEach(async () => {
  db = await createTestDb('review-corrected-race');
  handlers = createAllHandlers(testDeps(db));
  client = sessionClient(handlers);
});

describe('review: racing corrected lines', () => {
  // Expected to pass (resisted).
  it('never books or holds past a stock of 3', async () => {
    for (let round = 0; round < 4; round += 1) {
      const day = addDays(todayIn('America/Toronto', Date.now()), 100 + round);
      await load(true);
      const carts: { id: string; slip: string }[] = [];
      for (let index = 0; index < 4; index += 1) {
        const slip = await client.slip(KAYAK, `date=${day}&param[qty]=1`);
        const added = await client.add([slip]);
        carts.push({ id: sessionOf(added).id, slip });
      }
      await load(false);
      const results = await Promise.all(
        carts.flatMap(({ id, slip }, index) => [
          invoke(handlers.session, {
            method: 'POST',
            path: 'booking/session',
            body:
              index % 2
                ? `session_id=${id}&alter[1]=2`
                : `session_id=${id}&alter[${encodeURIComponent(slip)}]=2`,
            contentType: 'application/x-www-form-urlencoded',
          }),
          invoke(handlers.bookings, {
            method: 'POST',
            path: 'booking/create',
            body: `session_id=${id}&form[customer_name]=R&form[customer_email]=r${round}${index}@example.com`,
            contentType: 'application/x-www-form-urlencoded',
          }),
        ]),
      );
      for (const result of results) expect(result.status).toBeLessThan(500);
      expect(await usedOf(day)).toBeLessThanOrEqual(3);
      const run = await runReconcile(db, { fix: false, now: Date.now() });
      expect(run.discrepancies).toEqual([]);
      const bookedMore = run.holderDiscrepancies.filter(
        (entry: { kind: string; holder: string }) =>
          entry.kind === 'takes_more' && entry.holder === 'booking',
      );
      expect(bookedMore).toEqual([]);
    }
  }, 120_000);
});
