import { assertNotPartner } from '#lib/access/index.ts';
import type { ChannelSyncDeps, ChannelSyncResult } from '#lib/channels/index.ts';
import {
  type ChannelOverview,
  listChannels,
  maskFeedAddress,
  READ_BUDGET_MS,
  syncChannelNow,
} from '#lib/channels/index.ts';
import { listItems } from '#lib/config/index.ts';
import { ApiError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { unixSeconds } from '#lib/kernel/time.ts';

const seconds = (ms: number | undefined) => (ms ? unixSeconds(ms) : 0);

/** A channel as staff see it: the tenant file's entry, its sync state and its open conflicts. */
export const presentChannel = ({ channel, state, conflicts, blocked }: ChannelOverview) => ({
  id: channel.id,
  name: channel.name,
  item_id: channel.item_id,
  url: maskFeedAddress(channel.url),
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
  dates_blocked: blocked,
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
  pending: result.pending,
  conflicts_opened: result.conflicts_opened,
  conflicts_reopened: result.conflicts_reopened,
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

/**
 * The longest a sync-now works before answering: API Gateway stops waiting for a function after 30 s,
 * whatever the function's own timeout (the channels function has 240 s for its rounds).
 */
const SYNC_NOW_MAX_MS = 25_000;
/** What a sync-now keeps of its time for answering: the channel as it is afterwards, the state written. */
const ANSWER_RESERVE_MS = 3_000;
/** When to ask again after a sync-now that could not read the feed in time; the next round reads it anyway. */
const RETRY_AFTER_SECONDS = 60;

/**
 * POST channel/{channel_id}/sync (staff): fetches and applies the channel's feed now, within the request's
 * deadline (the function's, at most 25 s). The fetch gets what is left after a read's budget and the
 * answer's reserve (at most the usual 10 s). Applying stops between two transactions when the time is up:
 * the answer says what was done and `pending` what the next round takes (`outcome: partial`). A feed not
 * read by then is a 503 `busy` with Retry-After, nothing changed; never a 500 for lack of time.
 */
export const createSyncChannel =
  (deps: Omit<ChannelSyncDeps, 'clock' | 'feedTimeoutMs' | 'timeLeftMs'>): RouteHandler =>
  async ({ input, params, config, caller, remainingMs }) => {
    assertNotPartner(caller, 'channels');
    parseInput(noParameters, input);
    const channelId = params.channel_id ?? '';
    const until = Date.now() + Math.min(remainingMs(), SYNC_NOW_MAX_MS) - ANSWER_RESERVE_MS;
    const timeLeftMs = () => until - Date.now();
    const readBudgetMs = deps.readBudgetMs ?? READ_BUDGET_MS;
    const feedTimeoutMs = Math.max(1_000, Math.min(10_000, timeLeftMs() - readBudgetMs));
    const { result, overview } = await syncChannelNow(
      { ...deps, feedTimeoutMs, timeLeftMs },
      {
        channelId,
        config,
        items: await listItems(deps.db),
      },
    );
    if (result.outcome === 'deferred') {
      throw new ApiError('busy', {
        details: 'The feed could not be read before this request’s deadline; the next round syncs it',
        data: { channel_id: channelId, retry_after: RETRY_AFTER_SECONDS },
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      });
    }
    return {
      body: { channel: presentChannel(overview), sync: presentSync(result) },
      request: { id: channelId },
    };
  };
