import type { CatalogReader } from '#lib/catalog/index.ts';
import { itemFeed, resolveFeedToken } from '#lib/channels/index.ts';
import { notFoundError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { parseInput } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { feedConditions, feedQuerySchema, feedResult } from './feed-answer.ts';

/**
 * GET item/{item_id}/ical?token=… (the feed token): the item's channel feed, the dates (or hours) it cannot
 * be sold on, for Airbnb, Booking.com and the like to import. A missing or wrong token, a malformed id and
 * an unknown or disabled item all answer the same 404, so the route tells nothing to whoever lacks the token.
 */
export const createItemFeed =
  (deps: { db: Db; catalog: CatalogReader }): RouteHandler =>
  async ({ input, params, headers, config, now }) => {
    const query = parseInput(feedQuerySchema, input);
    const raw = params.item_id ?? '';
    const notFound = notFoundError(`Item ${raw.slice(0, 12)}`);
    const token = await resolveFeedToken(deps.db, query.token);
    if (!token || token.item_id === undefined || String(token.item_id) !== raw) throw notFound;
    const all = await deps.catalog(config);
    const item = all.find((entry) => entry.item_id === token.item_id && entry.enabled);
    if (!item) throw notFound;
    return feedResult(
      await itemFeed(deps.db, {
        item,
        all,
        config,
        token,
        conditions: feedConditions(headers),
        uidDomain: config.company.host_id,
        now,
      }),
    );
  };
