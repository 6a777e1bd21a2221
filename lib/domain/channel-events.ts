import { randomUUID } from 'node:crypto';
import type { TenantChannel } from '../config/tenant-schema.ts';
import { findBookingsHolding } from '../db/booking-list-repository.ts';
import {
  type ChannelConflict,
  type ChannelEvent,
  channelEventAction,
  openConflictAction,
} from '../db/channel-repository.ts';
import type { Db } from '../db/client.ts';
import { counterId } from '../db/stock-repository.ts';
import type { StoredConfig, StoredItem } from '../db/tenant-repository.ts';
import { ConditionsFailedError, type TransactItem, transact } from '../db/transact.ts';
import { webhookEventActions } from '../db/webhook-outbox.ts';
import { isInactive } from './booking.ts';
import { subscribersOf } from './webhooks.ts';

// A channel's events (its audit trail and, for subscribers, webhooks) and the conflicts they announce.

/** Counters asked about in one "who holds it" query (the filter expression stays small). */
const HOLDER_QUERY_COUNTERS = 40;

/** A new event of a channel. */
export const channelEvent = (
  channel: TenantChannel,
  type: string,
  at: number,
  data: Record<string, unknown>,
): ChannelEvent => ({ event_id: randomUUID(), type, at, channel_id: channel.id, data });

/** The audit entry of a channel event and, for the endpoints that subscribe to it, its webhook deliveries. */
export function eventActions(db: Db, config: StoredConfig, event: ChannelEvent): TransactItem[] {
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
 * Records each slot as a conflict, once, with the bookings holding it (a conditional put in the same
 * transaction as its `channel.conflict` event), and answers how many this run opened.
 */
export async function openConflicts(
  deps: { db: Db },
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
