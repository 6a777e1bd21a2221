import { createCatalogReader } from '#lib/catalog/index.ts';
import { DEFAULT_CONFIG_CACHE_MS } from '#lib/config/index.ts';
import { type ApiDeps, createApiHandler, slipKeysOf } from '#lib/http/group-handler.ts';
import { ITEMS_ROUTES, type ItemsContext } from './table.ts';

/** The items group: lists, rated items with SLIPs, and calendars. */
export const createItemsHandler = (deps: ApiDeps) => {
  // The catalogue is reused as long as the configuration is (a zero TTL, as in tests, reads it every time).
  const catalog = createCatalogReader(deps.db, { reuse: (deps.configTtlMs ?? DEFAULT_CONFIG_CACHE_MS) > 0 });
  const context: ItemsContext = { db: deps.db, slipKeys: slipKeysOf(deps), catalog };
  return createApiHandler({ group: 'items', deps, routes: ITEMS_ROUTES, context });
};
