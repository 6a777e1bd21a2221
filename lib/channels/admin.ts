import type { StoredConfig, StoredItem, TenantChannel } from '../config/index.ts';

import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { type ChannelConflict, listConflicts } from './repository.ts';
import { type ChannelState, getChannelStates } from './state-repository.ts';
import { type ChannelSyncDeps, type ChannelSyncResult, syncChannel } from './sync.ts';

/** A channel of the tenant file with what its syncs left: its state (absent before the first) and open conflicts. */
export interface ChannelOverview {
  channel: TenantChannel;
  state?: ChannelState;
  conflicts: ChannelConflict[];
}

/** Every channel of the tenant file with its state and open conflicts: one BatchGet, one query per channel. */
export async function listChannels(db: Db, config: StoredConfig): Promise<ChannelOverview[]> {
  const ids = config.channels.map((channel) => channel.id);
  const [states, conflicts] = await Promise.all([
    getChannelStates(db, ids),
    Promise.all(ids.map((id) => listConflicts(db, id))),
  ]);
  return config.channels.map((channel, index) => ({
    channel,
    ...(states.has(channel.id) ? { state: states.get(channel.id) } : {}),
    conflicts: conflicts[index] ?? [],
  }));
}

/**
 * Syncs one channel of the tenant file now, whether or not it is enabled (staff asked for it), and answers
 * what it did with the channel as it is afterwards. An unknown id is a 404.
 */
export async function syncChannelNow(
  deps: ChannelSyncDeps,
  options: { channelId: string; config: StoredConfig; items: StoredItem[] },
): Promise<{ result: ChannelSyncResult; overview: ChannelOverview }> {
  const channel = options.config.channels.find((entry) => entry.id === options.channelId);
  if (!channel) {
    throw new DomainError('not_found', `Channel ${options.channelId.slice(0, 40)} not found`, {
      channel_id: options.channelId.slice(0, 40),
    });
  }
  const result = await syncChannel(deps, { channel, config: options.config, items: options.items });
  const [overview] = await listChannels(deps.db, { ...options.config, channels: [channel] });
  return { result, overview: overview as ChannelOverview };
}
