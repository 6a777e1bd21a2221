import { bookingsFeed, resolveFeedToken } from '#lib/channels/index.ts';
import { notFoundError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { parseInput } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { feedConditions, feedQuerySchema, feedResult } from './feed-answer.ts';

/**
 * GET booking/ical?token=… (the tenant's staff feed token): every active booking as a calendar event, for
 * a staff Google or Outlook subscription. Without the right token it is a 404, as a path that is not there.
 */
export const createBookingsFeed =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, headers, config, now }) => {
    const query = parseInput(feedQuerySchema, input);
    const token = await resolveFeedToken(deps.db, query.token);
    if (token?.scope !== 'bookings') throw notFoundError('Feed');
    return feedResult(
      await bookingsFeed(deps.db, {
        config,
        token,
        conditions: feedConditions(headers),
        now,
      }),
    );
  };
