import { randomUUID } from 'node:crypto';
import type { RateItemsOptions, RateRequest, ToRate } from '#lib/catalog/index.ts';

import {
  type ItemRating,
  prepareRating,
  type RatedWithSlip,
  type SlipLine,
  slipExpiresAt,
} from '#lib/catalog/index.ts';

import type { StoredConfig, StoredItem } from '#lib/config/index.ts';
import { RawJson } from '#lib/http/raw-json.ts';
import { todayIn } from '#lib/kernel/dates.ts';
import { SizedLru } from '#lib/kernel/sized-lru.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { encodeSlip, type SlipKey } from '#lib/slip/index.ts';
import { presentRated } from './present.ts';

/*
 * The rated items' wire JSON an instance keeps between requests, so a repeated search is neither rated nor
 * serialized again. Its correctness rule: a kept JSON is served only to a request whose answer, rated and
 * presented from scratch, would be the same bytes but for the SLIP. So an entry
 * - belongs to one configuration object: a configuration read again (after CONFIG_CACHE_MS, or a tenant
 *   load with new prices, rules or taxes) starts with none;
 * - is keyed by the item and package part objects (those of one catalogue read: a tenant load gives new
 *   ones), the whole rating request (dates, times, parameters, discount code, rules, opt-ins) and today's
 *   date in the tenant's zone (lead times, advance limits);
 * - holds only while every counter lookup its rating made answers as it did then: the counters are read for
 *   every request (`prepareRating`), never kept;
 * - never keeps a SLIP of a request: the SLIP is spliced in, signed for the request's own expiry second
 *   with the first key of the moment.
 * The caller is not part of the key: what a caller may be answered is in the request (`rules`) and in which
 * items it is given (visibility), never inside one item's JSON.
 * Tests: test/unit/rated-cache.test.ts (each part of the rule), test/integration/rated-wire.test.ts and
 * rated-wire-attacks.test.ts (whole answers against ones rated from scratch).
 */

/** A rated item as an answer takes it: its wire JSON (SLIP included) and how many are available. */
export interface RatedWire {
  item: StoredItem;
  available: number;
  wire: RawJson;
}

/** A rated item's wire JSON as kept, with what tells whether it still holds. */
interface KeptWire {
  reads: RatedWithSlip['reads'];
  available: number;
  line?: SlipLine;
  /** The JSON before and after the SLIP's value; all of it in `before` when there is no SLIP. */
  before: string;
  after: string;
  /** The last SLIP made from `line`: the same for every request of the same second and key. */
  signed?: { expiresAt: number; key: SlipKey; slip: string };
}

/**
 * How much kept JSON an instance holds (characters, about bytes): a 200-item list for 7 nights is about
 * half a million, so some thirty searches. The least recently used goes first.
 */
export const KEPT_WIRE_CHARS = 16_000_000;

const keptWires = new WeakMap<StoredConfig, SizedLru<string, KeptWire>>();
const keptFor = (config: StoredConfig): SizedLru<string, KeptWire> => {
  let kept = keptWires.get(config);
  if (!kept) {
    kept = new SizedLru<string, KeptWire>({
      maxSize: KEPT_WIRE_CHARS,
      sizeOf: (wire) => wire.before.length + wire.after.length + 32 * wire.reads.length + 64,
    });
    keptWires.set(config, kept);
  }
  return kept;
};

// Item objects by identity: a catalogue read again gives other serials, so other keys.
let items = 0;
const serials = new WeakMap<StoredItem, number>();
const serialOf = (item: StoredItem): number => {
  let serial = serials.get(item);
  if (serial === undefined) {
    serial = ++items;
    serials.set(item, serial);
  }
  return serial;
};

// Stands for the SLIP in a kept JSON: a string no item or request can hold.
const SLIP_MARK = `slip:${randomUUID()}`;
const SLIP_MARK_JSON = `"${SLIP_MARK}"`;

/** Rates and presents one item, keeping its JSON split around the SLIP. */
function rateAndKeep(entry: ToRate, rating: ItemRating, config: StoredConfig): KeptWire {
  const { rated, line, reads } = rating.rate(entry);
  const json = JSON.stringify(
    presentRated(entry.item, rated, { config, ...(line ? { slip: SLIP_MARK } : {}) }),
  );
  const at = line ? json.indexOf(SLIP_MARK_JSON) : -1;
  if (!line || at < 0) return { reads, available: rated.available, before: json, after: '' };
  return {
    reads,
    available: rated.available,
    line,
    before: json.slice(0, at),
    after: json.slice(at + SLIP_MARK_JSON.length),
  };
}

/** The kept JSON with a SLIP that expires at `expiresAt`, signed once a second and key. */
function wireOf(kept: KeptWire, key: SlipKey, expiresAt: number): RawJson {
  if (!kept.line) return new RawJson(kept.before);
  if (kept.signed?.expiresAt !== expiresAt || kept.signed.key !== key) {
    kept.signed = { expiresAt, key, slip: encodeSlip({ ...kept.line, expiresAt }, key) };
  }
  return new RawJson(`${kept.before}"${kept.signed.slip}"${kept.after}`);
}

/**
 * The wire JSON of each item of a rating, SLIP included: kept JSON where the rule above says it still
 * holds, else rated, presented and kept.
 */
export function ratedWires(
  rating: ItemRating,
  options: { config: StoredConfig; request: RateRequest; now: number; key: SlipKey },
): RatedWire[] {
  const { config, request, now, key } = options;
  const asked = `${JSON.stringify(request)}@${todayIn(config.company.timezone, now)}`;
  const expiresAt = slipExpiresAt(config, now);
  const kept = keptFor(config);
  return rating.toRate.map((entry) => {
    const id = `${[entry.item, ...entry.parts.map((part) => part.item)].map(serialOf).join(',')}:${asked}`;
    let wire = kept.get(id);
    if (!wire?.reads.every(([itemId, slot, used]) => rating.stock(itemId, slot) === used)) {
      wire = rateAndKeep(entry, rating, config);
      kept.set(id, wire);
    }
    return { item: entry.item, available: wire.available, wire: wireOf(wire, key, expiresAt) };
  });
}

/**
 * Rates items and presents them for the wire, with a SLIP on each bookable one. The counters of all of
 * them are read at once; each item's JSON is made again only when something it depends on changed.
 */
export async function rateAndPresent(
  db: Db,
  options: RateItemsOptions & { keys: readonly SlipKey[] },
): Promise<RatedWire[]> {
  const [key] = options.keys;
  if (!key) throw new Error('No SLIP signing key configured');
  return ratedWires(await prepareRating(db, options), { ...options, key });
}
