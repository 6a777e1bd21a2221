import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { ApiDeps } from '#lib/http/group-handler.ts';
import { addDays, localInstant, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import { type SlipKey, verifySlip } from '#lib/slip/codec.ts';
import { TEST_SLIP_KEY, testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke, type TestResponse } from '#test/support/events.ts';
import {
  bench,
  client,
  day,
  db,
  demoJson,
  failureOf,
  itemOf,
  main,
  pausedAfterConfig,
  type Rated,
  setUpRatedWireWorld,
  slipsOf,
  TZ,
  untimed,
  verify,
  YEAR_MS,
} from '#test/support/rated-wire-world.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeTenant } from '#test/support/tenant.ts';

vi.mock('#lib/catalog/rate-item.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#lib/catalog/rate-item.ts')>();
  return { ...actual, rateItem: vi.fn(actual.rateItem) };
});

// Kept rated JSON as time moves, by this file's own clock: holds expiring, SLIPs of each second and key,
// midnight, tenant loads and a second tenant. The attacks' world and why: test/support/rated-wire-world.ts.

let now = Date.now();
const clock = () => now;
/** Moves the clock forward to `at`, never back (holds and sessions expire by it). */
const advanceTo = (at: number) => {
  now = Math.max(now, at);
};
setUpRatedWireWorld({ clock });

describe('kept rated JSON against the counters', () => {
  it('answers a hold that expired, and the sweep that released it', async () => {
    advanceTo(Date.now());
    const start = addDays(day, 1);
    const query = `date=${start}&param[qty]=3`;
    const before = await main.rate('before the hold', { path: 'item', query });
    const available = before.json.items['4'].rate.available as number;
    const added = await client().add([before.json.items['4'].rate.slip]);
    expect(added.status).toBe(200);
    const held = await main.rate('held', { path: 'item', query });
    expect(held.json.items['4'].rate.available).toBe(available - 3);
    now += 16 * 60_000;
    // Expired but not swept: whatever the counters say, the kept answer must say it too.
    await main.rate('expired, not swept', { path: 'item', query });
    await createSweeper({ db, clock })();
    const swept = await main.rate('swept', { path: 'item', query });
    expect(swept.json.items['4'].rate.available).toBe(available);
    const slip = verify(swept.json.items['4'].rate.slip);
    expect(slip.expiresAt).toBe(unixSeconds(now) + 120 * 60);
  });
});

