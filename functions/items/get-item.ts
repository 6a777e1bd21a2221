import { type CatalogReader, findVisibleItem } from '#lib/catalog/index.ts';
import { notFoundError, validationError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import type { SlipKey } from '#lib/slip/index.ts';
import { presentItem, ratedEcho } from './present.ts';
import { readItemQuery } from './query.ts';
import { rateAndPresent } from './rated-cache.ts';

/** Reads the `{item_id}` path segment. */
const readItemId = (raw: string | undefined): number => {
  if (!raw || !/^\d{1,10}$/.test(raw) || Number(raw) < 1)
    throw validationError({ item_id: 'a positive whole number' });
  return Number(raw);
};

/**
 * The `{item_id}` path segment and the query `read` reads. A malformed id is refused after the query has
 * been read (its own problems aside), so the error still names the parameters sent that nothing reads.
 */
export function readItemIdAnd<T>(raw: string | undefined, read: () => T): { itemId: number; query: T } {
  let itemId: number;
  try {
    itemId = readItemId(raw);
  } catch (error) {
    try {
      read();
    } catch {
      // The id's error is the answer.
    }
    throw error;
  }
  return { itemId, query: read() };
}

/**
 * GET item/{item_id}: one item under `item`, rated when dates are sent. The item and its package parts come
 * from the catalogue the function keeps (read again after a tenant load), so only the counters are read.
 */
export const createGetItem =
  (deps: { db: Db; slipKeys: () => Promise<readonly SlipKey[]>; catalog: CatalogReader }): RouteHandler =>
  async ({ input, params, config, caller, now }) => {
    const { itemId, query } = readItemIdAnd(params.item_id, () =>
      readItemQuery(input, { config, caller, now }),
    );
    const all = await deps.catalog(config);
    const item = findVisibleItem(all, caller, itemId);
    if (!item) throw notFoundError(`Item ${itemId}`);
    if (!query.rated)
      return { body: { item: presentItem(item, config) }, request: { id: String(itemId), records: 1 } };
    const [rated] = await rateAndPresent(deps.db, {
      items: [item],
      all,
      request: query.rated,
      config,
      keys: await deps.slipKeys(),
      now,
    });
    const echo = ratedEcho(query.rated);
    return {
      body: { item: rated?.wire },
      query: echo.query,
      request: { id: String(itemId), records: 1, ...echo.request },
    };
  };
