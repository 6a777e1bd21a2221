import { randomUUID } from 'node:crypto';
import type { FeedRequest, FeedResponse } from '../channels/fetch-feed.ts';
import { FeedParseError, readFeed } from '../channels/ical-import.ts';
import type { TenantChannel } from '../config/tenant-schema.ts';
import { addDays, localInstant, todayIn, utcHourKey, type Ymd } from '../core/dates.ts';
import { findBookingsHolding } from '../db/booking-list-repository.ts';
import {
  type ChannelBlock,
  type ChannelConflict,
  type ChannelEvent,
  type ChannelHoldings,
  channelEventAction,
  closeConflictAction,
  failingAction,
  forgetChannel,
  listChannelIds,
  openConflictAction,
  readChannel,
  recordFailure,
  releaseBlockActions,
  resizeBlockActions,
  saveStateAction,
  takeBlockActions,
} from '../db/channel-repository.ts';
import type { Db } from '../db/client.ts';
import { counterId, queryStockRange } from '../db/stock-repository.ts';
import type { StoredConfig, StoredItem } from '../db/tenant-repository.ts';
import { ConditionsFailedError, type TransactItem, transact } from '../db/transact.ts';
import { webhookEventActions } from '../db/webhook-outbox.ts';
import type { DeliveryPolicy } from '../webhooks/address-guard.ts';
import { isInactive } from './booking.ts';
import { CHANNEL_HORIZON_DAYS, slotsTaken } from './channel-slots.ts';
import { capacityOf } from './stock.ts';
import { subscribersOf } from './webhooks.ts';

/** What channel sync needs from outside: the table, how feeds are fetched, and the clock. */
export interface ChannelSyncDeps {
  db: Db;
  fetchFeed: (request: FeedRequest) => Promise<FeedResponse>;
  policy: DeliveryPolicy;
  /** The budget of one feed's fetch (10 s by default); a request's sync-now passes what its deadline leaves. */
  feedTimeoutMs?: number;
  clock?: () => number;
}

