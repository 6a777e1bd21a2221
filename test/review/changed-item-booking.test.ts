import { beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 3 ("booking re-checks lines whose item changed"): a cart line whose
// item the operator disabled or made staff-only after it was held.
const day = addDays(todayIn('America/Toronto', Date.now()), 160);
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
let loads = 0;

const load = async (item: Record<string, unknown>) => {
  loads += 1;
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST' },
        items: [makeItem({ item_id: 1, stock: 5, ...item })],
      }),
    ),
    Date.now() + loads,
  );
};

beforeEach(async () => {
  db = await createTestDb('review-changed-item');
  handlers = createAllHandlers(testDeps(db));
  client = sessionClient(handlers);
});

describe('review: booking a line whose item changed since it was held', () => {
  // Observation (Failed at 73acd22 if the item is booked): a line grows only if its item is still enabled
  // and public (docs/bookings.md), but a held line of an item since disabled or made staff-only is booked as it is.
  for (const [label, change] of [
    ['disabled', { enabled: false }],
    ['staff-only', { visibility: 'S' }],
  ] as const) {
    it(`is refused when its item is now ${label}`, async () => {
      await load({});
      const cart = await client.add([await client.slip(1, `date=${day}&param[qty]=1`)]);
      await load(change);
      const booked = await invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `session_id=${sessionOf(cart).id}&form[customer_name]=G&form[customer_email]=g@example.com`,
        contentType: 'application/x-www-form-urlencoded',
      });
      expect(booked.status).toBe(409);
    });
  }
});
