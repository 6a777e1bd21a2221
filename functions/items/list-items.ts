import { type CatalogReader, selectListedItems } from '#lib/catalog/index.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import type { SlipKey } from '#lib/slip/index.ts';
import { presentItemJson, ratedEcho } from './present.ts';
import { readItemQuery } from './query.ts';
import { rateAndPresent } from './rated-cache.ts';

/** GET item: the enabled items the caller sees, keyed by id; rated (with SLIPs) when dates are sent. */
export const createListItems =
  (deps: { db: Db; slipKeys: () => Promise<readonly SlipKey[]>; catalog: CatalogReader }): RouteHandler =>
  async ({ input, config, caller, now }) => {
    const query = readItemQuery(input, { config, caller, now });
    const all = await deps.catalog(config);
    const listed = selectListedItems(all, caller, query.filters);
    if (!query.rated) {
      const items = Object.fromEntries(
        listed.map((item) => [String(item.item_id), presentItemJson(item, config)]),
      );
      return { body: { items }, request: { records: listed.length } };
    }
    const rated = await rateAndPresent(deps.db, {
      items: listed,
      all,
      request: query.rated,
      config,
      keys: await deps.slipKeys(),
      now,
    });
    const minimum = query.minimumAvailable ?? 0;
    const kept = rated.filter((entry) => entry.available >= minimum);
    const echo = ratedEcho(query.rated);
    return {
      body: { items: Object.fromEntries(kept.map((entry) => [String(entry.item.item_id), entry.wire])) },
      query: echo.query,
      request: { records: kept.length, ...echo.request },
    };
  };
