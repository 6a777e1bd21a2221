import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createCredential } from '#lib/auth/credential-admin.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { stockKey } from '#lib/db/keys.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 6 ("partners are held to hold budgets per credential"): a partner's
// credential with `X-On-Behalf: off` becomes a customer whose client address is the X-Forwarded-For it
// sends (the vouching meant for staff integrations), so it picks a fresh address per cart.
const TOUR = 1; // 12 seats: one client may hold 6
const day = addDays(todayIn('America/Toronto', Date.now()), 45);
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let partner: string;
const PARTNER_IP = '192.0.2.77';

beforeAll(async () => {
  db = await createTestDb('review-partner');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST' },
        items: [makeItem({ item_id: TOUR, sku: 'tour', name: 'Tour', stock: 12 })],
        accounts: [
          { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' },
          {
            account_id: 2,
            first_name: 'Agent',
            email: 'agent@test.example.com',
            login_id: 'agent',
            partner: true,
          },
        ],
      }),
    ),
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db));
  const credential = await createCredential(db, { accountId: 2, onBehalf: false, label: 'agent', now: 0 });
  partner = basic(credential.key, credential.secret);
});

const usedOf = async (slot: string): Promise<number> => {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: stockKey(TOUR, slot), ConsistentRead: true }),
  );
  return Number(Item?.used ?? 0);
};

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

describe('review: a partner credential is held to its hold budget', () => {
  // Passes at 73acd22 (resisted): its own credential is budgeted per credential.
  it('cannot hold more than the share of a tour in two carts with its own credential', async () => {
    const d = addDays(day, 1);
    const agent = asPartner({});
    expect((await agent.hold(`date=${d}&param[qty]=6`)).status).toBe(200);
    const more = await agent.hold(`date=${d}&param[qty]=6`);
    expect(more.status).toBe(409);
    expect(more.json.request.error.id).toBe('hold_limit');
  });

  // Failed at 73acd22: with `X-On-Behalf: off` and a different X-Forwarded-For per cart, the partner's
  // credential holds and books all 12 seats (and would any number of unpaid bookings): the vouching of
  // X-Forwarded-For meant for staff integrations is given to a partner's credential too.
  it('cannot escape the budget with X-On-Behalf: off and a made-up X-Forwarded-For per cart', async () => {
    const carts: string[] = [];
    for (const forwarded of ['10.9.0.1', '10.9.0.2']) {
      const agent = asPartner({ 'x-on-behalf': 'off', 'x-forwarded-for': forwarded });
      const held = await agent.hold(`date=${day}&param[qty]=6`);
      if (held.status === 200) {
        carts.push(sessionOf(held).id);
        await agent.book(sessionOf(held).id, `guest${forwarded.replaceAll('.', '')}`);
      }
    }
    // Contract: one partner credential holds at most floor(12 × 0.5) = 6 of the item-date.
    expect(await usedOf(day)).toBeLessThanOrEqual(6);
    expect(carts).toHaveLength(1);
  });

  // Failed at 73acd22: the same vouching gives a partner credential a fresh request budget per made-up
  // X-Forwarded-For: 130 calls in a minute pass where 120 is the limit (a guest without credentials
  // sending the same headers is limited, its X-Forwarded-For ignored).
  it('cannot escape the request rate limit with X-On-Behalf: off and a made-up X-Forwarded-For', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 130; index += 1) {
      const response = await invoke(handlers.items, {
        path: 'item',
        headers: {
          authorization: partner,
          'x-on-behalf': 'off',
          'x-forwarded-for': `10.8.${index >> 8}.${index & 255}`,
        },
        sourceIp: PARTNER_IP,
      });
      statuses.push(response.status);
    }
    expect(statuses).toContain(429);
  });
});
