import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { expectInvariant, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// settings.limits.ipv6_prefix: where ISPs give each subscriber a /56 or /48, one guest owns 256 or
// 65,536 /64s, and a /64 key would give it as many budgets. The tenant can widen the key.
// No re-hold cooldown: these tests end a cart and hold the same item-date again at once.
const LIMITS = {
  requests_per_minute: 5,
  writes_per_minute: 100,
  open_sessions_per_client: 1,
  rehold_cooldown_minutes: 0,
};
const KAYAK = 1;
const START = Date.UTC(2027, 0, 4, 12, 0, 5);
const day = addDays(todayIn('America/Toronto', START), 30);

const tenantWith = async (ipv6Prefix: number | undefined) => {
  const db = await createTestDb(`v6-${ipv6Prefix ?? 'default'}`);
  const limits = ipv6Prefix === undefined ? LIMITS : { ...LIMITS, ipv6_prefix: ipv6Prefix };
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', limits },
        items: [makeItem({ item_id: KAYAK, stock: 50 })],
      }),
    ),
    Date.now(),
  );
  let now = START;
  const handlers = createAllHandlers(testDeps(db, { clock: () => now }));
  return {
    db,
    nextMinute: () => {
      now += 60_000;
    },
    ping: (sourceIp: string) => invoke(handlers.meta, { path: 'ping', sourceIp }),
    /** Opens a holding cart from one address (a SLIP rated and added from it). */
    hold: async (sourceIp: string) => {
      const rated = await invoke(handlers.items, { path: `item/${KAYAK}`, query: `date=${day}`, sourceIp });
      const slip = rated.json.item?.rate?.slip;
      if (!slip) throw new Error(`no slip: ${JSON.stringify(rated.json.item?.rate ?? rated.json.request)}`);
      return invoke(handlers.session, {
        method: 'POST',
        path: 'booking/session',
        body: `slip[]=${slip}`,
        contentType: 'application/x-www-form-urlencoded',
        sourceIp,
      });
    },
    end: (sourceIp: string, sessionId: string) =>
      invoke(handlers.session, { path: 'booking/session/end', query: `session_id=${sessionId}`, sourceIp }),
  };
};

type Tenant = Awaited<ReturnType<typeof tenantWith>>;

/** Calls ping once from each address in turn until one more than the budget; the statuses in order. */
const burst = async (tenant: Tenant, addresses: string[]) => {
  tenant.nextMinute();
  const statuses: number[] = [];
  for (let index = 0; index <= LIMITS.requests_per_minute; index += 1) {
    statuses.push((await tenant.ping(addresses[index % addresses.length] as string)).status);
  }
  return statuses;
};

// Addresses in different /64s of one /56, and in different /56s of one /48.
const sameSlash56 = ['2001:db8:aa:1100::1', '2001:db8:aa:11ff::2', '2001:db8:aa:1142::3'];
const sameSlash48 = ['2001:db8:bb:100::1', '2001:db8:bb:ff00::2', '2001:db8:bb:4200::3'];

let byDefault: Tenant;
let wide56: Tenant;
let wide48: Tenant;

beforeAll(async () => {
  [byDefault, wide56, wide48] = await Promise.all([tenantWith(undefined), tenantWith(56), tenantWith(48)]);
});

describe('settings.limits.ipv6_prefix for request limits', () => {
  it('counts an IPv6 client by its /64 by default: other /64s of its /56 have budgets of their own', async () => {
    expect((await burst(byDefault, sameSlash56)).every((status) => status === 200)).toBe(true);
    const oneSlash64 = ['2001:db8:cc:1::1', '2001:db8:cc:1::2', '2001:db8:cc:1:ffff::3'];
    expect((await burst(byDefault, oneSlash64)).at(-1)).toBe(429);
  });

  it('counts a whole /56 as one client at 56, and a /56 apart as another', async () => {
    expect((await burst(wide56, sameSlash56)).at(-1)).toBe(429);
    expect((await wide56.ping('2001:db8:aa:1200::1')).status).toBe(200);
    expect((await burst(wide56, sameSlash48)).every((status) => status === 200)).toBe(true);
  });

  it('counts a whole /48 as one client at 48, and leaves IPv4 clients by their address', async () => {
    expect((await burst(wide48, sameSlash48)).at(-1)).toBe(429);
    expect((await wide48.ping('2001:db8:bc::1')).status).toBe(200);
    expect((await burst(wide48, ['198.51.100.1', '198.51.100.2'])).every((status) => status === 200)).toBe(
      true,
    );
  });
});

describe('settings.limits.ipv6_prefix for hold budgets', () => {
  it('lets each /64 of a /56 open its own cart by default', async () => {
    byDefault.nextMinute();
    const first = await byDefault.hold(sameSlash56[0] as string);
    const second = await byDefault.hold(sameSlash56[1] as string);
    expect([first.status, second.status]).toEqual([200, 200]);
    await byDefault.end(sameSlash56[0] as string, sessionOf(first).id);
    await byDefault.end(sameSlash56[1] as string, sessionOf(second).id);
    await expectInvariant(byDefault.db);
  });

  it.each([
    ['56', () => wide56, sameSlash56],
    ['48', () => wide48, sameSlash48],
  ])('counts the open carts of a whole /%s as one client', async (_, tenantOf, addresses) => {
    const tenant = tenantOf();
    tenant.nextMinute();
    const first = await tenant.hold(addresses[0] as string);
    expect(first.status).toBe(200);
    tenant.nextMinute();
    const second = await tenant.hold(addresses[1] as string);
    expect(second.status).toBe(409);
    expect(second.json.request.error).toMatchObject({ id: 'hold_limit', data: { open_sessions: 1 } });
    await tenant.end(addresses[0] as string, sessionOf(first).id);
    tenant.nextMinute();
    const third = await tenant.hold(addresses[2] as string);
    expect(third.status).toBe(200);
    await tenant.end(addresses[2] as string, sessionOf(third).id);
    await expectInvariant(tenant.db);
  });
});
