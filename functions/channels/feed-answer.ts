import * as z from 'zod/mini';
import type { FeedAnswer, FeedConditions } from '#lib/channels/index.ts';
import type { RouteResult } from '#lib/http/envelope.ts';

/**
 * The parameters of a calendar feed: its token (calendar apps add nothing else that is read). A token of
 * any length up to the limit of a query is looked up, so a long wrong one is the same 404 as a short one.
 */
export const feedQuerySchema = z.strictObject({ token: z.optional(z.string().check(z.maxLength(4096))) });

/** The caller's validators of a feed, from its request headers. */
export const feedConditions = (headers: Record<string, string>): FeedConditions => ({
  ...(headers['if-none-match'] ? { ifNoneMatch: headers['if-none-match'] } : {}),
  ...(headers['if-modified-since'] ? { ifModifiedSince: headers['if-modified-since'] } : {}),
});

/**
 * A feed as an HTTP answer: `text/calendar` with its ETag and Last-Modified, or a bodiless 304 when the
 * caller's copy is current. Revalidated on every read (`no-cache`): a channel polls to learn of changes.
 */
export const feedResult = (answer: FeedAnswer): RouteResult => ({
  body: {},
  status: answer.notModified ? 304 : 200,
  raw: { contentType: 'text/calendar; charset=utf-8', body: answer.body },
  headers: {
    etag: answer.etag,
    'last-modified': new Date(answer.lastModified).toUTCString(),
    'cache-control': 'private, no-cache',
  },
});
