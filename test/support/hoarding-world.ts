import { afterEach, beforeAll, expect } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import type { Db } from '#lib/db/client.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { testDeps } from './deps.ts';
import { createTestDb, readUsed } from './dynamo.ts';
import { invoke, staffBasic, type TestResponse } from './events.ts';
import { expectInvariant } from './session.ts';
import { makeItem, makeTenant, makeTenantJson } from './tenant.ts';

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
    db = await createTestDb('hoarding');
    await writeTenant(
      db,
      makeTenant(
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
      ),
      Date.now(),
    );
    handlers = createAllHandlers(testDeps(db, { clock }));
    staff = await staffBasic(db, { now: 0 });
  });

  afterEach(async () => {
    await expectInvariant(db, clock());
  });
}

export const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

/** A client of the cart at one address, as a script would drive it. */
export const clientAt = (address: string, headers: Record<string, string> = {}) => {
  const post = (path: string, body: string) =>
    invoke(handlers.session, {
      method: 'POST',
      path,
      body,
      contentType: 'application/x-www-form-urlencoded',
      sourceIp: address,
      headers,
    });
  return {
    slip: async (itemId: number, query: string): Promise<string> => {
      const { json } = await invoke(handlers.items, {
        path: `item/${itemId}`,
        query,
        sourceIp: address,
        headers,
      });
      const slip = json.item?.rate?.slip;
      if (!slip) throw new Error(`no slip: ${JSON.stringify(json.item?.rate ?? json.request)}`);
      return slip;
    },
    add: (slips: string[], sessionId?: string) =>
      post(
        'booking/session',
        [...slips.map((slip) => `slip[]=${slip}`), ...(sessionId ? [`session_id=${sessionId}`] : [])].join(
          '&',
        ),
      ),
    alter: (sessionId: string, line: string, value: string) =>
      post('booking/session', `session_id=${sessionId}&alter[${line}]=${value}`),
    read: (sessionId: string) =>
      invoke(handlers.session, {
        path: 'booking/session',
        query: `session_id=${sessionId}`,
        sourceIp: address,
      }),
    clear: (sessionId: string) => post('booking/session/clear', `session_id=${sessionId}`),
    end: (sessionId: string) => post('booking/session/end', `session_id=${sessionId}`),
    create: (sessionId: string) =>
      invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `session_id=${sessionId}&form[customer_name]=Ada&form[customer_email]=ada@example.com`,
        contentType: 'application/x-www-form-urlencoded',
        sourceIp: address,
        headers,
      }),
  };
};

export const expectHoldLimit = (response: TestResponse, data: Record<string, unknown>) => {
  expect(response.status).toBe(409);
  expect(response.json.request.error).toMatchObject({ id: 'hold_limit', data });
};
