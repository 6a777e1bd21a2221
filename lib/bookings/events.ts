import type { StoredConfig } from '../config/index.ts';
import type { StoredEvent } from '../kernel/events.ts';
import type { Db } from '../kernel/storage/database.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import { type StoredWebhookEvent, subscribersOf, webhookEventActions } from '../webhooks/index.ts';

import { putEventAction, type StoredBooking, type StoredNote, type StoredPayment } from './repository.ts';

/** The tenant settings a booking is shown with (names, money, dates, taxes), as they were at the event. */
export type SnapshotConfig = Pick<StoredConfig, 'statuses' | 'taxes' | 'locale'> & { timezone: string };

/** The booking as it was at an event: what a webhook payload shows, whenever it is delivered. */
export interface BookingSnapshot {
  booking: StoredBooking;
  notes: StoredNote[];
  payments: StoredPayment[];
  config?: SnapshotConfig;
  /** Notes left out because the snapshot would not fit in one record (counted here). */
  notes_omitted?: number;
}

/** The booking snapshot of a booking's event kept for delivery (none for other events). */
export const bookingSnapshotOf = (event: StoredWebhookEvent): BookingSnapshot | undefined =>
  event.booking_id ? (event.snapshot as BookingSnapshot | undefined) : undefined;

/** A snapshot too big for one record keeps everything but its notes, and says how many it left out. */
const withoutNotes = (snapshot: BookingSnapshot): BookingSnapshot => ({
  ...snapshot,
  notes: [],
  notes_omitted: snapshot.notes.length,
});

/**
 * The writes that record a booking event, for the transaction of the change it describes: the audit
 * entry and, when an endpoint subscribes to it, the outbox (the booking as it is after the change, and a
 * pending delivery per endpoint), so a committed change can never lose its notifications.
 */
export function bookingEventActions(
  ctx: { db: Db; config: StoredConfig },
  options: { event: StoredEvent; snapshot: BookingSnapshot },
): TransactItem[] {
  const { booking } = options.snapshot;
  const bookingId = booking.booking_id;
  const { statuses, taxes, locale } = ctx.config;
  return [
    putEventAction(ctx.db, bookingId, options.event),
    ...webhookEventActions(ctx.db, {
      event: {
        event: options.event,
        booking_id: bookingId,
        // The version each change of a booking takes in its own transaction: the order of its changes.
        sequence: booking.version,
        // What the booking is shown with, as it is now: delivered later, it still reads as it did.
        snapshot: {
          ...options.snapshot,
          config: { statuses, taxes, locale, timezone: ctx.config.company.timezone },
        },
      },
      endpointIds: subscribersOf(ctx.config, options.event.type),
      retentionDays: ctx.config.settings.webhooks.retention_days,
      shrink: withoutNotes,
    }),
  ];
}
