import type { StoredConfig, StoredItem, TenantChannel } from '../config/index.ts';

import { named, transactInGroups } from '../kernel/storage/transact.ts';
import { conflictAnnouncer } from './conflicts.ts';
import { closeConflictAction, readChannel, releaseBlockActions } from './repository.ts';
import { forgetChannel, listChannelIds } from './state-repository.ts';
import { type ChannelSyncDeps, type ChannelSyncResult, SLOTS_PER_TRANSACTION, syncChannel } from './sync.ts';

/** What one round of channel sync did. */
export interface ChannelRoundReport {
  channels: ChannelSyncResult[];
  /** Channels no longer in the tenant file whose blocks were released. */
  retired: string[];
  duration_ms: number;
}

/** Channels synced at once: a slow feed (up to its 10 s timeout) never holds back the others. */
const CHANNELS_AT_ONCE = 8;

/**
 * One round: first the blocks of channels removed from the file are released, then every enabled channel
 * of the tenant file (or only `only`) is synced, several at once, each on its own, so one bad feed never
 * delays or fails the others. A disabled channel keeps its blocks as they are until it is enabled again or removed.
 */
export async function syncChannels(
  deps: ChannelSyncDeps,
  options: { config: StoredConfig; items: StoredItem[]; only?: string },
): Promise<ChannelRoundReport> {
  const clock = deps.clock ?? Date.now;
  const started = clock();
  const channels = options.config.channels.filter(
    (channel) => channel.enabled && (options.only === undefined || channel.id === options.only),
  );
  // Channels gone from the file first: a channel renamed there would otherwise find its dates still held
  // by its old id, as conflicts, and leave them unblocked until the next round.
  const retired = options.only === undefined ? await retireRemovedChannels(deps, options.config) : [];
  const results: ChannelSyncResult[] = [];
  // The round's syncs share its cap of conflict events; the last goes out once they are all done.
  const announcer = conflictAnnouncer();
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < channels.length; index = next++) {
      const channel = channels[index] as TenantChannel;
      try {
        results.push(
          await syncChannel(deps, { channel, config: options.config, items: options.items, announcer }),
        );
      } catch (error) {
        // A write that kept conflicting, a table error: this channel's round is lost, the next one retries.
        results.push({
          channel_id: channel.id,
          outcome: 'failed',
          listed: 0,
          taken: 0,
          released: 0,
          pending: 0,
          conflicts_opened: 0,
          conflicts_reopened: 0,
          conflicts_closed: 0,
          blocked: 0,
          conflicts: 0,
          error: `sync error: ${(error as Error).name}`,
          duration_ms: 0,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHANNELS_AT_ONCE, channels.length) }, worker));
  await announcer.finish(deps.db, options.config);
  return { channels: results, retired, duration_ms: clock() - started };
}

/** Releases every block of the channels that have a state but are no longer in the tenant file. */
async function retireRemovedChannels(deps: ChannelSyncDeps, config: StoredConfig): Promise<string[]> {
  const listed = new Set(config.channels.map((channel) => channel.id));
  const gone = (await listChannelIds(deps.db)).filter((id) => !listed.has(id));
  for (const channelId of gone) {
    const holdings = await readChannel(deps.db, channelId);
    await transactInGroups(deps.db, [...holdings.blocks.values()], {
      size: SLOTS_PER_TRANSACTION,
      actionsOf: (block) =>
        releaseBlockActions(deps.db, {
          channelId,
          itemId: block.item_id,
          slot: block.slot,
          units: block.units,
        }),
    });
    await transactInGroups(deps.db, [...holdings.conflicts.values()], {
      size: SLOTS_PER_TRANSACTION,
      actionsOf: (conflict) => named('conflict', [closeConflictAction(deps.db, channelId, conflict.slot)]),
    });
    // Forgotten only once nothing is left, so a release that failed is tried again next round.
    if ((await readChannel(deps.db, channelId)).blocks.size === 0) await forgetChannel(deps.db, channelId);
  }
  return gone;
}
