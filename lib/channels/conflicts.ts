import { randomUUID } from 'node:crypto';
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
// flaps does not announce the same double sale again), and no more than a few events a round.

/**
 * How long a closed conflict is remembered. Opened again within it on the same slot with the same bookings
 * (a feed that drops and lists the date again, round after round), it is re-opened without an event; each
 * such close starts the day again, so a flapping feed stays quiet for as long as it flaps.
 */
export const CONFLICT_MEMORY_MS = 86_400_000;

/**
 * The `channel.conflict` events one round emits, all its channels together (a sync-now is a round of one):
 * the last of them also carries `more`, the count of the others (GET channel lists every open one).
 */
export const CONFLICT_EVENTS_PER_ROUND = 10;

/**
 * The `channel.conflict_closed` records one channel's sync writes in its audit trail: past them, one more
 * says how many were left without one.
 */
export const CONFLICT_CLOSES_PER_SYNC = 10;

/** A conflict recorded without an event of its own, counted by the round's last event. */
interface CountedConflict {
  channel: TenantChannel;
  conflict: ChannelConflict;
}

/**
 * What one round announces of the conflicts its syncs open: the first CONFLICT_EVENTS_PER_ROUND - 1 each
 * get their own `channel.conflict` event as they are opened; the others are recorded under one event id
 * that `finish` emits at the end of the round, as the event of the first of them, with `more` the count of
 * the rest. Syncs of one round share it (they take their events in turn on the one thread).
 */
export function conflictAnnouncer() {
  let left = CONFLICT_EVENTS_PER_ROUND - 1;
  const counted: CountedConflict[] = [];
  const restEventId = randomUUID();
  return {
    /** The id of the event that will announce the conflicts recorded without one of their own. */
    restEventId,
    /** Takes up to `wanted` events of the round's own; answers how many were left to take. */
    take(wanted: number): number {
      const taken = Math.min(wanted, left);
      left -= taken;
      return taken;
    },
    /** Gives back an event that was not emitted (another run opened its conflict first). */
    giveBack(): void {
      left += 1;
    },
    /** Notes a conflict recorded under `restEventId`. */
    count(entry: CountedConflict): void {
      counted.push(entry);
    },
    /** Emits the event of the conflicts recorded without one, if any: the first's, with `more` the rest's count. */
    async finish(db: Db, config: StoredConfig): Promise<void> {
      const [first] = counted;
      if (!first) return;
      const { channel, conflict } = first;
      const event = {
        ...channelEvent(channel, 'channel.conflict', conflict.opened_at, {
          item_id: conflict.item_id,
          slot: conflict.slot,
          units: conflict.units,
          bookings: conflict.bookings,
          channel_name: channel.name,
          ...(counted.length > 1 ? { more: counted.length - 1 } : {}),
        }),
        event_id: restEventId,
      };
      await transact(db, eventActions(db, config, event));
    },
  };
}

/** The conflict announcements of one round. */
export type ConflictAnnouncer = ReturnType<typeof conflictAnnouncer>;

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
 * `channel.conflict` event in the same transaction (to the audit trail and the subscribed endpoints) while
 * the round's `announcer` has events left; the others are recorded in groups under the event the round
 * emits last, which counts them. One closed within CONFLICT_MEMORY_MS for the same bookings is re-opened
 * silently. Answers how many this run opened, and how many of those silently.
 */
export async function openConflicts(
  deps: { db: Db },
  options: {
    channel: TenantChannel;
    config: StoredConfig;
    item: StoredItem;
    slots: string[];
    closed: Map<string, ClosedConflict>;
    announcer: ConflictAnnouncer;
    now: number;
  },
): Promise<{ opened: number; reopened: number }> {
  const { db } = deps;
  const { channel, config, item, announcer, now } = options;
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
  const announced = fresh.slice(0, announcer.take(fresh.length));
  const counted = fresh.slice(announced.length).map((slot) => conflictOf(slot, announcer.restEventId, true));

  let opened = 0;
  let reopened = 0;
  await transactInGroups(db, [...silent, ...counted], {
    size: CONFLICTS_PER_TRANSACTION,
    actionsOf: (conflict) => named('conflict', [openConflictAction(db, conflict)]),
    onApplied: (conflict) => {
      opened += 1;
      if (!conflict.announced) reopened += 1;
      else announcer.count({ channel, conflict });
    },
    // Opened by another run of this channel's sync.
    onRefused: () => undefined,
  });
  for (const slot of announced) {
    const event = channelEvent(channel, 'channel.conflict', now, {
      item_id: item.item_id,
      slot,
      units: channel.units,
      bookings: holders.get(slot) ?? [],
      channel_name: channel.name,
    });
    try {
      await transact(db, [
        openConflictAction(db, conflictOf(slot, event.event_id, true)),
        ...eventActions(db, config, event),
      ]);
      opened += 1;
    } catch (error) {
      // Opened by another run of this channel's sync: emitted once, by that run.
      if (!(error instanceof ConditionsFailedError)) throw error;
      announcer.giveBack();
    }
  }
  return { opened, reopened };
}

/**
 * The conflicts one sync closes. Each close deletes the conflict and, when `remember` (the date left the
 * feed: it may come back), keeps what it named for CONFLICT_MEMORY_MS; an announced one also gets its
 * `channel.conflict_closed` record in the audit trail, up to CONFLICT_CLOSES_PER_SYNC of them, and
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
      if (wasAnnounced(conflict) && recorded.size < CONFLICT_CLOSES_PER_SYNC) recorded.add(slot);
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
