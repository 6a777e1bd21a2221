// The catalog context's public entry: what other contexts, the functions and the CLIs use of it.
export { calendarOf, slotRangeOf, slotsOfDate } from './calendar.ts';
export type { CatalogReader, ItemFilters, Range, RateItemsOptions, ToRate } from './catalog.ts';
export {
  calendarsOf,
  catalogItemLoader,
  createCatalogReader,
  findVisibleItem,
  mergeRanges,
  paramLabels,
  partsOf,
  ratingTenant,
  selectListedItems,
} from './catalog.ts';
export { rateEvents } from './rate-events.ts';
export type { RatedItem, RateRequest, SlotRate, StockLookup } from './rate-item.ts';
export { isNothingForNothing, NOTHING_FOR_NOTHING, quantitiesFor, rateItem, unitsFor } from './rate-item.ts';
export type { ItemRating, RatedWithSlip } from './rated-items.ts';
export { prepareRating } from './rated-items.ts';
export { isClosed } from './rules.ts';
export type { SlipLine } from './slip-lines.ts';
export { requestOf, slipExpiresAt } from './slip-lines.ts';
export { resolveSpan } from './span.ts';
export { isListedFor } from './visibility.ts';
