import type { Caller } from '#lib/access/index.ts';
import { type CatalogReader, calendarsOf, findVisibleItem, selectListedItems } from '#lib/catalog/index.ts';
import { notFoundError, validationError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import type { Ymd } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readItemIdAnd } from './get-item.ts';
import { readCalendarQuery } from './query.ts';

/** Staff see how many are left; customers see only whether any is (1/0). */
function forCaller(calendar: Record<Ymd, number>, caller: Caller): Record<Ymd, number> {
  if (caller.kind === 'staff') return calendar;
  const open: Record<Ymd, number> = {};
  for (const date in calendar) open[date] = (calendar[date] as number) > 0 ? 1 : 0;
  return open;
}

/**
 * GET item/{item_id}/cal: `item.cal{YYYYMMDD: available}` over a range of at most 366 days; the item from
 * the kept catalogue, as GET item/{item_id}.
 */
export const createItemCalendar =
  (deps: { db: Db; catalog: CatalogReader }): RouteHandler =>
  async ({ input, params, config, caller, now }) => {
    const { itemId, query } = readItemIdAnd(params.item_id, () => readCalendarQuery(input, { config, now }));
    const { first, last, filters } = query;
    if (filters.itemIds || filters.categoryId) {
      throw validationError({ [filters.itemIds ? 'item_id' : 'category_id']: 'unknown parameter' });
    }
    const all = await deps.catalog(config);
    const item = findVisibleItem(all, caller, itemId);
    if (!item) throw notFoundError(`Item ${itemId}`);
    const calendars = await calendarsOf(deps.db, { items: [item], all, first, last, config, now });
    const cal = forCaller(calendars.get(itemId) ?? {}, caller);
    return {
      body: { item: { item_id: itemId, cal } },
      request: { id: String(itemId), records: Object.keys(cal).length, start_date: first, end_date: last },
    };
  };

/** GET item/cal: `items{item_id: {YYYYMMDD: available}}` for the listed items, by id and category. */
export const createItemsCalendar =
  (deps: { db: Db; catalog: CatalogReader }): RouteHandler =>
  async ({ input, config, caller, now }) => {
    const { first, last, filters } = readCalendarQuery(input, { config, now });
    const all = await deps.catalog(config);
    const items = selectListedItems(all, caller, filters);
    const calendars = await calendarsOf(deps.db, { items, all, first, last, config, now });
    const out = Object.fromEntries(
      items.map((item) => [String(item.item_id), forCaller(calendars.get(item.item_id) ?? {}, caller)]),
    );
    return { body: { items: out }, request: { records: items.length, start_date: first, end_date: last } };
  };