/** What one channel's sync did. */
export interface ChannelSyncResult {
  channel_id: string;
  outcome: 'synced' | 'unchanged' | 'failed' | 'waiting_empty';
  /** Slots the feed lists inside the horizon. */
  listed: number;
  taken: number;
  released: number;
  conflicts_opened: number;
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
const SLOTS_PER_TRANSACTION = 24;

/** Counters asked about in one "who holds it" query (the filter expression stays small). */
const HOLDER_QUERY_COUNTERS = 40;

const channelEvent = (
  channel: TenantChannel,
  type: string,
  at: number,
  data: Record<string, unknown>,
): ChannelEvent => ({ event_id: randomUUID(), type, at, channel_id: channel.id, data });

/** The audit entry of a channel event and, for the endpoints that subscribe to it, its webhook deliveries. */
function eventActions(db: Db, config: StoredConfig, event: ChannelEvent): TransactItem[] {
  return [
    channelEventAction(db, event),
    ...webhookEventActions(db, {
      event: {
        event: {
          event_id: event.event_id,
          type: event.type,
          at: event.at,
          account_id: 0,
          data: { channel_id: event.channel_id, ...event.data },
        },
        booking_id: 0,
        sequence: 0,
      },
      endpointIds: subscribersOf(config, event.type),
      retentionDays: config.settings.webhooks.retention_days,
    }),
  ];
}

/**
 * Runs transactions over groups of slots; a group refused for a failed condition loses the slots whose
 * conditions failed (`onRefused` says what that slot's failure means) and is retried with the rest, so
 * one sold-out date never holds back the others.
 */
async function applyInGroups<S>(
  db: Db,
  slots: S[],
  options: {
    actionsOf: (slot: S) => TransactItem[];
    onApplied: (slot: S) => void;
    /** Which of the slot's actions (by index) failed their conditions. */
    onRefused: (slot: S, failed: number[]) => void;
  },
): Promise<void> {
  for (let start = 0; start < slots.length; start += SLOTS_PER_TRANSACTION) {
    let group = slots.slice(start, start + SLOTS_PER_TRANSACTION);
    while (group.length) {
      const owners: { slot: S; index: number }[] = [];
      const actions = group.flatMap((slot) =>
        options.actionsOf(slot).map((action, index) => {
          owners.push({ slot, index });
          return action;
        }),
      );
      try {
        await transact(db, actions);
        for (const slot of group) options.onApplied(slot);
        break;
      } catch (error) {
        if (!(error instanceof ConditionsFailedError)) throw error;
        const refused = new Map<S, number[]>();
        for (const failed of error.failed) {
          const owner = owners[failed];
          if (owner) refused.set(owner.slot, [...(refused.get(owner.slot) ?? []), owner.index]);
        }
        for (const [slot, failed] of refused) options.onRefused(slot, failed);
        group = group.filter((slot) => !refused.has(slot));
      }
    }
  }
}

/** The feed's slots as last read, from a fresh body or (on a 304) from the state the last read left. */
type FeedRead =
  | {
      ok: true;
      slots: string[];
      /** The last date of the window the slots were read over. */
      readUntil: Ymd;
      etag?: string;
      lastModified?: string;
      unchanged: boolean;
    }
  | { ok: false; error: string };

async function readChannelFeed(
  deps: ChannelSyncDeps,
  options: {
    channel: TenantChannel;
    item: StoredItem;
    holdings: ChannelHoldings;
    timeZone: string;
    today: Ymd;
  },
): Promise<FeedRead> {
  const { state } = options.holdings;
  const window = { first: options.today, last: addDays(options.today, CHANNEL_HORIZON_DAYS) };
  // Validators only when the slots they stand for are kept and were read up to today's horizon: a 304
  // must have something to mean, and a window that moved on since has dates no earlier read covered.
  const validators =
    state?.taken && state.read_until === window.last
      ? {
          ...(state.etag ? { etag: state.etag } : {}),
          ...(state.last_modified ? { lastModified: state.last_modified } : {}),
        }
      : {};
  const response = await deps.fetchFeed({
    url: options.channel.url,
    policy: deps.policy,
    ...validators,
    ...(deps.feedTimeoutMs ? { timeoutMs: deps.feedTimeoutMs } : {}),
  });
  if (response.outcome === 'failed') return { ok: false, error: response.error };
  if (response.outcome === 'unchanged') {
    const fromToday = firstSlotOf(options.item, options.today, options.timeZone);
    const kept = (state?.taken ?? []).filter((slot) => slot >= fromToday);
    return { ok: true, slots: kept, readUntil: window.last, ...validators, unchanged: true };
  }
  try {
    const feed = readFeed(response.body, {
      timeZone: options.timeZone,
      from: window.first,
      to: window.last,
    });
    return {
      ok: true,
      slots: slotsTaken(feed.taken, { item: options.item, timeZone: options.timeZone, ...window }),
      readUntil: window.last,
      ...(response.etag ? { etag: response.etag } : {}),
      ...(response.lastModified ? { lastModified: response.lastModified } : {}),
      unchanged: false,
    };
  } catch (error) {
    if (error instanceof FeedParseError) return { ok: false, error: `unreadable feed: ${error.reason}` };
    throw error;
  }
}

/** Records a failed read: nothing is released; the first failure of a run emits `channel.failed`. */
async function fail(
  deps: ChannelSyncDeps,
  options: {
    channel: TenantChannel;
    config: StoredConfig;
    holdings: ChannelHoldings;
    error: string;
    now: number;
  },
): Promise<void> {
  const { channel, now } = options;
  if (options.holdings.state?.failing_since === undefined) {
    const event = channelEvent(channel, 'channel.failed', now, {
      item_id: channel.item_id,
      reason: options.error,
    });
    try {
      await transact(deps.db, [
        failingAction(deps.db, { channelId: channel.id, itemId: channel.item_id, now }),
        ...eventActions(deps.db, options.config, event),
      ]);
    } catch (error) {
      // Another run recorded the start of this failure first.
      if (!(error instanceof ConditionsFailedError)) throw error;
    }
  }
  await recordFailure(deps.db, { channelId: channel.id, itemId: channel.item_id, error: options.error, now });
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
    conflicts_opened: 0,
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
  const read: FeedRead = item
    ? await readChannelFeed(deps, { channel, item, holdings, timeZone, today })
    : { ok: false, error: `item ${channel.item_id} is not in the catalogue` };
  if (!read.ok || !item) {
    const error = read.ok ? 'no item' : read.error;
    await fail(deps, { channel, config, holdings, error, now });
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
  const closing = (slot: string, taken: boolean) => [
    closeConflictAction(db, channel.id, slot),
    channelEventAction(
      db,
      channelEvent(channel, 'channel.conflict_closed', now, { item_id: item.item_id, slot, taken }),
    ),
  ];

  await applyInGroups(db, toRelease, {
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
  await applyInGroups(db, toResize, {
    actionsOf: (block) => [
      ...resizeBlockActions(db, {
        channelId: channel.id,
        itemId: item.item_id,
        slot: block.slot,
        from: block.units,
        to: channel.units,
        capacity: capacityOf(item, block.slot, timeZone),
      }),
      ...(holdings.conflicts.has(block.slot) ? closing(block.slot, true) : []),
    ],
    onApplied: (block) => {
      if (holdings.conflicts.delete(block.slot)) result.conflicts_closed += 1;
    },
    // 0: no room for the extra units (the block keeps what it held, the rest is a conflict); else changed
    // meanwhile by another run.
    onRefused: (block, failed) => {
      if (failed.includes(0) && !failed.includes(1)) shortOf.push(block.slot);
    },
  });

  await applyInGroups(db, toTake, {
    actionsOf: (slot) => [
      ...takeBlockActions(db, {
        channelId: channel.id,
        itemId: item.item_id,
        slot,
        units: channel.units,
        capacity: capacityOf(item, slot, timeZone),
        now,
      }),
      ...(holdings.conflicts.has(slot) ? closing(slot, true) : []),
    ],
    onApplied: (slot) => {
      result.taken += 1;
      if (holdings.conflicts.delete(slot)) result.conflicts_closed += 1;
    },
    onRefused: (slot, failed) => {
      // 1: the channel holds the slot already (another run took it), whatever else failed with it;
      // 0 alone: the counter has no room, sold here; 2 alone: the conflict was closed meanwhile.
      if (failed.includes(1)) return;
      if (failed.includes(0)) shortOf.push(slot);
      else holdings.conflicts.delete(slot);
    },
  });

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
  result.conflicts_opened = await openConflicts(deps, { channel, config, item, slots: toOpen, now });
  for (const slot of toOpen) holdings.conflicts.set(slot, { slot } as ChannelConflict);
  for (const conflict of fresh.conflicts.values()) {
    const settled = heldInFull.has(conflict.slot) && !overCapacity(conflict.slot);
    if (settled && !toClose.some((entry) => entry.slot === conflict.slot)) toClose.push(conflict);
  }

  for (const conflict of toClose) {
    try {
      await transact(db, closing(conflict.slot, false));
      result.conflicts_closed += 1;
    } catch (error) {
      if (!(error instanceof ConditionsFailedError)) throw error;
    }
    holdings.conflicts.delete(conflict.slot);
  }

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
          ),
        ]
      : []),
  ]);
  return done(waiting ? 'waiting_empty' : read.unchanged ? 'unchanged' : 'synced');
}

