import type { StoredItem, TenantChannel } from '../config/index.ts';

import type { Db } from '../kernel/storage/database.ts';
import type { FeedFetching } from './feed-read.ts';
import type { ChannelBlock, ChannelConflict, ChannelHoldings } from './repository.ts';

// What one channel's sync is: what it needs, what it answers, and its plan, the difference between the
// slots the feed lists and what the channel holds.

/** What channel sync needs from outside: the table, how feeds are fetched, and the clock. */
export interface ChannelSyncDeps extends FeedFetching {
  db: Db;
  clock?: () => number;
}

/** What one channel's sync did. */
export interface ChannelSyncResult {
  channel_id: string;
  /**
   * `partial`: the caller's deadline came while applying; `pending` slots are left for the next round.
   * `deferred`: it came before the feed was read; nothing changed.
   */
  outcome: 'synced' | 'unchanged' | 'failed' | 'waiting_empty' | 'partial' | 'deferred';
  /** Slots the feed lists inside the horizon. */
  listed: number;
  taken: number;
  released: number;
  /** Slots to take, resize or release that a deadline left for the next round. */
  pending: number;
  conflicts_opened: number;
  /** Of those, conflicts closed lately for the same bookings and re-opened without being announced again. */
  conflicts_reopened: number;
  conflicts_closed: number;
  /** Blocks held and conflicts open afterwards. */
  blocked: number;
  conflicts: number;
  error?: string;
  duration_ms: number;
}

/** An empty feed releases its blocks only once it has been seen empty this long (twice in a row, an hour apart). */
export const EMPTY_FEED_GRACE_MS = 3_600_000;

/** What a sync changes, worked out from the feed's slots and what the channel holds. */
export interface SyncPlan {
  /** The item's first slot that is not past: blocks and conflicts before it are history. */
  fromToday: string;
  /** The slots the channel should hold once applied. */
  wanted: Set<string>;
  /** Since when the feed has been empty while the channel held something (it waits out its grace). */
  emptySince?: number;
  waiting: boolean;
  /** Blocks held from today on, before the sync. */
  current: ChannelBlock[];
  /** Blocks of dates that left the feed, or of the item the channel named before. */
  release: ChannelBlock[];
  /** Blocks kept whose units the channel changed: the counter moves by the difference only. */
  resize: ChannelBlock[];
  take: string[];
  /** Conflicts no longer wanted (a date that left the feed, another item, a past slot). */
  close: ChannelConflict[];
}

/**
 * Plans one sync: the difference between the slots the feed lists and the blocks and conflicts the channel
 * holds. An empty feed while something is held keeps everything as it is until it has been empty for
 * EMPTY_FEED_GRACE_MS.
 */
export function planChannelSync(input: {
  channel: TenantChannel;
  item: StoredItem;
  holdings: ChannelHoldings;
  slots: string[];
  fromToday: string;
  now: number;
}): SyncPlan {
  const { channel, item, holdings, fromToday, now } = input;
  const current = [...holdings.blocks.values()].filter((block) => block.slot >= fromToday);
  const conflictsFromToday = [...holdings.conflicts.values()].filter(
    (conflict) => conflict.slot >= fromToday,
  );
  const holding = current.length > 0 || conflictsFromToday.length > 0;
  const emptySince = input.slots.length === 0 && holding ? (holdings.state?.empty_since ?? now) : undefined;
  const waiting = emptySince !== undefined && now - emptySince < EMPTY_FEED_GRACE_MS;
  const wanted = new Set(
    waiting
      ? [...current.map((block) => block.slot), ...conflictsFromToday.map((conflict) => conflict.slot)]
      : input.slots,
  );
  const ours = (block: ChannelBlock) => block.item_id === item.item_id;
  const heldHere = new Set(current.filter(ours).map((block) => block.slot));
  return {
    fromToday,
    wanted,
    ...(emptySince !== undefined ? { emptySince } : {}),
    waiting,
    current,
    release: current.filter((block) => !wanted.has(block.slot) || !ours(block)),
    resize: current.filter((block) => wanted.has(block.slot) && ours(block) && block.units !== channel.units),
    take: [...wanted].filter((slot) => !heldHere.has(slot)),
    close: [...holdings.conflicts.values()].filter(
      (conflict) =>
        !wanted.has(conflict.slot) || conflict.item_id !== item.item_id || conflict.slot < fromToday,
    ),
  };
}
