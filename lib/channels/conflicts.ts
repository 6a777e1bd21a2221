import { findBookingsHolding, isInactive } from '../bookings/index.ts';

import type { StoredConfig, StoredItem, TenantChannel } from '../config/index.ts';

import type { Db } from '../kernel/storage/database.ts';
import {
  ConditionsFailedError,
  type NamedAction,
  named,
  transact,
  transactInGroups,
} from '../kernel/storage/transact.ts';
import { counterId } from '../stock/index.ts';
import { channelEvent, eventActions } from './events.ts';
import {
  type ChannelConflict,
  type ClosedConflict,
  channelEventAction,
  closeConflictAction,
  openConflictAction,
  rememberClosedAction,
} from './repository.ts';

// A channel's conflicts as one sync opens and closes them: each recorded once, announced once (a feed that
// flaps does not announce the same double sale again), and no more than a few events a sync.

/**
 * How long a closed conflict is remembered. Opened again within it on the same slot with the same bookings
 * (a feed that drops and lists the date again, round after round), it is re-opened without an event; each
 * such close starts the day again, so a flapping feed stays quiet for as long as it flaps.
 */
export const CONFLICT_MEMORY_MS = 86_400_000;

/**
 * The `channel.conflict` events one channel's sync emits, and the `channel.conflict_closed` records it
 * writes: past them, one more says how many were left unannounced (GET channel lists every open one).
 */
export const CONFLICT_EVENTS_PER_SYNC = 10;

/** Counters asked about in one "who holds it" query (the filter expression stays small). */
const HOLDER_QUERY_COUNTERS = 40;

/** Conflicts recorded in one transaction when they carry no event of their own. */
const CONFLICTS_PER_TRANSACTION = 24;

const sameBookings = (one: string[], other: string[]): boolean => {
  const sorted = [...other].sort();
  return one.length === other.length && [...one].sort().every((code, index) => code === sorted[index]);
};

/** Which bookings hold each slot's counter now, by slot. */
async function holdersOf(db: Db, options: { config: StoredConfig; item: StoredItem; slots: string[] }) {
  const holders = new Map<string, string[]>();
  const statusIds = options.config.statuses.map((status) => status.status_id).filter((id) => !isInactive(id));
  for (let start = 0; start < options.slots.length; start += HOLDER_QUERY_COUNTERS) {
    const counters = options.slots
      .slice(start, start + HOLDER_QUERY_COUNTERS)
      .map((slot) => counterId(options.item.item_id, slot));
    for (const [id, codes] of await findBookingsHolding(db, { statusIds, counterIds: counters }))
      holders.set(id, codes);
  }
  return new Map(
    options.slots.map((slot) => [slot, holders.get(counterId(options.item.item_id, slot)) ?? []]),
  );
}

/**
 * Records each slot as a conflict, once, with the bookings holding it. A new one is announced by a
 * `channel.conflict` event in the same transaction (to the audit trail and the subscribed endpoints), up
 * to CONFLICT_EVENTS_PER_SYNC of them; the last of those also carries `more`, the count of the rest, which
 * are recorded in groups without events of their own. One closed within CONFLICT_MEMORY_MS for the same
 * bookings is re-opened silently. Answers how many this run opened, and how many of those silently.
 */
