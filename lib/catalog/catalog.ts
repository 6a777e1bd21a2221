import { type Caller, hasGrant } from '../access/index.ts';
import {
  type ItemLoader,
  itemsWithParts,
  listItems,
  listItemsWithLoad,
  type StoredConfig,
  type StoredItem,
} from '../config/index.ts';

import { todayIn, type Ymd } from '../kernel/dates.ts';
import { localeTag } from '../kernel/guest-words.ts';
import type { Db } from '../kernel/storage/database.ts';
import { STOCK_INDEX_LAYOUT } from '../kernel/storage/keys.ts';
import { readStock } from '../stock/index.ts';
import { calendarOf, slotRangeOf } from './calendar.ts';
import type { RateRequest, RatingTenant, StockLookup } from './rate-item.ts';
import { resolveSpan, SpanError } from './span.ts';
import { isListedFor } from './visibility.ts';

/** The catalogue of a request's configuration, as `createCatalogReader` answers it. */
export type CatalogReader = (config: StoredConfig) => Promise<StoredItem[]>;

/**
 * Reads the catalogue (every stored item) for a request. With `reuse`, an instance keeps the catalogue of
 * the configuration's load until the tenant is loaded again: items change only through the tenant load,
 * which stamps the configuration and every item (the disabled ones too) with the same `updated_at`, and
 * each request already holds that configuration. A read is kept only if every item in it carries the
 * configuration's stamp: a read made while a load is writing (the configuration is written first) or
 * answered by a replica that has not seen all of the load serves its requests and is not kept, so the next
 * request reads again. Counters are never kept: they are read for every request.
 */
export function createCatalogReader(db: Db, options: { reuse: boolean }): CatalogReader {
  let kept: { version: number; items: Promise<StoredItem[]> } | undefined;
  return (config: StoredConfig): Promise<StoredItem[]> => {
    if (!options.reuse) return listItems(db);
    if (kept?.version !== config.updated_at) {
      const read = listItemsWithLoad(db);
      const entry = { version: config.updated_at, items: read.then((all) => all.map(({ item }) => item)) };
      kept = entry;
      const forget = () => {
        if (kept === entry) kept = undefined;
      };
      read.then((all) => {
        if (!all.every(({ loadedAt }) => loadedAt === config.updated_at)) forget();
      }, forget);
    }
    return kept.items;
  };
}

const itemsById = new WeakMap<StoredItem[], Map<number, StoredItem>>();

/**
 * An item loader over a kept catalogue (`createCatalogReader`): the items asked for, enabled or not, and
 * the parts of the packages among them, as `createItemLoader` answers from the table, without a read.
 */
export const catalogItemLoader =
  (catalog: () => Promise<StoredItem[]>): ItemLoader =>
  async (ids) => {
    const all = await catalog();
    let byId = itemsById.get(all);
    if (!byId) {
      byId = new Map(all.map((item) => [item.item_id, item]));
      itemsById.set(all, byId);
    }
    return itemsWithParts(byId, ids);
  };

/** The list filters of `GET item`. */
export interface ItemFilters {
  categoryId?: number;
  keyword?: string;
  itemIds?: number[];
  /** true: only packages; false: no packages; absent: both. */
  packages?: boolean;
}

/** A package part with its item. */
export interface Part {
  item: StoredItem;
  qty: number;
  optional: boolean;
}

/** The rating facts of the tenant configuration. */
export const ratingTenant = (config: StoredConfig): RatingTenant => ({
  timeZone: config.company.timezone,
  decimals: config.locale.decimals,
  discounts: config.discounts,
  allowFreeBookings: config.settings.allow_free_bookings === true,
  locale: localeTag(config.locale.id),
});

/** Labels of the booking parameters by id. */
export const paramLabels = (config: StoredConfig): Record<string, string> =>
  Object.fromEntries(Object.entries(config.params).map(([id, param]) => [id, param.lbl]));

/** The enabled items a caller sees in the list, filtered and ordered by `pos` (then id). */
export function selectListedItems(items: StoredItem[], caller: Caller, filters: ItemFilters): StoredItem[] {
  const keyword = filters.keyword?.trim().toLowerCase();
  return items
    .filter((item) => item.enabled && isListedFor(caller, item.visibility))
    .filter((item) => filters.categoryId === undefined || item.category_id === filters.categoryId)
    .filter((item) => !keyword || item.name.toLowerCase().includes(keyword))
    .filter((item) => !filters.itemIds || filters.itemIds.includes(item.item_id))
    .filter((item) => filters.packages === undefined || Boolean(item.package) === filters.packages)
    .sort((a, b) => a.pos - b.pos || a.item_id - b.item_id);
}

