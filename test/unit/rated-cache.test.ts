import { describe, expect, it } from 'vitest';
import { presentRated } from '#functions/items/present.ts';
import { ratedWires } from '#functions/items/rated-cache.ts';
import { partsOf } from '#lib/catalog/catalog.ts';
import type { RateRequest, StockLookup } from '#lib/catalog/rate-item.ts';
import { type ItemRating, ratingOver } from '#lib/catalog/rated-items.ts';
import { slipExpiresAt } from '#lib/catalog/slip-lines.ts';
import type { StoredConfig, StoredItem } from '#lib/config/model.ts';
import { stringify } from '#lib/http/raw-json.ts';
import { encodeSlip, type SlipKey } from '#lib/slip/codec.ts';
import { NOW } from '#test/support/rating.ts';
import { demoTenantJson, makeTenant } from '#test/support/tenant.ts';

// The rule of the rated items' cache (functions/items/rated-cache.ts), part by part: what keys an entry,
// when it no longer holds, and what it never keeps. Each answer is held to the bytes that rating and
// presenting the same request from scratch give, and each test counts which items were rated again, so a
// cache that kept too much (a stale answer) or too little (no cache) fails.

const KEY: SlipKey = { secret: 'rated-cache-key-0123456789abcdefghijklmnop' };
const OTHER_KEY: SlipKey = { secret: 'rated-cache-key-rotated-0123456789abcdefgh' };
const HOUR = 3_600_000;
/** Two nights from tomorrow (NOW is Monday 2027-01-04, noon in Toronto). */
const REQUEST: RateRequest = { start: '20270105', end: '20270107', params: {}, rules: 'on' };

/** A tenant as one configuration read and one catalogue read give it, with counters of its own. */
function world(change: (json: any) => void = () => {}) {
  const json = demoTenantJson() as any;
  change(json);
  const tenant = makeTenant(json);
  const used = new Map<string, number>();
  return {
    config: { ...tenant, updated_at: 1 } as unknown as StoredConfig,
    all: tenant.items as StoredItem[],
    used,
    stock: ((itemId, slot) => used.get(`${itemId} ${slot}`) ?? 0) as StockLookup,
  };
}
type World = ReturnType<typeof world>;
type Asked = { request?: RateRequest; now?: number; key?: SlipKey };

const ratingOf = (w: World, request: RateRequest, now: number): ItemRating =>
  ratingOver({
    toRate: w.all.filter((item) => item.enabled).map((item) => ({ item, parts: partsOf(item, w.all) })),
    stock: w.stock,
    config: w.config,
    request,
    now,
  });

/** What the cache answers, and the ids of the items it rated for it (none: all of it was kept). */
function served(w: World, { request = REQUEST, now = NOW, key = KEY }: Asked = {}) {
  const rating = ratingOf(w, request, now);
  const rerated: number[] = [];
  const counted: ItemRating = {
    ...rating,
    rate: (entry) => {
      rerated.push(entry.item.item_id);
      return rating.rate(entry);
    },
  };
  const wires = ratedWires(counted, { config: w.config, request, now, key });
  return { json: stringify(wires.map((entry) => entry.wire)), rerated };
}

/** The same request rated and presented from scratch, nothing kept. */
function fromScratch(w: World, { request = REQUEST, now = NOW, key = KEY }: Asked = {}): string {
  const rating = ratingOf(w, request, now);
  return JSON.stringify(
    rating.toRate.map((entry) => {
      const { rated, line } = rating.rate(entry);
      const slip = line ? encodeSlip({ ...line, expiresAt: slipExpiresAt(w.config, now) }, key) : undefined;
      return presentRated(entry.item, rated, { config: w.config, ...(slip ? { slip } : {}) });
    }),
  );
}

const enabledIds = (w: World) => w.all.filter((item) => item.enabled).map((item) => item.item_id);

