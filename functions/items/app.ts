import { type ApiDeps, createApiHandler } from '#lib/http/api.ts';
import { createItemCalendar, createItemsCalendar } from './calendar.ts';
import { createGetItem } from './get-item.ts';
import { createListItems } from './list-items.ts';

/** The items group: lists, rated items with SLIPs, and calendars. */
export const createItemsHandler = (deps: ApiDeps) => {
  const slipKeys =
    deps.slipKeys ??
    (async () => {
      throw new Error('No SLIP signing keys configured (SLIP_KEYS or SLIP_SECRET_ARN)');
    });
  const routeDeps = { db: deps.db, slipKeys };
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