/**
 * One enabled item by id as the caller may see it: staff (and partners granted `staff_items`) see every
 * one, customers and other partners all but staff-only.
 */
export function findVisibleItem(items: StoredItem[], caller: Caller, itemId: number): StoredItem | undefined {
  const item = items.find((entry) => entry.item_id === itemId && entry.enabled);
  if (!item) return undefined;
  return item.visibility !== 'S' || hasGrant(caller, 'staff_items') ? item : undefined;
}

/** The parts of a package (enabled items only), or none for other items. */
export function partsOf(item: StoredItem, items: StoredItem[]): Part[] {
  return (item.package?.items ?? []).flatMap((part) => {
    const sub = items.find((entry) => entry.item_id === part.item_id && entry.enabled);
    return sub ? [{ item: sub, qty: part.qty, optional: part.optional }] : [];
  });
}

/** A counter key range of one item. */
export type Range = { itemId: number; first: string; last: string };

/** Merges ranges per item, so each item is read with one query. */
export const mergeRanges = (ranges: Range[]): Range[] => {
  const byItem = new Map<number, Range>();
  for (const range of ranges) {
    const seen = byItem.get(range.itemId);
    byItem.set(
      range.itemId,
      seen
        ? {
            itemId: range.itemId,
            first: seen.first < range.first ? seen.first : range.first,
            last: seen.last > range.last ? seen.last : range.last,
          }
        : range,
    );
  }
  return [...byItem.values()];
};

/** What rating items for one request takes: the items, every item they may need (parts), the request. */
export interface RateItemsOptions {
  items: StoredItem[];
  all: StoredItem[];
  request: RateRequest;
  config: StoredConfig;
  now: number;
}

/** An item to rate, with its package parts. */
export interface ToRate {
  item: StoredItem;
  parts: Part[];
}

/**
 * Reads the counters that rating items for one request needs, those of every item and package part
 * concurrently, one query a month from the span index or one query an item, whichever is fewer
 * (`readStock`). Answers the items with their parts, and the counters' lookup for `rateItem`.
 */
export async function stockForRating(
  db: Db,
  options: RateItemsOptions,
): Promise<{ toRate: ToRate[]; stock: StockLookup }> {
  const { timezone } = options.config.company;
  const toRate = options.items.map((item) => ({ item, parts: partsOf(item, options.all) }));
  const ranges: Range[] = [];
  for (const { item, parts } of toRate) {
    for (const entry of [item, ...parts.map((part) => part.item)]) {
      if (entry.unlimited) continue;
      try {
        const span = resolveSpan(entry.unit, options.request, timezone);
        const first = span.slots[0]?.key;
        const last = span.slots.at(-1)?.key;
        if (first && last) ranges.push({ itemId: entry.item_id, first, last });
      } catch (error) {
        if (!(error instanceof SpanError)) throw error;
      }
    }
  }
  const stock = await readStock(db, mergeRanges(ranges), {
    spanIndex: options.config.stock_index === STOCK_INDEX_LAYOUT,
  });
  return { toRate, stock };
}

/** Calendars of items over a date range: one counter query a month or one an item, whichever is fewer. */
export async function calendarsOf(
  db: Db,
  options: {
    items: StoredItem[];
    all: StoredItem[];
    first: Ymd;
    last: Ymd;
    config: StoredConfig;
    now: number;
  },
): Promise<Map<number, Record<Ymd, number>>> {
  const { timezone } = options.config.company;
  const withParts = options.items.map((item) => ({ item, parts: partsOf(item, options.all) }));
  const ranges = withParts
    .flatMap(({ item, parts }) => [item, ...parts.filter((part) => !part.optional).map((part) => part.item)])
    .filter((item) => !item.unlimited)
    .map((item) => ({ itemId: item.item_id, ...slotRangeOf(item, options.first, options.last, timezone) }));
  const stock = await readStock(db, mergeRanges(ranges), {
    spanIndex: options.config.stock_index === STOCK_INDEX_LAYOUT,
  });
  const today = todayIn(timezone, options.now);
  return new Map(
    withParts.map(({ item, parts }) => [
      item.item_id,
      calendarOf({ item, parts, first: options.first, last: options.last, today, timeZone: timezone, stock }),
    ]),
  );
}
