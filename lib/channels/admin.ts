import type { StoredConfig, StoredItem, TenantChannel } from '../config/index.ts';
import { localInstant, todayIn, utcHourKey } from '../kernel/dates.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { type ChannelConflict, readChannel } from './repository.ts';
import type { ChannelState } from './state-repository.ts';
import { type ChannelSyncDeps, type ChannelSyncResult, syncChannel } from './sync.ts';

/**
 * A channel of the tenant file with what its syncs left: its state (absent before the first), its open
 * conflicts, and the blocks it holds from today on.
 */
export interface ChannelOverview {
  channel: TenantChannel;
  state?: ChannelState;
  conflicts: ChannelConflict[];
  blocked: number;
}

/**
 * Every channel of the tenant file with its state, open conflicts and blocks, one strongly consistent
 * query per channel. The blocks are counted as they are held: syncs of one channel may overlap, and each
 * saves the state as it saw it.
 */
export async function listChannels(
  db: Db,
  config: StoredConfig,
  now = Date.now(),
): Promise<ChannelOverview[]> {
  const timeZone = config.company.timezone;
  const today = todayIn(timeZone, now);
  // A slot is past before today's first: a date, or an hourly item's UTC hour key of today's local midnight.
  const fromHour = utcHourKey(localInstant(today, 0, timeZone));
  const isPast = (slot: string) => slot < (slot.includes('T') ? fromHour : today);
  return Promise.all(
    config.channels.map(async (channel) => {
      const { state, blocks, conflicts } = await readChannel(db, channel.id);
      return {
        channel,
        ...(state ? { state } : {}),
        conflicts: [...conflicts.values()],
        blocked: [...blocks.keys()].filter((slot) => !isPast(slot)).length,
      };
    }),
  );
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
  const [overview] = (await listChannels(deps.db, { ...options.config, channels: [channel] })) as [
    ChannelOverview,
  ];
  // What the channel holds now, other runs' blocks included, rather than this run's view of it.
  return { result: { ...result, blocked: overview.blocked }, overview };
}
