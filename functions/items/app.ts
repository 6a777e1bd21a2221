import { type ApiDeps, createApiHandler, slipKeysOf } from '#lib/http/api.ts';
import { createItemCalendar, createItemsCalendar } from './calendar.ts';
import { createGetItem } from './get-item.ts';
import { createListItems } from './list-items.ts';

/** The items group: lists, rated items with SLIPs, and calendars. */
export const createItemsHandler = (deps: ApiDeps) => {
  const routeDeps = { db: deps.db, slipKeys: slipKeysOf(deps) };
  return createApiHandler({
    group: 'items',
    deps,
    routes: {
      'item.list': createListItems(routeDeps),
      'item.get': createGetItem(routeDeps),
      'item.itemCal': createItemCalendar(routeDeps),
      'item.cal': createItemsCalendar(routeDeps),
    },
  });
};