/** Serves a request and checks it against the answer from scratch; answers which items were rated. */
const serve = (w: World, asked: Asked = {}) => {
  const answer = served(w, asked);
  expect(answer.json).toBe(fromScratch(w, asked));
  return answer;
};

describe('the rated items cache', () => {
  it('serves a repeated request from kept JSON, byte for byte as from scratch', () => {
    const w = world();
    const first = serve(w);
    expect(first.rerated).toEqual(enabledIds(w));
    const again = serve(w);
    expect(again.rerated).toEqual([]);
    expect(again.json).toBe(first.json);
  });

  it('rates again the items whose counters answer otherwise, and only those', () => {
    const w = world();
    serve(w);
    const kayak = ratingOf(w, REQUEST, NOW).toRate.find((entry) => entry.item.item_id === 3);
    const [[itemId, slot] = [0, '']] = ratingOf(w, REQUEST, NOW).rate(
      kayak as NonNullable<typeof kayak>,
    ).reads;
    expect(itemId).toBe(3);
    w.used.set(`3 ${slot}`, 9);
    const after = serve(w);
    expect(after.rerated).toEqual([3]);
    expect(JSON.parse(after.json)[2].rate.available).toBe(1);
    w.used.set(`4 ${slot}`, 0);
    expect(serve(w).rerated).toEqual([]);
  });

  it('starts anew for a configuration read again, and shows what changed in it', () => {
    const w = world();
    const before = serve(w);
    const reread = { ...w, config: { ...w.config, locale: { ...w.config.locale, currency_symbol: 'C$' } } };
    const after = serve(reread);
    expect(after.rerated).toEqual(enabledIds(w));
    expect(after.json).not.toBe(before.json);
    expect(after.json).toContain('C$');
  });

  it('starts anew for items read again, as after a tenant load with new stock', () => {
    const w = world();
    serve(w);
    const loaded = world((json) => {
      for (const item of json.items) if (item.item_id === 3) item.stock = 2;
    });
    const after = serve({ ...w, all: loaded.all });
    expect(after.rerated).toEqual(enabledIds(w));
    expect(JSON.parse(after.json)[2].rate.available).toBe(2);
  });

  it("follows today in the tenant's zone, and re-signs the SLIP for each second in between", () => {
    const w = world();
    const noon = serve(w);
    // A second later, and eight hours later (past midnight UTC, still Monday in Toronto): kept, re-signed.
    const second = serve(w, { now: NOW + 1000 });
    expect(second.rerated).toEqual([]);
    expect(second.json).not.toBe(noon.json);
    expect(serve(w, { now: NOW + 8 * HOUR }).rerated).toEqual([]);
    // One in the morning in Toronto: Tuesday, and the cabins' lead time refuses the stay that starts today.
    const tuesday = serve(w, { now: NOW + 13 * HOUR });
    expect(tuesday.rerated).toEqual(enabledIds(w));
    expect(JSON.parse(tuesday.json)[0].rate.status).not.toBe(JSON.parse(noon.json)[0].rate.status);
  });

  it('keeps each request apart: other dates, parameters or rules never share an entry', () => {
    const w = world();
    serve(w);
    const others: RateRequest[] = [
      { ...REQUEST, end: '20270108' },
      { ...REQUEST, params: { adults: 2 } },
      { ...REQUEST, rules: 'soft' },
      { ...REQUEST, discountCode: 'PADDLE5' },
    ];
    for (const request of others) expect(serve(w, { request }).rerated).toEqual(enabledIds(w));
    for (const request of [REQUEST, ...others]) expect(serve(w, { request }).rerated).toEqual([]);
  });

  it('signs with the key of the moment, never a SLIP it kept of another key', () => {
    const w = world();
    const before = serve(w);
    const rotated = serve(w, { key: OTHER_KEY });
    expect(rotated.rerated).toEqual([]);
    expect(rotated.json).not.toBe(before.json);
  });
});