export async function openConflicts(
  deps: { db: Db },
  options: {
    channel: TenantChannel;
    config: StoredConfig;
    item: StoredItem;
    slots: string[];
    closed: Map<string, ClosedConflict>;
    now: number;
  },
): Promise<{ opened: number; reopened: number }> {
  const { db } = deps;
  const { channel, config, item, now } = options;
  if (options.slots.length === 0) return { opened: 0, reopened: 0 };
  const holders = await holdersOf(db, { config, item, slots: options.slots });
  const conflictOf = (slot: string, event_id: string, announced: boolean): ChannelConflict => ({
    channel_id: channel.id,
    item_id: item.item_id,
    slot,
    units: channel.units,
    opened_at: now,
    bookings: holders.get(slot) ?? [],
    event_id,
    announced,
  });
  const remembered = (slot: string) => {
    const closed = options.closed.get(slot);
    return closed &&
      now - closed.closed_at < CONFLICT_MEMORY_MS &&
      sameBookings(closed.bookings, holders.get(slot) ?? [])
      ? closed
      : undefined;
  };
  const silent = options.slots.flatMap((slot) => {
    const closed = remembered(slot);
    return closed ? [conflictOf(slot, closed.event_id, false)] : [];
  });
  const fresh = options.slots.filter((slot) => !remembered(slot));
  const announced = fresh.slice(0, CONFLICT_EVENTS_PER_SYNC);
  const events = announced.map((slot) =>
    channelEvent(channel, 'channel.conflict', now, {
      item_id: item.item_id,
      slot,
      units: channel.units,
      bookings: holders.get(slot) ?? [],
      channel_name: channel.name,
    }),
  );
  const last = events.at(-1);
  const counted = fresh
    .slice(CONFLICT_EVENTS_PER_SYNC)
    .map((slot) => conflictOf(slot, last?.event_id ?? '', true));

  let opened = 0;
  let reopened = 0;
  // Without events of their own first: the event that counts them then says how many were recorded.
  await transactInGroups(db, [...silent, ...counted], {
    size: CONFLICTS_PER_TRANSACTION,
    actionsOf: (conflict) => named('conflict', [openConflictAction(db, conflict)]),
    onApplied: (conflict) => {
      opened += 1;
      if (!conflict.announced) reopened += 1;
    },
    // Opened by another run of this channel's sync.
    onRefused: () => undefined,
  });
  const more = opened - reopened;
  for (const [index, event] of events.entries()) {
    if (event === last && more > 0) event.data.more = more;
    try {
      await transact(db, [
        openConflictAction(db, conflictOf(announced[index] as string, event.event_id, true)),
        ...eventActions(db, config, event),
      ]);
      opened += 1;
    } catch (error) {
      // Opened by another run of this channel's sync: emitted once, by that run.
      if (!(error instanceof ConditionsFailedError)) throw error;
    }
  }
  return { opened, reopened };
}

/**
 * The conflicts one sync closes. Each close deletes the conflict and, when `remember` (the date left the
 * feed: it may come back), keeps what it named for CONFLICT_MEMORY_MS; an announced one also gets its
 * `channel.conflict_closed` record in the audit trail, up to CONFLICT_EVENTS_PER_SYNC of them, and
 * `finish` writes one more with the count of the rest.
 */
export function conflictCloser(
  db: Db,
  options: { channel: TenantChannel; config: StoredConfig; now: number },
) {
  const { channel, config, now } = options;
  const retentionDays = config.settings.webhooks.retention_days;
  const recorded = new Set<string>();
  const unrecorded = new Set<string>();
  const wasAnnounced = (conflict: ChannelConflict) => conflict.announced !== false;
  return {
    /** The actions that close a conflict (3 at most; only the close itself is conditional). */
    actionsOf(
      conflict: ChannelConflict,
      detail: { taken: boolean; remember: boolean },
    ): NamedAction<'conflict'>[] {
      const { slot } = conflict;
      if (wasAnnounced(conflict) && recorded.size < CONFLICT_EVENTS_PER_SYNC) recorded.add(slot);
      const event = channelEvent(channel, 'channel.conflict_closed', now, {
        item_id: conflict.item_id,
        slot,
        taken: detail.taken,
      });
      return named('conflict', [
        closeConflictAction(db, channel.id, slot),
        ...(detail.remember
          ? [
              rememberClosedAction(db, {
                channelId: channel.id,
                conflict: {
                  slot,
                  bookings: conflict.bookings ?? [],
                  event_id: conflict.event_id,
                  closed_at: now,
                },
                keepUntil: now + CONFLICT_MEMORY_MS,
              }),
            ]
          : []),
        ...(recorded.has(slot) ? [channelEventAction(db, event, { retentionDays })] : []),
      ]);
    },
    /** Notes a close that was applied. */
    applied(conflict: ChannelConflict): void {
      if (wasAnnounced(conflict) && !recorded.has(conflict.slot)) unrecorded.add(conflict.slot);
    },
    /** Writes the record that counts the announced closes left without one of their own. */
    async finish(): Promise<void> {
      if (unrecorded.size === 0) return;
      const event = channelEvent(channel, 'channel.conflict_closed', now, {
        item_id: channel.item_id,
        more: unrecorded.size,
      });
      await transact(db, [channelEventAction(db, event, { retentionDays })]);
    },
  };
}
