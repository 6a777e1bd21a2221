import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { StoredEvent } from '../kernel/events.ts';
import type { Db } from '../kernel/storage/database.ts';
import {
  webhookDeliveryKey,
  webhookEventIndexKeys,
  webhookEventKey,
  webhookPendingKeys,
} from '../kernel/storage/keys.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';

// The transactional outbox: the records an event leaves for delivery and how they are written. The event
// and delivery repositories both read and update these records, so their shapes live here, below both.

/**
 * An event kept for delivery, with `snapshot`: what its payload is rendered from, as it was at the event
 * (the booking, for a booking's event), opaque to the outbox.
 */
export interface StoredWebhookEvent<S = unknown> {
  event: StoredEvent;
  booking_id: number;
  /** The booking's version after the change (0 for an event about no booking): the delivery order. */
  sequence: number;
  /** What the payload shows, as it was; absent for events that are not about a booking (`webhook.disabled`). */
  snapshot?: S;
}

/** What happened on one attempt. */
export interface DeliveryAttempt {
  at: number;
  status: number;
  duration_ms: number;
  outcome: string;
  error?: string;
  /** At most the first 1 KB of the response. */
  body?: string;
}

/** The delivery of one event to one endpoint. */
export interface StoredDelivery {
  endpoint_id: string;
  event_id: string;
  event_type: string;
  event_at: number;
  booking_id: number;
  sequence: number;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  /** Failed attempts since the last success or replay: the position in the retry schedule. */
  failures: number;
  next_at: number;
  attempts: DeliveryAttempt[];
  lease_until?: number;
  /** Who holds the lease: only its attempt may finish the delivery. */
  lease_id?: string;
  created_at: number;
  updated_at: number;
}

const DAY_SECONDS = 86_400;

/** The TTL (epoch seconds) of an outbox record kept `retentionDays` past a time in milliseconds. */
export const retentionTtl = (fromMs: number, retentionDays: number) =>
  unixSeconds(fromMs) + retentionDays * DAY_SECONDS;

/** A snapshot stays under this size (compressed), so an event record never outgrows DynamoDB's 400 KB. */
const SNAPSHOT_LIMIT = 300_000;

/**
 * A snapshot as stored: compressed JSON; one that would not fit is `shrink`'s smaller version of itself (a
 * booking's without its notes).
 */
function packSnapshot<S>(snapshot: S, shrink?: (snapshot: S) => S): Uint8Array {
  const packed = deflateRawSync(JSON.stringify(snapshot));
  if (packed.length <= SNAPSHOT_LIMIT || !shrink) return packed;
  return deflateRawSync(JSON.stringify(shrink(snapshot)));
}

/** A stored snapshot read back: compressed, or JSON text as records from before compression keep it. */
export const unpackSnapshot = (stored: unknown): unknown => {
  if (stored instanceof Uint8Array) return JSON.parse(inflateRawSync(stored).toString('utf8'));
  return typeof stored === 'string' ? JSON.parse(stored) : undefined;
};

/** A delivery as stored, with its index keys while it is pending. */
const deliveryItem = (delivery: StoredDelivery, ttl: number) => ({
  ...webhookDeliveryKey(delivery.endpoint_id, delivery.event_at, delivery.event_id),
  entity: 'webhook_delivery',
  ...delivery,
  ...(delivery.status === 'pending'
    ? webhookPendingKeys({
        endpointId: delivery.endpoint_id,
        bookingId: delivery.booking_id,
        sequence: delivery.sequence,
        eventAtMs: delivery.event_at,
        eventId: delivery.event_id,
        nextAtMs: delivery.next_at,
      })
    : {}),
  ttl,
});

/**
 * The outbox writes of one event, for the transaction that records it: the event with the booking as it
 * is now, and a pending delivery to each endpoint that subscribes to it.
 */
export function webhookEventActions<S>(
  db: Db,
  options: {
    event: StoredWebhookEvent<S>;
    endpointIds: string[];
    retentionDays: number;
    /** A smaller snapshot for one too big to keep whole. */
    shrink?: (snapshot: S) => S;
  },
): TransactItem[] {
  const { event } = options;
  if (options.endpointIds.length === 0) return [];
  const at = event.event.at;
  const ttl = retentionTtl(at, options.retentionDays);
  return [
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...webhookEventKey(event.event.event_id),
          entity: 'webhook_event',
          event: event.event,
          booking_id: event.booking_id,
          sequence: event.sequence,
          // Compressed in one binary attribute: a booking with many notes stays well under 400 KB.
          ...(event.snapshot ? { snapshot: packSnapshot(event.snapshot, options.shrink) } : {}),
          ...webhookEventIndexKeys(at, event.event.event_id),
          ttl,
        },
      },
    },
    ...options.endpointIds.map((endpointId) => ({
      Put: {
        TableName: db.tableName,
        Item: deliveryItem(
          {
            endpoint_id: endpointId,
            event_id: event.event.event_id,
            event_type: event.event.type,
            event_at: at,
            booking_id: event.booking_id,
            sequence: event.sequence,
            status: 'pending',
            failures: 0,
            next_at: at,
            attempts: [],
            created_at: at,
            updated_at: at,
          },
          ttl,
        ),
      },
    })),
  ];
}
