import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { presentItem, presentItemJson, presentRated } from '#functions/items/present.ts';
import { rateAndPresent } from '#functions/items/rated-cache.ts';
import {
  type CatalogReader,
  createCatalogReader,
  paramLabels,
  ratingTenant,
  stockForRating,
} from '#lib/catalog/catalog.ts';
import { type RateRequest, rateItem } from '#lib/catalog/rate-item.ts';
import { slipExpiresAt, slipLineFor } from '#lib/catalog/slip-lines.ts';
import type { StoredConfig } from '#lib/config/model.ts';
import { getConfig } from '#lib/config/repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { stringify } from '#lib/http/raw-json.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { encodeSlip } from '#lib/slip/codec.ts';
import { TEST_SLIP_KEY } from '#test/support/deps.ts';
import { createTestDb, setUsed } from '#test/support/dynamo.ts';
import { demoTenantJson, makeTenant } from '#test/support/tenant.ts';

// The items function keeps each rated item's JSON between requests (functions/items/rated-cache.ts). Whatever
// changes between two requests (the counters, the date, the SLIP's expiry, a tenant load), each answer
// must be byte for byte what rating and presenting that request from scratch gives.

let db: Db;
let catalog: CatalogReader;
const today = todayIn('America/Toronto', Date.now());

/** What the service answered before it kept anything: every item rated and presented for this request. */
async function fromScratch(config: StoredConfig, request: RateRequest, now: number) {
  const all = await catalog(config);
  const options = { items: all.filter((item) => item.enabled), all, request, config, now };
  const { toRate, stock } = await stockForRating(db, options);
  const tenant = ratingTenant(config);
  const labels = paramLabels(config);
  return toRate.map(({ item, parts }) => {
    const rated = rateItem({ item, parts, request, stock, tenant, labels, now });
    const line = slipLineFor({ item, rated, request, config });
    const slip = line
      ? encodeSlip({ ...line, expiresAt: slipExpiresAt(config, now) }, TEST_SLIP_KEY)
      : undefined;
    return {
      available: rated.available,
      wire: presentRated(item, rated, { config, ...(slip ? { slip } : {}) }),
    };
  });
}

/** The service's answer for the same request: what it keeps, spliced. */
async function served(config: StoredConfig, request: RateRequest, now: number) {
  const all = await catalog(config);
  const items = all.filter((item) => item.enabled);
  const rated = await rateAndPresent(db, { items, all, request, config, now, keys: [TEST_SLIP_KEY] });
  return rated.map((entry) => ({ available: entry.available, wire: entry.wire }));
}

const expectSame = async (config: StoredConfig, request: RateRequest, now: number) => {
  const [answer, expected] = [await served(config, request, now), await fromScratch(config, request, now)];
  expect(stringify(answer)).toBe(JSON.stringify(expected));
};

const request = fc
  .record({
    // Near today (lead times), near the booking horizon (365 and 180 days), or anywhere in the year.
    startIn: fc.oneof(
      fc.integer({ min: -2, max: 4 }),
      fc.integer({ min: 176, max: 183 }),
      fc.integer({ min: 360, max: 368 }),
      fc.integer({ min: -2, max: 400 }),
    ),
    length: fc.integer({ min: 0, max: 9 }),
    hours: fc.option(fc.tuple(fc.integer({ min: 6, max: 20 }), fc.integer({ min: 1, max: 4 }))),
    params: fc.record(
      {
        adults: fc.integer({ min: 0, max: 7 }),
        children: fc.integer({ min: 0, max: 4 }),
        qty: fc.integer({ min: 0, max: 4 }),
      },
      { requiredKeys: [] },
    ),
    discountCode: fc.constantFrom(undefined, 'SUMMER10', 'PADDLE5', 'NOPE'),
    rules: fc.constantFrom('on' as const, 'soft' as const, 'off' as const),
    optIn: fc.constantFrom(undefined, [7]),
  })
  .map(({ startIn, length, hours, params, discountCode, rules, optIn }): RateRequest => {
    const start = addDays(today, startIn);
    return {
      start,
      ...(length ? { end: addDays(start, length) } : {}),
      ...(hours ? { startTime: hours[0] * 60, endTime: (hours[0] + hours[1]) * 60 } : {}),
      params,
      rules,
      ...(discountCode ? { discountCode } : {}),
      ...(optIn ? { optIn: [...optIn] } : {}),
    };
  });

/** Counters to set before a request: an item (1–9), a day from its start, how many units are used. */
const counters = fc.array(
  fc.record({
    itemId: fc.integer({ min: 1, max: 9 }),
    day: fc.integer({ min: -1, max: 10 }),
    used: fc.integer({ min: 0, max: 12 }),
  }),
  { maxLength: 6 },
);

beforeAll(async () => {
  db = await createTestDb('ratedwire');
  await writeTenant(db, makeTenant(demoTenantJson()), Date.now());
  catalog = createCatalogReader(db, { reuse: true });
});

describe('the rated items an items function keeps', () => {
  it('answers what rating the request from scratch answers, as counters, dates and SLIP expiries change', async () => {
    const config = (await getConfig(db)) as StoredConfig;
    const now = Date.now();
    await fc.assert(
      fc.asyncProperty(
        request,
        counters,
        fc.integer({ min: 0, max: 3 * 86_400_000 }),
        async (asked, changes, later) => {
          // Kept on the first answer, then served again after the counters changed, and on a later day
          // (another today, another SLIP expiry).
          await expectSame(config, asked, now);
          for (const change of changes) {
            await setUsed(db, change.itemId, addDays(asked.start, change.day), change.used);
          }
          await expectSame(config, asked, now);
          await expectSame(config, asked, now + later);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers a tenant load’s new prices and stock at once', async () => {
    const asked: RateRequest = {
      start: addDays(today, 50),
      end: addDays(today, 53),
      params: {},
      rules: 'on',
    };
    const before = (await getConfig(db)) as StoredConfig;
    const first = JSON.parse(stringify(await served(before, asked, Date.now())));
    const json = demoTenantJson() as { items: { item_id: number; stock: number; price?: unknown }[] };
    for (const item of json.items) if (item.item_id === 3) item.stock = 2;
    await writeTenant(db, makeTenant(json), Date.now() + 1000);
    const after = (await getConfig(db)) as StoredConfig;
    const second = JSON.parse(stringify(await served(after, asked, Date.now())));
    await expectSame(after, asked, Date.now());
    const kayak = (answer: { wire: { item_id: number; stock: number } }[]) =>
      answer.find((entry) => entry.wire.item_id === 3)?.wire.stock;
    expect([kayak(first), kayak(second)]).toEqual([10, 2]);
  });
});

describe('the unrated items an items function keeps', () => {
  it('are the items as presented, and a tenant load’s change shows at once', async () => {
    const before = (await getConfig(db)) as StoredConfig;
    for (const item of await catalog(before)) {
      expect(presentItemJson(item, before).json).toBe(JSON.stringify(presentItem(item, before)));
    }
    const json = demoTenantJson() as { items: { item_id: number; name: string }[] };
    for (const item of json.items) if (item.item_id === 3) item.name = 'Kayak, renamed';
    await writeTenant(db, makeTenant(json), Date.now() + 2000);
    const after = (await getConfig(db)) as StoredConfig;
    const kayak = (await catalog(after)).find((item) => item.item_id === 3);
    expect(kayak).toBeDefined();
    expect(JSON.parse(presentItemJson(kayak as NonNullable<typeof kayak>, after).json).name).toBe(
      'Kayak, renamed',
    );
  });
});
