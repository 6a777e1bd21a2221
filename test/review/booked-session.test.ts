import { beforeAll, describe, expect, it } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Adversarial review of issue 27 items 3 and 4: what a customer can still do with a cart once booked
// (release its stock or its budget a second time, grow it, book it again).
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
const day = addDays(todayIn('America/Toronto', Date.now()), 140);
const ADDRESS = '203.0.113.200';

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'review-booked',
    makeTenantJson({
      settings: { booking_code_prefix: 'TEST' },
      items: [makeItem({ item_id: 1, stock: 4 })],
    }),
  ));
});

const usedOf = (): Promise<number> => readUsed(db, 1, day);

const post = (
  handler: keyof typeof handlers,
  path: string,
  body: string,
  headers: Record<string, string> = {},
) =>
  invoke(handlers[handler], {
    method: 'POST',
    path,
    body,
    contentType: 'application/x-www-form-urlencoded',
    sourceIp: ADDRESS,
    headers,
  });

describe('review: a booked cart', () => {
  // Expected to pass (resisted).
  it('cannot be ended, cleared, grown or re-added to so the stock or the budget comes back', async () => {
    const slip = (
      await invoke(handlers.items, { path: 'item/1', query: `date=${day}&param[qty]=2`, sourceIp: ADDRESS })
    ).json.item.rate.slip;
    const held = await post('session', 'booking/session', `slip[]=${encodeURIComponent(slip)}`);
    const id = sessionOf(held).id;
    const booked = await post(
      'bookings',
      'booking/create',
      `session_id=${id}&form[customer_name]=A&form[customer_email]=a@example.com`,
    );
    expect(booked.status).toBe(200);
    expect(await usedOf()).toBe(2);
    const attempts = await Promise.all([
      post('session', 'booking/session', `session_id=${id}&alter[1]=0`),
      post('session', 'booking/session', `session_id=${id}&alter[1]=1`),
      post('session', 'booking/session', `session_id=${id}&alter[1]=2`),
      post('session', 'booking/session/clear', `session_id=${id}`),
      post('session', 'booking/session/end', `session_id=${id}`),
      post('session', 'booking/session', `session_id=${id}&alter[${encodeURIComponent(slip)}]=remove`),
    ]);
    for (const attempt of attempts) expect(attempt.status).toBeLessThan(500);
    expect(await usedOf()).toBe(2);
    // The budget: the address still may hold only 2 more (share 2 of 4 is already its booking's).
    const more = await post('session', 'booking/session', `slip[]=${encodeURIComponent(slip)}`);
    expect(more.status).toBe(409);
    // Booking the same cart again gives the same booking, not a second one.
    const again = await post(
      'bookings',
      'booking/create',
      `session_id=${id}&form[customer_name]=B&form[customer_email]=b@example.com`,
    );
    expect(again.json.booking?.id).toBe(booked.json.booking.id);
    expect(await usedOf()).toBe(2);
    const run = await runReconcile(db, { fix: false, now: Date.now() });
    expect(run.discrepancies).toEqual([]);
    expect(run.clientDiscrepancies).toEqual([]);
  });
});
