import type { StoredConfig, StoredItem, TenantChannel } from '../config/index.ts';

import { transactInGroups } from '../kernel/storage/transact.ts';
import { capacityOf, queryStockRange } from '../stock/index.ts';

import { type ConflictAnnouncer, type conflictCloser, openConflicts } from './conflicts.ts';
import {
  type BlockRole,
  type ChannelBlock,
  type ChannelConflict,
  type ChannelHoldings,
  readChannel,
  releaseBlockActions,
  resizeBlockActions,
  takeBlockActions,
} from './repository.ts';
import type { ChannelSyncDeps, ChannelSyncResult, SyncPlan } from './sync-plan.ts';

// The steps that apply one sync's plan: the blocks first, then the conflicts, from what the counters say.

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

/** What the steps of one sync share: the channel, its item, what it held and what the sync has done. */
export interface SyncRun {
  deps: ChannelSyncDeps;
  channel: TenantChannel;
  config: StoredConfig;
  item: StoredItem;
  holdings: ChannelHoldings;
  plan: SyncPlan;
  result: ChannelSyncResult;
  closer: ReturnType<typeof conflictCloser>;
  /** The round's conflict events, shared by its syncs. */
  announcer: ConflictAnnouncer;
  now: number;
}

/**
 * Applies a plan's blocks: releases, resizes, then takes, each a conditional write on the counter exactly as
 * a cart's hold. A slot taken after all closes its conflict in the same transaction. Answers the slots short
 * of room (sold here): conflicts, unless another run took them meanwhile.
 */
export async function applyBlocks(run: SyncRun): Promise<string[]> {
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
  // A slot whose capacity is below the channel's units cannot hold its block (a date closed here by a
  // stock override of 0, a smaller stock): a conflict, never tried, since a hold's condition lets any
  // units onto a counter not written yet. A block that shrinks is always let shrink.
  const fits = (slot: string) => channel.units <= capacityOf(item, slot, timeZone);
  const grows = (block: ChannelBlock) => channel.units > block.units;
  const shortOf: string[] = [
    ...plan.resize.filter((block) => grows(block) && !fits(block.slot)).map((block) => block.slot),
    ...plan.take.filter((slot) => !fits(slot)),
  ];
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
  result.pending += await applyInGroups(
    deps,
    plan.resize.filter((block) => !grows(block) || fits(block.slot)),
    {
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
    },
  );
  result.pending += await applyInGroups(deps, plan.take.filter(fits), {
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
export async function settleConflicts(run: SyncRun, shortOf: string[]): Promise<void> {
  const { deps, channel, item, holdings, plan, result, closer, announcer } = run;
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
    announcer,
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
