import type { StoredConfig } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { paramLabels, type RateItemsOptions, ratingTenant, stockForRating, type ToRate } from './catalog.ts';
import { type RatedItem, type RateRequest, rateItem, type StockLookup } from './rate-item.ts';
import { type SlipLine, slipLineFor } from './slip-lines.ts';

/** One counter lookup a rating made: the item, the slot, and the units the counter answered were used. */
export type StockRead = readonly [itemId: number, slot: string, used: number];

/** An item rated for one request, with what its SLIP says and the counter lookups the rating made. */
export interface RatedWithSlip {
  rated: RatedItem;
  /** What the item's SLIP says but its expiry (`slipExpiresAt`); none when the item cannot be booked. */
  line?: SlipLine;
  /** Every counter lookup of the rating, in order: with the same answers, the rating is the same. */
  reads: StockRead[];
}

/** The items of one request, ready to be rated over counters read once. */
export interface ItemRating {
  /** The items asked for, in order, each with its package parts. */
  toRate: ToRate[];
  /** What the counters answer for this request. */
  stock: StockLookup;
  /**
   * Rates one of `toRate`: a pure function of the item and its parts, the request, the configuration,
   * today in the tenant's zone and the answers of the counter lookups it makes.
   */
  rate(entry: ToRate): RatedWithSlip;
}

/** The rating of items over counters already read (no table access): see `prepareRating`. */
export function ratingOver(options: {
  toRate: ToRate[];
  stock: StockLookup;
  config: StoredConfig;
  request: RateRequest;
  now: number;
}): ItemRating {
  const { toRate, stock, config, request, now } = options;
  const tenant = ratingTenant(config);
  const labels = paramLabels(config);
  return {
    toRate,
    stock,
    rate: ({ item, parts }) => {
      const reads: StockRead[] = [];
      const recorded: StockLookup = (itemId, slot) => {
        const used = stock(itemId, slot);
        reads.push([itemId, slot, used]);
        return used;
      };
      const rated = rateItem({ item, parts, request, stock: recorded, tenant, labels, now });
      const line = slipLineFor({ item, rated, request, config });
      return { rated, ...(line ? { line } : {}), reads };
    },
  };
}

/**
 * Reads the counters that rating the request's items needs (all at once, `stockForRating`) and answers
 * their rating: each item is rated, with its SLIP's contents, when asked, so a caller that keeps earlier
 * answers rates only the items whose answers no longer hold.
 */
export async function prepareRating(db: Db, options: RateItemsOptions): Promise<ItemRating> {
  const { toRate, stock } = await stockForRating(db, options);
  return ratingOver({ ...options, toRate, stock });
}
