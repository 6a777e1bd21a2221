import { assertNotPartner } from '#lib/auth/access.ts';
import { unixSeconds } from '#lib/core/time.ts';
import type { Db } from '#lib/db/client.ts';
import { listItems } from '#lib/db/tenant-repository.ts';
import { type ChannelOverview, listChannels, syncChannelNow } from '#lib/domain/channel-admin.ts';
import type { ChannelSyncDeps, ChannelSyncResult } from '#lib/domain/channel-sync.ts';
import type { RouteHandler } from '#lib/http/api.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';

const seconds = (ms: number | undefined) => (ms ? unixSeconds(ms) : 0);

/** A feed's address as staff see it: without its query, where channels put the feed's secret. */
const shownUrl = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

/** A channel as staff see it: the tenant file's entry, its sync state and its open conflicts. */
export const presentChannel = ({ channel, state, conflicts }: ChannelOverview) => ({
  id: channel.id,
  name: channel.name,
  item_id: channel.item_id,
  url: shownUrl(channel.url),
  units: channel.units,
  enabled: channel.enabled ? 1 : 0,
  state: !channel.enabled
    ? ('disabled' as const)
    : !state
      ? ('never_synced' as const)
      : state.failing_since !== undefined
        ? ('failing' as const)
        : ('ok' as const),
  last_fetch_at: seconds(state?.last_fetch_at),
  last_success_at: seconds(state?.last_success_at),
  failing_since: seconds(state?.failing_since),
  last_error: state?.last_error ?? '',
  dates_listed: state?.taken?.length ?? 0,
  dates_blocked: state?.blocked ?? 0,
  conflicts: conflicts.map((conflict) => ({
    slot: conflict.slot,
    units: conflict.units,
    bookings: conflict.bookings,
    opened_at: seconds(conflict.opened_at),
    event_id: conflict.event_id,
  })),
});

const presentSync = (result: ChannelSyncResult) => ({
  outcome: result.outcome,
  listed: result.listed,
  taken: result.taken,
  released: result.released,
  conflicts_opened: result.conflicts_opened,
  conflicts_closed: result.conflicts_closed,
  blocked: result.blocked,
  conflicts: result.conflicts,
  error: result.error ?? '',
  duration_ms: result.duration_ms,
});

/** GET channel (staff): every channel of the tenant file, keyed by id, with its state and conflicts. */
export const createListChannels =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, config, caller }) => {
    assertNotPartner(caller, 'channels');
    parseInput(noParameters, input);
    const channels = await listChannels(deps.db, config);
    return {
      body: {
        channels: Object.fromEntries(channels.map((entry) => [entry.channel.id, presentChannel(entry)])),
      },
      request: { records: channels.length },
    };
  };

/** What a sync-now leaves of the request's deadline for applying the feed and answering. */
const APPLY_RESERVE_MS = 4_000;

/**
 * POST channel/{channel_id}/sync (staff): fetches and applies the channel's feed now. The fetch gets what
 * the function's deadline leaves after a reserve for applying it (at most the usual 10 s).
 */
export const createSyncChannel =
  (deps: Omit<ChannelSyncDeps, 'clock' | 'feedTimeoutMs'>): RouteHandler =>
  async ({ input, params, config, caller, remainingMs }) => {
    assertNotPartner(caller, 'channels');
    parseInput(noParameters, input);
    const channelId = params.channel_id ?? '';
    const feedTimeoutMs = Math.max(1_000, Math.min(10_000, remainingMs() - APPLY_RESERVE_MS));
    const { result, overview } = await syncChannelNow(
      { ...deps, feedTimeoutMs },
      {
        channelId,
        config,
        items: await listItems(deps.db),
      },
    );
    return {
      body: { channel: presentChannel(overview), sync: presentSync(result) },
      request: { id: channelId },
    };
  };
