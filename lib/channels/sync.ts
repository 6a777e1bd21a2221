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
  type ChannelBlock,
  type ChannelConflict,
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

/**
 * Applies slots in transactions of SLOTS_PER_TRANSACTION, stopping between two when the caller's deadline
 * has come; answers how many were left. What is left is the next round's: it applies the same difference.
 */
async function applyInGroups<S>(
  deps: ChannelSyncDeps,
  slots: S[],
  options: Omit<Parameters<typeof transactInGroups<S>>[2], 'size'>,
): Promise<number> {
  for (let start = 0; start < slots.length; start += SLOTS_PER_TRANSACTION) {
    if (outOfTime(deps)) return slots.length - start;
    await transactInGroups(deps.db, slots.slice(start, start + SLOTS_PER_TRANSACTION), {
      ...options,
      size: SLOTS_PER_TRANSACTION,
    });
  }
  return 0;
}

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
  const { db } = deps;
  const clock = deps.clock ?? Date.now;
  const now = clock();
  const { channel, config } = options;
  const timeZone = config.company.timezone;
  const today = todayIn(timeZone, now);
  const holdings = await readChannel(db, channel.id);
  const result: ChannelSyncResult = {
    channel_id: channel.id,
    outcome: 'synced',
    listed: 0,
    taken: 0,
    released: 0,
    pending: 0,
    conflicts_opened: 0,
    conflicts_reopened: 0,
    conflicts_closed: 0,
    blocked: holdings.blocks.size,
    conflicts: holdings.conflicts.size,
    duration_ms: 0,
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
  const state = holdings.state;

  // Blocks and conflicts from today on are the feed's to keep or release; older ones are history.
  const current = [...holdings.blocks.values()].filter((block) => block.slot >= fromToday);
  const conflictsFromToday = [...holdings.conflicts.values()].filter(
    (conflict) => conflict.slot >= fromToday,
  );
  const holding = current.length > 0 || conflictsFromToday.length > 0;
  const emptySince = read.slots.length === 0 && holding ? (state?.empty_since ?? now) : undefined;
  const waiting = emptySince !== undefined && now - emptySince < EMPTY_FEED_GRACE_MS;
  // While an empty feed waits out its hour, everything held and in conflict stays as it is.
  const wanted = new Set(
    waiting
      ? [...current.map((block) => block.slot), ...conflictsFromToday.map((conflict) => conflict.slot)]
      : read.slots,
  );

  const ours = (block: ChannelBlock) => block.item_id === item.item_id;
  // Released: dates that left the feed, and blocks of the item the channel named before (moved to another).
  const toRelease = current.filter((block) => !wanted.has(block.slot) || !ours(block));
  // Resized in place: the channel's units changed, so the counter moves by the difference only.
  const toResize = current.filter(
    (block) => wanted.has(block.slot) && ours(block) && block.units !== channel.units,
  );
  const heldHere = new Set(current.filter(ours).map((block) => block.slot));
  const toTake = [...wanted].filter((slot) => !heldHere.has(slot));
  const toClose = [...holdings.conflicts.values()].filter(
    (conflict) =>
      !wanted.has(conflict.slot) || conflict.item_id !== item.item_id || conflict.slot < fromToday,
  );
  const closer = conflictCloser(db, { channel, config, now });
  // A slot taken after all (it freed up): its conflict is over, nothing to remember.
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

  result.pending += await applyInGroups(deps, toRelease, {
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
    // Released or changed meanwhile by another run of this channel's sync.
    onRefused: () => undefined,
  });

  const shortOf: string[] = [];
  result.pending += await applyInGroups(deps, toResize, {
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
    // 0: no room for the extra units (the block keeps what it held, the rest is a conflict); else changed
    // meanwhile by another run.
    onRefused: (block, failed) => {
      if (failed.includes(0) && !failed.includes(1)) shortOf.push(block.slot);
    },
  });

  result.pending += await applyInGroups(deps, toTake, {
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
    onRefused: (slot, failed) => {
      // 1: the channel holds the slot already (another run took it), whatever else failed with it;
      // 0 alone: the counter has no room, sold here; 2 alone: the conflict was closed meanwhile.
      if (failed.includes(1)) return;
      if (failed.includes(0)) shortOf.push(slot);
      else holdings.conflicts.delete(slot);
    },
  });

  // Out of time, the conflicts wait for the next round too: it finds the same slots short.
  if (result.pending === 0) {
    // What the counters and this channel's blocks are now decides the conflicts. A slot another run of the
    // sync took meanwhile is no conflict; a slot the channel holds in full on a counter over capacity (the
    // item's stock was lowered under its block and a sale here) is one; a conflict on a slot held in full on a
    // counter within capacity is over.
    const fresh = await readChannel(db, channel.id);
    const held = [...fresh.blocks.values()]
      .filter((block) => ours(block) && block.slot >= fromToday && block.units >= channel.units)
      .map((block) => block.slot)
      .sort();
    const used = held.length
      ? await queryStockRange(db, {
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
      ...held.filter((slot) => wanted.has(slot) && overCapacity(slot)),
    ].filter((slot) => !fresh.conflicts.has(slot));
    const opening = await openConflicts(deps, {
      channel,
      config,
      item,
      slots: toOpen,
      closed: fresh.closed,
      now,
    });
    result.conflicts_opened = opening.opened;
    result.conflicts_reopened = opening.reopened;
    for (const slot of toOpen) holdings.conflicts.set(slot, { slot } as ChannelConflict);
    const closingSlots = new Set(toClose.map((conflict) => conflict.slot));
    for (const conflict of fresh.conflicts.values()) {
      const settled = heldInFull.has(conflict.slot) && !overCapacity(conflict.slot);
      if (settled && !closingSlots.has(conflict.slot)) toClose.push(conflict);
    }

    // A date that left the feed may come back: its conflict is remembered, so as not to be announced twice.
    await transactInGroups(db, toClose, {
      size: SLOTS_PER_TRANSACTION,
      actionsOf: (conflict) =>
        closer.actionsOf(conflict, { taken: false, remember: !wanted.has(conflict.slot) }),
      onApplied: (conflict) => {
        closer.applied(conflict);
        result.conflicts_closed += 1;
      },
      // Closed meanwhile by another run of this channel's sync.
      onRefused: () => undefined,
    });
    for (const conflict of toClose) holdings.conflicts.delete(conflict.slot);
  }
  await closer.finish();

  result.blocked = current.length - result.released + result.taken;
  result.conflicts = [...holdings.conflicts.keys()].filter((slot) => slot >= fromToday).length;
  const recovered = state?.failing_since !== undefined;
  await transact(db, [
    saveStateAction(db, {
      channel_id: channel.id,
      item_id: item.item_id,
      last_fetch_at: now,
      last_success_at: now,
      ...(read.etag ? { etag: read.etag } : {}),
      ...(read.lastModified ? { last_modified: read.lastModified } : {}),
      taken: read.slots,
      read_until: read.readUntil,
      ...(emptySince !== undefined ? { empty_since: emptySince } : {}),
      blocked: result.blocked,
      conflicts: result.conflicts,
      updated_at: now,
    }),
    ...(recovered
      ? [
          channelEventAction(
            db,
            channelEvent(channel, 'channel.recovered', now, { failing_since: state?.failing_since }),
            { retentionDays: config.settings.webhooks.retention_days },
          ),
        ]
      : []),
  ]);
  return done(
    result.pending > 0 ? 'partial' : waiting ? 'waiting_empty' : read.unchanged ? 'unchanged' : 'synced',
  );
}
