import type { StoredConfig, StoredItem, TenantChannel } from '../config/index.ts';

import { todayIn } from '../kernel/dates.ts';
import type { Db } from '../kernel/storage/database.ts';
import { transact, transactInGroups } from '../kernel/storage/transact.ts';
import { capacityOf, queryStockRange } from '../stock/index.ts';

import { conflictCloser, openConflicts } from './conflicts.ts';
import { channelEvent, recordFailedRead } from './events.ts';
import { type FeedFetching, type FeedRead, firstSlotOf, readChannelFeed } from './feed-read.ts';
import { ReadAbandonedError } from './read-budget.ts';
import {
  type BlockRole,
  type ChannelBlock,
  type ChannelConflict,
  type ChannelHoldings,
  channelEventAction,
  readChannel,
  releaseBlockActions,
  resizeBlockActions,
  takeBlockActions,
} from './repository.ts';
import { saveStateAction } from './state-repository.ts';

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

/** Blocks taken or released in one transaction (each is 2 to 4 writes; DynamoDB takes 100). */
export const SLOTS_PER_TRANSACTION = 24;

/** Whether the caller's deadline has come (a request's sync-now; a round has none). */
const outOfTime = (deps: ChannelSyncDeps): boolean => (deps.timeLeftMs?.() ?? Number.POSITIVE_INFINITY) <= 0;

/** What one action of a sync's transactions stands for: a block's counter or record, or a conflict. */
type SyncRole = BlockRole | 'conflict';

/**
 * Applies entries in transactions of SLOTS_PER_TRANSACTION, stopping between two when the caller's deadline
 * has come; answers how many were left. What is left is the next round's: it applies the same difference.
 */
async function applyInGroups<S>(
  deps: ChannelSyncDeps,
  entries: S[],
  options: Omit<Parameters<typeof transactInGroups<S, SyncRole>>[2], 'size'>,
): Promise<number> {
  for (let start = 0; start < entries.length; start += SLOTS_PER_TRANSACTION) {
    if (outOfTime(deps)) return entries.length - start;
    await transactInGroups(deps.db, entries.slice(start, start + SLOTS_PER_TRANSACTION), {
      ...options,
      size: SLOTS_PER_TRANSACTION,
    });
  }
  return 0;
}

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

/** What the steps of one sync share: the channel, its item, what it held and what the sync has done. */
interface SyncRun {
  deps: ChannelSyncDeps;
  channel: TenantChannel;
  config: StoredConfig;
  item: StoredItem;
  holdings: ChannelHoldings;
  plan: SyncPlan;
  result: ChannelSyncResult;
  closer: ReturnType<typeof conflictCloser>;
  now: number;
}

/**
 * Applies a plan's blocks: releases, resizes, then takes, each a conditional write on the counter exactly as
 * a cart's hold. A slot taken after all closes its conflict in the same transaction. Answers the slots short
 * of room (sold here): conflicts, unless another run took them meanwhile.
 */
async function applyBlocks(run: SyncRun): Promise<string[]> {
  const { deps, channel, item, holdings, plan, result, closer, now } = run;
  const { db } = deps;
  const timeZone = run.config.company.timezone;
  const closedByTaking = (slot: string) => {
    const conflict = holdings.conflicts.get(slot);
    return conflict ? closer.actionsOf(conflict, { taken: true, remember: false }) : [];
  };
  const tookOver = (slot: string) => {
    const conflict = holdings.conflicts.get(slot);
    if (!conflict) return;
    closer.applied(conflict);
    holdings.conflicts.delete(slot);
    result.conflicts_closed += 1;
  };
  const shortOf: string[] = [];
  result.pending += await applyInGroups(deps, plan.release, {
    actionsOf: (block) =>
      releaseBlockActions(db, {
        channelId: channel.id,
        itemId: block.item_id,
        slot: block.slot,
        units: block.units,
      }),
    onApplied: () => {
      result.released += 1;
    },
    // Refused: released or changed meanwhile by another run of this channel's sync.
  });
  result.pending += await applyInGroups(deps, plan.resize, {
    actionsOf: (block) => [
      ...resizeBlockActions(db, {
        channelId: channel.id,
        itemId: item.item_id,
        slot: block.slot,
        from: block.units,
        to: channel.units,
        capacity: capacityOf(item, block.slot, timeZone),
      }),
      ...closedByTaking(block.slot),
    ],
    onApplied: (block) => tookOver(block.slot),
    // No room for the extra units: the block keeps what it held, the rest is a conflict. A block changed
    // meanwhile by another run is that run's.
    onRefused: (block, failed) => {
      if (failed.includes('counter') && !failed.includes('block')) shortOf.push(block.slot);
    },
  });
  result.pending += await applyInGroups(deps, plan.take, {
    actionsOf: (slot) => [
      ...takeBlockActions(db, {
        channelId: channel.id,
        itemId: item.item_id,
        slot,
        units: channel.units,
        capacity: capacityOf(item, slot, timeZone),
        now,
      }),
      ...closedByTaking(slot),
    ],
    onApplied: (slot) => {
      result.taken += 1;
      tookOver(slot);
    },
    // The channel holds the slot already (another run took it), whatever else failed with it; the counter
    // alone: no room, sold here; the conflict alone: closed meanwhile.
    onRefused: (slot, failed) => {
      if (failed.includes('block')) return;
      if (failed.includes('counter')) shortOf.push(slot);
      else holdings.conflicts.delete(slot);
    },
  });
  return shortOf;
}

