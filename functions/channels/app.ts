import { createCatalogReader } from '#lib/catalog/index.ts';
import { fetchFeed } from '#lib/channels/index.ts';
import { DEFAULT_CONFIG_CACHE_MS } from '#lib/config/index.ts';
import { type ApiDeps, createApiHandler } from '#lib/http/group-handler.ts';
import { CHANNELS_ROUTES, type ChannelsContext } from './table.ts';

/**
 * The channels group, every line of iCalendar the API reads or writes: the item feeds that Airbnb,
 * Booking.com and the like import, the staff calendar feed, and the channels' list and sync. Served by the
 * channel-sync function, so the guests' functions (items, bookings) carry no iCalendar library.
 */
export const createChannelsHandler = (deps: ApiDeps) => {
  const catalog = createCatalogReader(deps.db, { reuse: (deps.configTtlMs ?? DEFAULT_CONFIG_CACHE_MS) > 0 });
  const context: ChannelsContext = {
    db: deps.db,
    catalog,
    fetchFeed: deps.fetchFeed ?? fetchFeed,
    policy: deps.feedPolicy ?? 'deployed',
    ...(deps.feedReadBudgetMs ? { readBudgetMs: deps.feedReadBudgetMs } : {}),
  };
  return createApiHandler({ group: 'channels', deps, routes: CHANNELS_ROUTES, context });
};
