import type { StockLookup } from '#lib/catalog/rate-item.ts';
import type { StoredItem } from '#lib/config/model.ts';
import { counterId } from '#lib/stock/repository.ts';
import { makeCatalog } from './tenant.ts';

// Catalogues, counters and dates of the capacity tests (test/unit/item-capacity.test.ts,
// test/unit/package-capacity.test.ts), which rate without DynamoDB.

/** Validated items of one tenant, from item overrides. */
export const catalogOf = (...items: Record<string, unknown>[]): StoredItem[] => makeCatalog(...items);

/** Counter usage (B) by counter id, `<item>|<slot>`; counters not listed are unused. */
export const used =
  (byCounter: Record<string, number> = {}): StockLookup =>
  (itemId, slot) =>
    byCounter[counterId(itemId, slot)] ?? 0;

/** A day in reach of the rating helper's today (test/support/rating.ts). */
export const DAY = '20270110';