/**
 * Decides the conflicts from what the counters and the channel's blocks are now. A slot another run took
 * meanwhile is no conflict; a slot held in full on a counter over capacity (the stock lowered under its
 * block and a sale here) is one; a conflict on a slot held in full on a counter within capacity is over. A
 * date that left the feed may come back: its closed conflict is remembered, so as not to be announced twice.
 */
async function settleConflicts(run: SyncRun, shortOf: string[]): Promise<void> {
  const { deps, channel, item, holdings, plan, result, closer } = run;
  const timeZone = run.config.company.timezone;
  const fresh = await readChannel(deps.db, channel.id);
  const held = [...fresh.blocks.values()]
    .filter(
      (block) =>
        block.item_id === item.item_id && block.slot >= plan.fromToday && block.units >= channel.units,
    )
    .map((block) => block.slot)
    .sort();
  const used = held.length
    ? await queryStockRange(deps.db, {
        itemId: item.item_id,
        first: held[0] as string,
        last: held.at(-1) as string,
        consistent: true,
      })
    : new Map<string, number>();
  const heldInFull = new Set(held);
  const overCapacity = (slot: string) => (used.get(slot) ?? 0) > capacityOf(item, slot, timeZone);
  const toOpen = [
    ...shortOf.filter((slot) => !heldInFull.has(slot)),
    ...held.filter((slot) => plan.wanted.has(slot) && overCapacity(slot)),
  ].filter((slot) => !fresh.conflicts.has(slot));
  const opening = await openConflicts(deps, {
    channel,
    config: run.config,
    item,
    slots: toOpen,
    closed: fresh.closed,
    now: run.now,
  });
  result.conflicts_opened = opening.opened;
  result.conflicts_reopened = opening.reopened;
  for (const slot of toOpen) holdings.conflicts.set(slot, { slot } as ChannelConflict);
  const toClose = [...plan.close];
  const closing = new Set(toClose.map((conflict) => conflict.slot));
  for (const conflict of fresh.conflicts.values()) {
    const settled = heldInFull.has(conflict.slot) && !overCapacity(conflict.slot);
    if (settled && !closing.has(conflict.slot)) toClose.push(conflict);
  }
  await transactInGroups(deps.db, toClose, {
    size: SLOTS_PER_TRANSACTION,
    actionsOf: (conflict) =>
      closer.actionsOf(conflict, { taken: false, remember: !plan.wanted.has(conflict.slot) }),
    onApplied: (conflict) => {
      closer.applied(conflict);
      result.conflicts_closed += 1;
    },
    // Refused: closed meanwhile by another run of this channel's sync.
  });
  for (const conflict of toClose) holdings.conflicts.delete(conflict.slot);
}

