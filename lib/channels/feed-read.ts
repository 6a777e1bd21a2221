import type { StoredItem, TenantChannel } from '../config/index.ts';

import { addDays, localInstant, utcHourKey, type Ymd } from '../kernel/dates.ts';
import type { OutboundPolicy } from '../kernel/outbound/address-guard.ts';
import { FeedParseError } from './feed-error.ts';
import type { FeedRequest, FeedResponse } from './feed-fetch.ts';
import { readFeed } from './feed-parse.ts';
import { ReadAbandonedError, ReadBudget } from './read-budget.ts';
import type { ChannelHoldings } from './repository.ts';
import { CHANNEL_HORIZON_DAYS, slotsTaken } from './slots.ts';

// Reading a channel's feed for a sync: a conditional GET, and the item's slots its events take.

/** How feeds are fetched: the fetcher, its address policy, and the budget of one fetch. */
export interface FeedFetching {
  fetchFeed: (request: FeedRequest) => Promise<FeedResponse>;
  policy: OutboundPolicy;
  /** The budget of one feed's fetch (10 s by default); a request's sync-now passes what its deadline leaves. */
  feedTimeoutMs?: number;
  /** The CPU time one feed's read may take, parse and expansion together (READ_BUDGET_MS by default). */
  readBudgetMs?: number;
  /**
   * What the caller's deadline leaves, in ms (a request's sync-now; a round has none): a read not done by
   * then is abandoned (ReadAbandonedError) and changes nothing, and applying stops between transactions.
   */
  timeLeftMs?: () => number;
}

/** The feed's slots as last read, from a fresh body or (on a 304) from the state the last read left. */
export type FeedRead =
  | {
      ok: true;
      slots: string[];
      /** The last date of the window the slots were read over. */
      readUntil: Ymd;
      etag?: string;
      lastModified?: string;
      unchanged: boolean;
    }
  | { ok: false; error: string };

/**
 * Fetches a channel's feed (conditionally, when the slots its validators stand for are kept) and reads it
 * into the item's slots over the next two years: parse and expansion under one ReadBudget, so a feed that
 * takes too long to read fails as an unreadable one, as does any other error of reading it. Throws
 * ReadAbandonedError past the caller's deadline.
 */
export async function readChannelFeed(
  deps: FeedFetching,
  options: {
    channel: TenantChannel;
    item: StoredItem;
    holdings: ChannelHoldings;
    timeZone: string;
    today: Ymd;
  },
): Promise<FeedRead> {
  const { state } = options.holdings;
  const window = { first: options.today, last: addDays(options.today, CHANNEL_HORIZON_DAYS) };
  // Validators only when the slots they stand for are kept and were read up to today's horizon: a 304
  // must have something to mean, and a window that moved on since has dates no earlier read covered.
  const validators =
    state?.taken && state.read_until === window.last
      ? {
          ...(state.etag ? { etag: state.etag } : {}),
          ...(state.last_modified ? { lastModified: state.last_modified } : {}),
        }
      : {};
  const response = await deps.fetchFeed({
    url: options.channel.url,
    policy: deps.policy,
    ...validators,
    ...(deps.feedTimeoutMs ? { timeoutMs: deps.feedTimeoutMs } : {}),
  });
  if (response.outcome === 'failed') return { ok: false, error: response.error };
  if (response.outcome === 'unchanged') {
    const fromToday = firstSlotOf(options.item, options.today, options.timeZone);
    const kept = (state?.taken ?? []).filter((slot) => slot >= fromToday);
    return { ok: true, slots: kept, readUntil: window.last, ...validators, unchanged: true };
  }
  if ((deps.timeLeftMs?.() ?? Number.POSITIVE_INFINITY) <= 0) throw new ReadAbandonedError();
  const budget = new ReadBudget({
    ...(deps.readBudgetMs ? { limitMs: deps.readBudgetMs } : {}),
    ...(deps.timeLeftMs ? { timeLeftMs: deps.timeLeftMs } : {}),
  });
  try {
    const feed = await readFeed(response.body, {
      timeZone: options.timeZone,
      from: window.first,
      to: window.last,
      budget,
    });
    return {
      ok: true,
      slots: await slotsTaken(feed.taken, {
        item: options.item,
        timeZone: options.timeZone,
        ...window,
        budget,
      }),
      readUntil: window.last,
      ...(response.etag ? { etag: response.etag } : {}),
      ...(response.lastModified ? { lastModified: response.lastModified } : {}),
      unchanged: false,
    };
  } catch (error) {
    if (error instanceof ReadAbandonedError) throw error;
    // Any other error of reading what a feed says is the feed's: a failed read, recorded and announced.
    const reason = error instanceof FeedParseError ? error.reason : 'the feed cannot be read';
    return { ok: false, error: `unreadable feed: ${reason}` };
  }
}

/** The first slot of an item that is not past: today's date, or the UTC hour key of today's local midnight. */
export const firstSlotOf = (item: StoredItem, today: Ymd, timeZone: string): string =>
  item.unit === 'H' ? utcHourKey(localInstant(today, 0, timeZone)) : today;
