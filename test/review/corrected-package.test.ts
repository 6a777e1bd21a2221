import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { stockKey } from '#lib/kernel/storage/keys.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 3 through packages: an optional part opted in while unlimited, and
// a package that gains a required part after carts were filled.
const A = 1;
const B = 2;
const C = 3;
const P = 4; // A + optional B
const Q = 5; // A, later A + C
const day = addDays(todayIn('America/Toronto', Date.now()), 70);
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
let loads = 0;

const load = async (options: { bUnlimited: boolean; qHasC: boolean }) => {
  loads += 1;
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', limits: { client_hold_share: 1 } },
        items: [
          makeItem({ item_id: A, sku: 'a', name: 'A', stock: 10 }),
          makeItem({ item_id: B, sku: 'b', name: 'B', stock: 1, unlimited: options.bUnlimited }),
          makeItem({ item_id: C, sku: 'c', name: 'C', stock: 1 }),
          makeItem({
            item_id: P,
            sku: 'p',
            name: 'P',
            stock: 10,
            package: {
              items: [
                { item_id: A, qty: 1 },
                { item_id: B, qty: 1, optional: true },
              ],
            },
          }),
          makeItem({
            item_id: Q,
            sku: 'q',
            name: 'Q',
            stock: 10,
            package: { items: [{ item_id: A, qty: 1 }, ...(options.qHasC ? [{ item_id: C, qty: 1 }] : [])] },
          }),
        ],
      }),
    ),
    Date.now() + loads,
  );
};

const usedOf = async (itemId: number): Promise<number> => {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: stockKey(itemId, day), ConsistentRead: true }),
  );
  return Number(Item?.used ?? 0);
};

const book = (sessionId: string, email: string) =>
  invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: `session_id=${sessionId}&form[customer_name]=Guest&form[customer_email]=${email}`,
    contentType: 'application/x-www-form-urlencoded',
  });

const cartOf = async (itemId: number) => {
  const added = await client.add([await client.slip(itemId, `date=${day}&param[qty]=1`)]);
  expect(added.status).toBe(200);
  return sessionOf(added).id as string;
};

beforeEach(async () => {
  db = await createTestDb('review-package');
  handlers = createAllHandlers(testDeps(db));
  client = sessionClient(handlers);
});

describe('review: package parts and a corrected item', () => {
  // Expected to pass (resisted).
  it('an optional part opted in while unlimited is caught up at booking', async () => {
    await load({ bUnlimited: true, qHasC: false });
    const early = await cartOf(P);
    const optin = await client.alter(early, { '1.2': 'optin' });
    expect(optin.status, JSON.stringify(optin.json.request?.error)).toBe(200);
    await load({ bUnlimited: false, qHasC: false });
    const late = await cartOf(P);
    expect((await client.alter(late, { '1.2': 'optin' })).status).toBe(200);
    expect(await usedOf(B)).toBe(1);
    const booked = await book(early, 'early@example.com');
    expect(booked.status).toBe(409);
    const third = await cartOf(P);
    expect((await client.alter(third, { '1.2': 'optin' })).status).toBe(409);
    expect(await usedOf(B)).toBe(1);
  });

  // Expected to pass (resisted).
  it('a package that gains a required part is caught up at booking', async () => {
    await load({ bUnlimited: false, qHasC: false });
    const early = await cartOf(Q);
    await load({ bUnlimited: false, qHasC: true });
    const late = await cartOf(Q);
    expect(await usedOf(C)).toBe(1);
    expect(late).toBeTruthy();
    const booked = await book(early, 'early@example.com');
    expect(booked.status).toBe(409);
    expect(await usedOf(C)).toBe(1);
    const run = await runReconcile(db, { fix: false, now: Date.now() });
    expect(run.discrepancies).toEqual([]);
  });
});