/** Saves what the read left (validators, slots, emptiness) and the counts; a recovery is an event. */
async function saveSyncState(run: SyncRun, read: Extract<FeedRead, { ok: true }>): Promise<void> {
  const { deps, channel, item, holdings, plan, result, now } = run;
  const failingSince = holdings.state?.failing_since;
  await transact(deps.db, [
    saveStateAction(deps.db, {
      channel_id: channel.id,
      item_id: item.item_id,
      last_fetch_at: now,
      last_success_at: now,
      ...(read.etag ? { etag: read.etag } : {}),
      ...(read.lastModified ? { last_modified: read.lastModified } : {}),
      taken: read.slots,
      read_until: read.readUntil,
      ...(plan.emptySince !== undefined ? { empty_since: plan.emptySince } : {}),
      blocked: result.blocked,
      conflicts: result.conflicts,
      updated_at: now,
    }),
    ...(failingSince !== undefined
      ? [
          channelEventAction(
            deps.db,
            channelEvent(channel, 'channel.recovered', now, { failing_since: failingSince }),
            { retentionDays: run.config.settings.webhooks.retention_days },
          ),
        ]
      : []),
  ]);
}

/** A sync's counts before it has done anything. */
const NOTHING_DONE: Omit<ChannelSyncResult, 'channel_id' | 'blocked' | 'conflicts'> = {
  outcome: 'synced',
  listed: 0,
  taken: 0,
  released: 0,
  pending: 0,
  conflicts_opened: 0,
  conflicts_reopened: 0,
  conflicts_closed: 0,
  duration_ms: 0,
};

/**
 * Syncs one channel: reads its feed (a conditional GET), turns it into the item's slots it takes over the
 * next two years, and applies only the difference with the blocks the channel holds. A slot taken is a
 * conditional write on the counter (`used <= capacity - units`), exactly as a cart's hold; a slot this
 * service already sold is a conflict, recorded and emitted once, and taken as soon as it frees up. A feed
 * that fails releases nothing; an empty one releases only once it has stayed empty for an hour.
 */
export async function syncChannel(
  deps: ChannelSyncDeps,
  options: { channel: TenantChannel; config: StoredConfig; items: StoredItem[] },
): Promise<ChannelSyncResult> {
  const clock = deps.clock ?? Date.now;
  const now = clock();
  const { channel, config } = options;
  const timeZone = config.company.timezone;
  const today = todayIn(timeZone, now);
  const holdings = await readChannel(deps.db, channel.id);
  const result: ChannelSyncResult = {
    ...NOTHING_DONE,
    channel_id: channel.id,
    blocked: holdings.blocks.size,
    conflicts: holdings.conflicts.size,
  };
  const done = (outcome: ChannelSyncResult['outcome'], error?: string): ChannelSyncResult => ({
    ...result,
    outcome,
    ...(error ? { error } : {}),
    duration_ms: clock() - now,
  });
  const item = options.items.find((entry) => entry.item_id === channel.item_id && entry.enabled !== false);
  let read: FeedRead;
  try {
    read = item
      ? await readChannelFeed(deps, { channel, item, holdings, timeZone, today })
      : { ok: false, error: `item ${channel.item_id} is not in the catalogue` };
  } catch (error) {
    // The caller's deadline, not the feed's fault: nothing is recorded, the next round reads it again.
    if (error instanceof ReadAbandonedError) return done('deferred');
    throw error;
  }
  if (!read.ok || !item) {
    const error = read.ok ? 'no item' : read.error;
    await recordFailedRead(deps.db, { channel, config, holdings, error, now });
    return done('failed', error);
  }
  result.listed = read.slots.length;
  const fromToday = firstSlotOf(item, today, timeZone);
  const plan = planChannelSync({ channel, item, holdings, slots: read.slots, fromToday, now });
  const closer = conflictCloser(deps.db, { channel, config, now });
  const run: SyncRun = { deps, channel, config, item, holdings, plan, result, closer, now };
  const shortOf = await applyBlocks(run);
  // Out of time, the conflicts wait for the next round too: it finds the same slots short.
  if (result.pending === 0) await settleConflicts(run, shortOf);
  await closer.finish();
  result.blocked = plan.current.length - result.released + result.taken;
  result.conflicts = [...holdings.conflicts.keys()].filter((slot) => slot >= fromToday).length;
  await saveSyncState(run, read);
  const outcome =
    result.pending > 0 ? 'partial' : plan.waiting ? 'waiting_empty' : read.unchanged ? 'unchanged' : 'synced';
  return done(outcome);
}