describe('kept rated JSON against the clock and the SLIP', () => {
  it('signs a SLIP for each second from the request, never a kept one of another second', async () => {
    advanceTo(Date.now());
    now = Math.floor(now / 1000) * 1000 + 1000 + 100;
    const query = `date=${addDays(day, 2)}&param[qty]=1`;
    const first = await main.rate('first second', { path: 'item/4', query });
    const slip = first.json.item.rate.slip as string;
    expect(verify(slip).expiresAt).toBe(unixSeconds(now) + 120 * 60);
    now += 800;
    const same = await main.rate('same second', { path: 'item/4', query });
    expect(same.rerated).toBe(0);
    expect(same.json.item.rate.slip).toBe(slip);
    now += 300;
    const next = await main.rate('next second', { path: 'item/4', query });
    expect(next.rerated).toBe(0);
    expect(next.json.item.rate.slip).not.toBe(slip);
    expect(verify(next.json.item.rate.slip).expiresAt).toBe(unixSeconds(now) + 120 * 60);
    // A second instance's clock a little behind: the SLIP of its own second, not the last one signed.
    now -= 1100;
    const behind = await main.rate('a second back', { path: 'item/4', query });
    expect(behind.json.item.rate.slip).toBe(slip);
    now += 1100;
    // Past the first SLIP's expiry, within the same day where possible: a SLIP valid from now.
    now += 121 * 60_000;
    const later = await main.rate('two hours later', { path: 'item/4', query });
    expect(verify(later.json.item.rate.slip).expiresAt).toBe(unixSeconds(now) + 120 * 60);
    expect(failureOf(slip)).toBe('expired');
    // The kept SLIP holds a line as a fresh one does.
    const added = await client().add([later.json.item.rate.slip]);
    expect(added.status).toBe(200);
    await main.rate('held', { path: 'item/4', query });
    await client().end(sessionOf(added).id);
  });

  it('signs with the first key of the moment after a key rotation, never a kept SLIP of the old key', async () => {
    advanceTo(Date.now());
    const second: SlipKey = { secret: 'rotated-slip-key-0123456789abcdefghijklmn' };
    let keys: SlipKey[] = [TEST_SLIP_KEY];
    const deps = (ttl: number): ApiDeps => ({
      ...testDeps(db, { clock }),
      configTtlMs: ttl,
      slipKeys: async () => keys,
    });
    const attacked = createAllHandlers(deps(YEAR_MS));
    const query = `date=${addDays(day, 3)}&param[qty]=1`;
    const both = async (step: string) => {
      const answer = await invoke(attacked.items, { path: 'item/4', query });
      const expected = await invoke(createAllHandlers(deps(0)).items, { path: 'item/4', query });
      expect(untimed(answer.text), step).toBe(untimed(expected.text));
      return answer.json.item.rate.slip as string;
    };
    const before = await both('the first key');
    keys = [second, TEST_SLIP_KEY];
    const rotated = await both('rotated, same second');
    expect(rotated).not.toBe(before);
    expect(verifySlip(rotated, { keys: [second], tenant: 'demo', now }).itemId).toBe(4);
    keys = [TEST_SLIP_KEY];
    expect(await both('back to the first key')).toBe(before);
  });

  it('follows today across midnight: lead times, advance limits, today and tomorrow', async () => {
    advanceTo(Date.now());
    const midnight = localInstant(addDays(todayIn(TZ, now), 1), 0, TZ);
    now = midnight - 30_000;
    const eve = todayIn(TZ, now);
    const queries = {
      bike: { path: 'item/4', query: `date=${eve}&param[qty]=1` },
      cabin: { path: 'item/1', query: `start_date=${addDays(eve, 1)}&end_date=${addDays(eve, 4)}` },
      paddle: {
        path: 'item/5',
        query: `date=${addDays(eve, 91)}&start_time=1000&end_time=1100&param[qty]=1`,
      },
      todayWord: { path: 'item/4', query: 'date=today&param[qty]=1' },
      tomorrowWord: { path: 'item', query: 'start_date=tomorrow&end_date=tomorrow&param[qty]=1' },
      list: { path: 'item', query: `start_date=${addDays(eve, 1)}&end_date=${addDays(eve, 3)}` },
    };
    const before: Record<string, Rated> = {};
    for (const [name, request] of Object.entries(queries))
      before[name] = await main.rate(`eve ${name}`, request);
    for (const [name, request] of Object.entries(queries)) await main.rate(`eve again ${name}`, request);
    expect(before.bike?.json.item.rate.status).toBe('AVAILABLE');
    expect(before.paddle?.json.item.rate.status).toBe('RULE');
    now = midnight + 30_000;
    const after: Record<string, Rated> = {};
    for (const [name, request] of Object.entries(queries))
      after[name] = await main.rate(`morning ${name}`, request);
    expect(after.bike?.json.item.rate.status).toBe('RULE');
    expect(after.bike?.json.item.rate.slip).toBeUndefined();
    expect(after.paddle?.json.item.rate.status).toBe('AVAILABLE');
    expect(after.todayWord?.json.item.rate.start_date).toBe(addDays(eve, 1));
    if (before.cabin?.json.item.rate.status === 'AVAILABLE') {
      expect(after.cabin?.json.item.rate.status).toBe('RULE');
    }
    // A clock a minute behind (another instance): yesterday's answers again, not this morning's.
    now = midnight - 20_000;
    for (const [name, request] of Object.entries(queries)) await main.rate(`eve once more ${name}`, request);
    now = midnight + 40_000;
  });
});