/**
 * Records each slot as a conflict, once, with the bookings holding it (a conditional put in the same
 * transaction as its `channel.conflict` event), and answers how many this run opened.
 */
async function openConflicts(
  deps: ChannelSyncDeps,
  options: { channel: TenantChannel; config: StoredConfig; item: StoredItem; slots: string[]; now: number },
): Promise<number> {
  const { db } = deps;
  const { channel, config, item, now } = options;
  if (options.slots.length === 0) return 0;
  const holders = new Map<string, string[]>();
  const statusIds = config.statuses.map((status) => status.status_id).filter((id) => !isInactive(id));
  for (let start = 0; start < options.slots.length; start += HOLDER_QUERY_COUNTERS) {
    const counters = options.slots
      .slice(start, start + HOLDER_QUERY_COUNTERS)
      .map((slot) => counterId(item.item_id, slot));
    for (const [id, codes] of await findBookingsHolding(db, { statusIds, counterIds: counters }))
      holders.set(id, codes);
  }
  let opened = 0;
  for (const slot of options.slots) {
    const bookings = holders.get(counterId(item.item_id, slot)) ?? [];
    const event = channelEvent(channel, 'channel.conflict', now, {
      item_id: item.item_id,
      slot,
      units: channel.units,
      bookings,
      channel_name: channel.name,
    });
    const conflict: ChannelConflict = {
      channel_id: channel.id,
      item_id: item.item_id,
      slot,
      units: channel.units,
      opened_at: now,
      bookings,
      event_id: event.event_id,
    };
    try {
      await transact(db, [openConflictAction(db, conflict), ...eventActions(db, config, event)]);
      opened += 1;
    } catch (error) {
      // Opened by another run of this channel's sync: emitted once, by that run.
      if (!(error instanceof ConditionsFailedError)) throw error;
    }
  }
  return opened;
}

/** The first slot of an item that is not past: today's date, or the UTC hour key of today's local midnight. */
const firstSlotOf = (item: StoredItem, today: Ymd, timeZone: string): string =>
  item.unit === 'H' ? utcHourKey(localInstant(today, 0, timeZone)) : today;

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
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < channels.length; index = next++) {
      const channel = channels[index] as TenantChannel;
      try {
        results.push(await syncChannel(deps, { channel, config: options.config, items: options.items }));
      } catch (error) {
        // A write that kept conflicting, a table error: this channel's round is lost, the next one retries.
        results.push({
          channel_id: channel.id,
          outcome: 'failed',
          listed: 0,
          taken: 0,
          released: 0,
          conflicts_opened: 0,
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
  return { channels: results, retired, duration_ms: clock() - started };
}

/** Releases every block of the channels that have a state but are no longer in the tenant file. */
async function retireRemovedChannels(deps: ChannelSyncDeps, config: StoredConfig): Promise<string[]> {
  const listed = new Set(config.channels.map((channel) => channel.id));
  const gone = (await listChannelIds(deps.db)).filter((id) => !listed.has(id));
  for (const channelId of gone) {
    const holdings = await readChannel(deps.db, channelId);
    await applyInGroups(deps.db, [...holdings.blocks.values()], {
      actionsOf: (block) =>
        releaseBlockActions(deps.db, {
          channelId,
          itemId: block.item_id,
          slot: block.slot,
          units: block.units,
        }),
      onApplied: () => undefined,
      onRefused: () => undefined,
    });
    await applyInGroups(deps.db, [...holdings.conflicts.values()], {
      actionsOf: (conflict) => [closeConflictAction(deps.db, channelId, conflict.slot)],
      onApplied: () => undefined,
      onRefused: () => undefined,
    });
    // Forgotten only once nothing is left, so a release that failed is tried again next round.
    if ((await readChannel(deps.db, channelId)).blocks.size === 0) await forgetChannel(deps.db, channelId);
  }
  return gone;
}
