import { createHash } from 'node:crypto';
import { isInactive, listBookingsEndingFrom } from '../bookings/index.ts';

import { mergeRanges, partsOf, slotRangeOf } from '../catalog/index.ts';

import type { StoredConfig, StoredItem } from '../config/index.ts';
import { addDays, localInstant, todayIn, type Ymd } from '../kernel/dates.ts';
import { SizedLru } from '../kernel/sized-lru.ts';
import type { Db } from '../kernel/storage/database.ts';
import { STOCK_INDEX_LAYOUT } from '../kernel/storage/keys.ts';
import { unixSeconds } from '../kernel/time.ts';
import { readStock } from '../stock/index.ts';
import { type BookingEntry, writeBookingsFeed } from './export-bookings.ts';
import { type ExportRun, writeFeed } from './export-calendar.ts';
import { stampFeed } from './feed-token-repository.ts';
import { readChannelBlocks } from './repository.ts';
import { CHANNEL_HORIZON_DAYS, unsellableRuns } from './slots.ts';

/** A feed token as read for a request: its lookup hash and what its feed listed when it last changed. */
export interface FeedTokenState {
  hash: string;
  feed_hash?: string;
  feed_since?: number;
}

/** A feed as answered: its text, its validators, and whether the caller's copy is still current. */
export interface FeedAnswer {
  body: string;
  etag: string;
  /** Milliseconds: when what the feed lists last changed. */
  lastModified: number;
  notModified: boolean;
}

/** The caller's validators (`If-None-Match`, `If-Modified-Since`), as sent. */
export interface FeedConditions {
  ifNoneMatch?: string;
  ifModifiedSince?: string;
}

/**
 * Whether the caller's copy is current (RFC 9110 §13.1.2, §13.1.3): `If-None-Match` decides when sent
 * (weak comparison, `*` matches); otherwise `If-Modified-Since`, at the second.
 */
export function isNotModified(conditions: FeedConditions, etag: string, lastModified: number): boolean {
  if (conditions.ifNoneMatch !== undefined) {
    const tags = conditions.ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    return tags.includes('*') || tags.includes(etag);
  }
  if (conditions.ifModifiedSince === undefined) return false;
  const since = Date.parse(conditions.ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(lastModified / 1000) <= Math.floor(since / 1000);
}

/** The last date a feed lists: the item's advance limit, at most two years ahead. */
const lastFeedDate = (item: StoredItem, today: Ymd): Ymd =>
  addDays(today, Math.min(item.rules.advance_days ?? CHANNEL_HORIZON_DAYS, CHANNEL_HORIZON_DAYS));

/**
 * Answers a feed whose content is `runs`-like data hashed to `feedHash`: the validators come from the
 * token's record (the time its content last changed), and the body is written only when it is sent.
 */
async function answerFeed(
  db: Db,
  options: {
    token: FeedTokenState;
    feedHash: string;
    now: number;
    conditions: FeedConditions;
    write: (stamp: number) => string;
  },
): Promise<FeedAnswer> {
  const { token } = options;
  // Unchanged since the token's record was read: no write. Changed: the first reader to see it stamps it.
  const lastModified =
    token.feed_hash === options.feedHash && token.feed_since !== undefined
      ? token.feed_since
      : await stampFeed(db, {
          tokenHash: token.hash,
          feedHash: options.feedHash,
          // Later than the last content's second, so If-Modified-Since tells the two apart.
          since:
            token.feed_since === undefined
              ? options.now
              : Math.max(options.now, (Math.floor(token.feed_since / 1000) + 1) * 1000),
        });
  const etag = `"${options.feedHash}"`;
  if (isNotModified(options.conditions, etag, lastModified)) {
    return { body: '', etag, lastModified, notModified: true };
  }
  // DTSTAMP is when the content last changed, so the same content is the same text: written once, kept.
  const key = `${options.feedHash}@${lastModified}`;
  let body = writtenFeeds.get(key);
  if (body === undefined) {
    body = options.write(lastModified);
    writtenFeeds.set(key, body);
  }
  return { body, etag, lastModified, notModified: false };
}

/**
 * Feeds as written, by their content's hash and stamp: ical-generator takes some 0.15 ms an event, and a
 * channel polls the same feed every few minutes, mostly without a validator. What a feed lists (the
 * hash) includes everything its text shows, so a kept text is never stale; 8 MB of them at most.
 */
const writtenFeeds = new SizedLru<string, string>({
  maxSize: 8_000_000,
  sizeOf: (text) => text.length || 1,
});

const hashOf = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 32);