// Tenant loads: the production configuration TTL (15 s), on a table of their own.
let loadDb: Db;
const loads = bench({ db: () => loadDb, configTtlMs: 15_000 });

describe('kept rated JSON across tenant loads (15 s configuration TTL)', () => {
  beforeAll(async () => {
    loadDb = await createTestDb('ratedload');
    await writeTenant(loadDb, makeTenant(demoJson()), Date.now());
  });

  it('answers a load’s prices, stock, items, codes and SLIP minutes once its configuration is read again, and the counters at once', async () => {
    advanceTo(Date.now());
    const query = `date=${day}&param[qty]=2&discount_code=PADDLE5`;
    const before = await loads.rate('before the load', { path: 'item', query });
    await loads.rate('before the load, again', { path: 'item', query });
    expect(before.json.items['3']).toMatchObject({ stock: 10, discount: '5.00' });
    const changed = demoJson((json) => {
      itemOf(json, 3).stock = 3;
      itemOf(json, 3).params.qty.price = '50.00';
      json.items = json.items.filter((item: any) => item.item_id !== 4);
      json.discounts.find((discount: any) => discount.code === 'PADDLE5').value = '7.00';
      json.settings.slip_minutes = 30;
    });
    await writeTenant(loadDb, makeTenant(changed), now);
    // Within the TTL the attacked set may still answer the old settings and catalogue (by design), but a
    // hold made now must show in its counters at once.
    now += 1000;
    const session = sessionOf(await loads.client().add([before.json.items['3'].rate.slip]));
    const within = await invoke(loads.handlers().items, { path: 'item', query });
    const fresh = await invoke(loads.fresh().items, { path: 'item', query });
    expect(within.json.items['3'].rate.dates[day].stock.B).toBe(
      fresh.json.items['3'].rate.dates[day].stock.B,
    );
    expect(within.json.items['3'].rate.dates[day].stock.B).toBe(2);
    now += 15_000;
    const after = await loads.rate('15 s after the load', { path: 'item', query });
    expect(after.json.items['3']).toMatchObject({ stock: 3, discount: '7.00' });
    expect(after.json.items['4']).toBeUndefined();
    // Two of the three kayaks are held now: sold out for two, so the SLIP minutes show on the others'.
    expect(after.json.items['3'].rate.status).toBe('SOLDOUT');
    expect(slipsOf(after.json).length).toBeGreaterThan(0);
    for (const slip of slipsOf(after.json)) expect(verify(slip).expiresAt).toBe(unixSeconds(now) + 30 * 60);
    await loads.rate('15 s after the load, again', { path: 'item', query });
    await loads.rate('15 s after the load, one item', { path: 'item/3', query });
    await loads.client().end(session?.id);
    await loads.rate('released', { path: 'item', query });
  });

  it('answers a load that restores the first file (the same items again, new objects)', async () => {
    advanceTo(Date.now());
    const query = `date=${day}&param[qty]=2&discount_code=PADDLE5`;
    await loads.rate('before', { path: 'item', query });
    await writeTenant(loadDb, makeTenant(demoJson()), now);
    now += 16_000;
    const after = await loads.rate('16 s after', { path: 'item', query });
    expect(after.json.items['3']).toMatchObject({ stock: 10, discount: '5.00' });
    expect(after.json.items['4']).toBeDefined();
  });

  // `writeTenant` stamps the configuration's updated_at before it writes the items. Until 24 November,
  // `createCatalogReader` kept whatever items it read under that updated_at: a search whose configuration
  // was due while the load was writing kept the old items under the new stamp, and they were served (and
  // rated into kept JSON) until the next tenant load, not 15 s. It now keeps a read only if every item in
  // it carries the configuration's stamp.
  it('shows a load within 15 s even when a search reads the configuration while the load is writing', async () => {
    advanceTo(Date.now());
    const query = `date=${day}&param[qty]=1`;
    await loads.rate('before the load', { path: 'item', query });
    const changed = demoJson((json) => {
      itemOf(json, 3).params.qty.price = '61.00';
      itemOf(json, 3).stock = 4;
    });
    // The attacked set's configuration is due again when the search arrives, mid-load.
    now += 16_000;
    const during: TestResponse[] = [];
    await writeTenant(
      pausedAfterConfig(loadDb, async () => {
        during.push(await invoke(loads.handlers().items, { path: 'item', query }));
      }),
      makeTenant(changed),
      now,
    );
    expect(during).toHaveLength(1);
    for (const wait of [16_000, 60_000, 3_600_000]) {
      now += wait;
      const after = await loads.rate(`${wait / 1000} s after the load`, { path: 'item', query });
      expect(after.json.items['3']).toMatchObject({ stock: 4, param: { qty: { price: '61.00' } } });
    }
  });

  // Beyond the items function: the session function keeps the catalogue the same way, and holds are
  // conditioned on the kept item's capacity. Before the fix above, this oversold.
  it('binds new holds to the loaded stock within 15 s even when a cart was added to while the load was writing', async () => {
    advanceTo(Date.now());
    const date = addDays(day, 40);
    const query = `date=${date}&param[qty]=1`;
    const before = await loads.rate('before', { path: 'item/4', query });
    const slip = before.json.item.rate.slip as string;
    const first = sessionOf(await loads.client().add([slip]));
    now += 16_000;
    // Bikes go from 8 to 2; a cart adds a bike (its items from the catalogue) while the load is writing.
    let second: { id: string } | undefined;
    await writeTenant(
      pausedAfterConfig(loadDb, async () => {
        const added = await loads.client().add([slip]);
        expect(added.status).toBe(200);
        second = sessionOf(added);
      }),
      makeTenant(demoJson((json) => Object.assign(itemOf(json, 4), { stock: 2 }))),
      now,
    );
    now += 16_000;
    // Two bikes are held by the two carts, all the load left: no cart may hold more. A function that read
    // the items anew refuses (the control); so must the one that keeps its catalogue, 16 s after the load.
    const control = await sessionClient(loads.fresh()).alter(second?.id as string, { 1: '4' });
    expect(control.status).toBe(409);
    const altered = await loads.client().alter(second?.id as string, { 1: '4' });
    expect(altered.status, 'holds 4 more bikes of the 2 the load left').toBe(409);
    await loads.client().end(first.id);
    await loads.client().end(second?.id as string);
  });
});

describe('kept rated JSON of two tenants in one process', () => {
  let otherDb: Db;
  const other = bench({ db: () => otherDb, configTtlMs: YEAR_MS });

  beforeAll(async () => {
    otherDb = await createTestDb('ratedother');
    await writeTenant(otherDb, makeTenant(demoJson((json) => Object.assign(json, { tenant: 'other' }))), now);
  });

  it('never hands one tenant’s SLIP to the other', async () => {
    advanceTo(Date.now());
    const query = `start_date=${addDays(day, 9)}&end_date=${addDays(day, 11)}&param[adults]=2&param[qty]=1`;
    for (let round = 0; round < 3; round += 1) {
      const mine = await main.rate(`demo ${round}`, { path: 'item', query });
      const theirs = await other.rate(`other ${round}`, { path: 'item', query });
      for (const slip of slipsOf(mine.json)) {
        expect(verify(slip).tenant).toBe('demo');
        expect(failureOf(slip, 'other')).toBe('foreign');
      }
      for (const slip of slipsOf(theirs.json)) {
        expect(verify(slip, 'other').tenant).toBe('other');
        expect(failureOf(slip)).toBe('foreign');
      }
      now += 400;
    }
  });
});
