import type { StoredConfig, StoredItem, TenantChannel } from '../config/index.ts';

import { todayIn } from '../kernel/dates.ts';
import { transact } from '../kernel/storage/transact.ts';

import { type ConflictAnnouncer, conflictAnnouncer, conflictCloser } from './conflicts.ts';
import { channelEvent, recordFailedRead } from './events.ts';
import { type FeedRead, firstSlotOf, readChannelFeed } from './feed-read.ts';
import { ReadAbandonedError } from './read-budget.ts';
import { channelEventAction, readChannel } from './repository.ts';
import { saveStateAction } from './state-repository.ts';
import { applyBlocks, type SyncRun, settleConflicts } from './sync-apply.ts';
import { type ChannelSyncDeps, type ChannelSyncResult, planChannelSync } from './sync-plan.ts';

export { SLOTS_PER_TRANSACTION } from './sync-apply.ts';
export type { ChannelSyncDeps, ChannelSyncResult } from './sync-plan.ts';

/** Saves what the read left (validators, slots, emptiness) and the counts; a recovery is an event. */
async function saveSyncState(run: SyncRun, read: Extract<FeedRead, { ok: true }>): Promise<void> {
  const { deps, channel, item, holdings, plan, result, now } = run;
  // A run of failures that resumed an earlier one quietly ends quietly too.
  const failingSince = holdings.state?.failing_quietly ? undefined : holdings.state?.failing_since;
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
 * service already sold is a conflict, recorded and emitted once (within the round's cap of events: the
 * `announcer` of the round it is part of, or its own), and taken as soon as it frees up. A feed that fails
 * releases nothing; an empty one releases only once it has stayed empty for an hour.
 */
export async function syncChannel(
  deps: ChannelSyncDeps,
  options: {
    channel: TenantChannel;
    config: StoredConfig;
    items: StoredItem[];
    announcer?: ConflictAnnouncer;
  },
): Promise<ChannelSyncResult> {
  if (options.announcer) return syncOneChannel(deps, { ...options, announcer: options.announcer });
  // A sync on its own (sync-now) is a round of one: its last conflict event goes out as it ends.
  const announcer = conflictAnnouncer();
  try {
    return await syncOneChannel(deps, { ...options, announcer });
  } finally {
    await announcer.finish(deps.db, options.config);
  }
}

async function syncOneChannel(
  deps: ChannelSyncDeps,
  options: {
    channel: TenantChannel;
    config: StoredConfig;
    items: StoredItem[];
    announcer: ConflictAnnouncer;
  },
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
  const { announcer } = options;
  const run: SyncRun = { deps, channel, config, item, holdings, plan, result, closer, announcer, now };
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