/**
 * The channel feed of an item: the runs of dates (or hours) it cannot be sold on from today to its
 * advance limit, read from the counters in one query per item (never one call per date). A token made for
 * one channel leaves that channel's own blocks out, so a channel never sees its own sales echoed back as
 * ours (two calendars syncing each other would otherwise keep each other's dates closed forever).
 */
export async function itemFeed(
  db: Db,
  options: {
    item: StoredItem;
    all: StoredItem[];
    config: StoredConfig;
    token: FeedTokenState & { channel_id?: string };
    conditions: FeedConditions;
    uidDomain: string;
    now: number;
  },
): Promise<FeedAnswer> {
  const { item, config } = options;
  const timeZone = config.company.timezone;
  const first = todayIn(timeZone, options.now);
  const last = lastFeedDate(item, first);
  const parts = partsOf(item, options.all);
  const ranges = [item, ...parts.filter((part) => !part.optional).map((part) => part.item)]
    .filter((entry) => !entry.unlimited)
    .map((entry) => ({ itemId: entry.item_id, ...slotRangeOf(entry, first, last, timeZone) }));
  const ownRange = slotRangeOf(item, first, last, timeZone);
  const [used, own] = await Promise.all([
    readStock(db, mergeRanges(ranges), { spanIndex: config.stock_index === STOCK_INDEX_LAYOUT }),
    options.token.channel_id === undefined
      ? new Map<string, number>()
      : readChannelBlocks(db, { channelId: options.token.channel_id, itemId: item.item_id, ...ownRange }),
  ]);
  const stock = (itemId: number, slot: string) =>
    used(itemId, slot) - (itemId === item.item_id ? (own.get(slot) ?? 0) : 0);
  const runs: ExportRun[] = unsellableRuns({ item, parts, first, last, timeZone, stock });
  return answerFeed(db, {
    token: options.token,
    feedHash: hashOf([item.item_id, item.name, timeZone, config.company.name, config.company.host_id, runs]),
    now: options.now,
    conditions: options.conditions,
    write: (stamp) =>
      writeFeed({
        name: item.name,
        prodId: { company: config.company.name, product: 'Booking API 3.0 channel feed' },
        uidDomain: options.uidDomain,
        itemId: item.item_id,
        timeZone,
        runs,
        stamp,
      }),
  });
}

/** How long a booking stays in the staff feed after its last day. */
export const BOOKINGS_FEED_PAST_DAYS = 30;

/**
 * The staff calendar feed: every booking of an active status (not VOID or CANCELLED) whose stay ends no
 * more than a month ago, as an all-day event with its code, guest, items and status, for a staff Google or
 * Outlook calendar subscription.
 */
export async function bookingsFeed(
  db: Db,
  options: { config: StoredConfig; token: FeedTokenState; conditions: FeedConditions; now: number },
): Promise<FeedAnswer> {
  const { config } = options;
  const timeZone = config.company.timezone;
  const from = addDays(todayIn(timeZone, options.now), -BOOKINGS_FEED_PAST_DAYS);
  const names = new Map(config.statuses.map((status) => [status.status_id, status.name]));
  const active = config.statuses.map((status) => status.status_id).filter((id) => !isInactive(id));
  const found = await listBookingsEndingFrom(db, {
    statusIds: active,
    endsFrom: unixSeconds(localInstant(from, 0, timeZone)),
  });
  const bookings: BookingEntry[] = found
    .sort((a, b) => a.booking_id - b.booking_id)
    .map((booking) => {
      const lines = Object.values(booking.lines);
      const last =
        lines
          .map((line) => line.last_date ?? line.end_date)
          .sort()
          .at(-1) ?? booking.end_date;
      return {
        code: booking.code,
        first: booking.start_date,
        endExclusive: addDays(last, 1),
        guest: booking.form.customer_name ?? '',
        items: [...new Set(lines.map((line) => line.name))],
        status: names.get(booking.status_id) ?? booking.status_id,
      };
    });
  return answerFeed(db, {
    token: options.token,
    feedHash: hashOf([timeZone, config.company.name, config.company.host_id, bookings]),
    now: options.now,
    conditions: options.conditions,
    write: (stamp) =>
      writeBookingsFeed({
        name: `${config.company.name} bookings`,
        prodId: { company: config.company.name, product: 'Booking API 3.0 staff calendar' },
        uidDomain: config.company.host_id,
        bookings,
        stamp,
      }),
  });
}
