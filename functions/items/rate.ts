import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { todayIn, toLocalDate } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import type { StoredConfig, StoredItem } from '#lib/db/tenant-repository.ts';
import {
  paramLabels,
  type RateItemsOptions,
  ratingTenant,
  stockForRating,
  type ToRate,
} from '#lib/domain/catalog.ts';
import { type SlipLine, slipExpiresAt, slipLineFor } from '#lib/domain/slip-contents.ts';
import { RawJson } from '#lib/http/raw-json.ts';
import { type RateItemInput, rateItem } from '#lib/rating/rate-item.ts';
import { encodeSlip, type SlipKey } from '#lib/slip/codec.ts';
import { presentRated } from './present.ts';
import type { ItemQuery } from './query.ts';

/** The `query` object and `request` echo of a rated response (reference §2.1). */
export function ratedEcho(rated: NonNullable<ItemQuery['rated']>) {
  const end = rated.end ?? rated.start;
  return {
    query: {
      start_date: rated.start,
      end_date: end,
      discount_code: rated.discountCode ?? false,
      giftcert_code: rated.giftcertCode ?? false,
      exclude: false,
      param: rated.requestedParams,
      local_start_date: toLocalDate(rated.start),
      local_end_date: toLocalDate(end),
    },
    request: { start_date: rated.start, end_date: end, param: rated.requestedParams },
  };
}

/** A rated item as an answer takes it: its wire JSON (SLIP included) and how many are available. */
export interface RatedWire {
  item: StoredItem;
  available: number;
  wire: RawJson;
}

/**
 * A rated item's wire JSON, kept for the next request that asks the same of the same item. Rating and
 * presenting are a function of the item (and its parts), the configuration, the request, today's date in
 * the tenant's zone and what the counters answered: with all of them the same, so is the JSON, but for
 * the SLIP, whose expiry counts from each request. The counters are read for every request, as before;
 * a kept JSON serves only a request whose counters answer every read its rating made as they did then.
 */
interface KeptWire {
  /** Each stock lookup the rating made, with its answer. */
  reads: [itemId: number, slot: string, used: number][];
  available: number;
  /** What the SLIP says but its expiry, when the item can be booked. */
  line?: SlipLine;
  /** The JSON before and after the SLIP's value; all of it in `before` when there is no SLIP. */
  before: string;
  after: string;
  /** The last SLIP made from `line`: the same for every request of the same second. */
  signed?: { expiresAt: number; key: SlipKey; slip: string };
}

/**
 * How much kept JSON an instance holds (characters, about bytes): a 200-item list for 7 nights is about
 * half a million, so some thirty searches. The least recently used goes first.
 */
export const KEPT_WIRE_CHARS = 16_000_000;

// Per configuration object: a configuration read again (every 15 s, or after a tenant load) starts anew.
const keptWires = new WeakMap<StoredConfig, LRUCache<string, KeptWire>>();
const keptFor = (config: StoredConfig): LRUCache<string, KeptWire> => {
  let kept = keptWires.get(config);
  if (!kept) {
    kept = new LRUCache<string, KeptWire>({
      maxSize: KEPT_WIRE_CHARS,
      sizeCalculation: (wire) => wire.before.length + wire.after.length + 32 * wire.reads.length + 64,
    });
    keptWires.set(config, kept);
  }
  return kept;
};

// Item objects by identity: one catalogue read (`createCatalogReader`), with the parts it found them.
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

/** Rates and presents one item, recording the counters' answers its rating read. */
function rateAndKeep(
  { item, parts }: ToRate,
  input: Omit<RateItemInput, 'item' | 'parts'> & { config: StoredConfig },
): KeptWire {
  const reads: KeptWire['reads'] = [];
  const stock = (itemId: number, slot: string) => {
    const used = input.stock(itemId, slot);
    reads.push([itemId, slot, used]);
    return used;
  };
  const rated = rateItem({ ...input, item, parts, stock });
  const line = slipLineFor({ item, rated, request: input.request, config: input.config });
  const json = JSON.stringify(
    presentRated(item, rated, { config: input.config, ...(line ? { slip: SLIP_MARK } : {}) }),
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

/** The kept JSON with a SLIP that expires from `expiresAt`'s request, signed once a second. */
function wireOf(kept: KeptWire, key: SlipKey, expiresAt: number): RawJson {
  if (!kept.line) return new RawJson(kept.before);
  if (kept.signed?.expiresAt !== expiresAt || kept.signed.key !== key) {
    kept.signed = { expiresAt, key, slip: encodeSlip({ ...kept.line, expiresAt }, key) };
  }
  return new RawJson(`${kept.before}"${kept.signed.slip}"${kept.after}`);
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
  const { config, request, now } = options;
  const { toRate, stock } = await stockForRating(db, options);
  const tenant = ratingTenant(config);
  const input = { request, stock, tenant, labels: paramLabels(config), now, config };
  const asked = `${JSON.stringify(request)}@${todayIn(tenant.timeZone, now)}`;
  const expiresAt = slipExpiresAt(config, now);
  const kept = keptFor(config);
  return toRate.map((entry) => {
    const id = `${[entry.item, ...entry.parts.map((part) => part.item)].map(serialOf).join(',')}:${asked}`;
    let wire = kept.get(id);
    if (!wire?.reads.every(([itemId, slot, used]) => stock(itemId, slot) === used)) {
      wire = rateAndKeep(entry, input);
      kept.set(id, wire);
    }
    return { item: entry.item, available: wire.available, wire: wireOf(wire, key, expiresAt) };
  });
}
