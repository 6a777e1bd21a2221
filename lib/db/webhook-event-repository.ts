import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unixSeconds } from '../core/time.ts';
import type { StoredBooking, StoredEvent, StoredNote, StoredPayment } from './booking-repository.ts';
import type { Db } from './client.ts';
import { monthsBetween, webhookEventIndexKeys, webhookEventKey, webhookEventMonthPartition } from './keys.ts';
import { queryAll } from './operations.ts';
import type { StoredConfig } from './tenant-repository.ts';
import type { TransactItem } from './transact.ts';
import { deliveryItem, expiryOf } from './webhook-delivery-repository.ts';

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

/** An event kept for delivery. */
export interface StoredWebhookEvent {
  event: StoredEvent;
  booking_id: number;
  /** The booking's version after the change (0 for an event about no booking): the delivery order. */
  sequence: number;
  /** The booking at that event; absent for events that are not about a booking (`webhook.disabled`). */
  snapshot?: BookingSnapshot;
}

/** A snapshot stays under this size (compressed), so an event record never outgrows DynamoDB's 400 KB. */
const SNAPSHOT_LIMIT = 300_000;

/** A snapshot as stored: compressed JSON, without the notes if even that would not fit. */
export function packSnapshot(snapshot: BookingSnapshot): Uint8Array {
  const packed = deflateRawSync(JSON.stringify(snapshot));
  if (packed.length <= SNAPSHOT_LIMIT) return packed;
  return deflateRawSync(
    JSON.stringify({
      ...snapshot,
      notes: [],
      notes_omitted: snapshot.notes.length,
    } satisfies BookingSnapshot),
  );
}

const unpackSnapshot = (stored: unknown): BookingSnapshot | undefined => {
  if (stored instanceof Uint8Array)
    return JSON.parse(inflateRawSync(stored).toString('utf8')) as BookingSnapshot;
  return typeof stored === 'string' ? (JSON.parse(stored) as BookingSnapshot) : undefined;
};

/**
 * The outbox writes of one event, for the transaction that records it: the event with the booking as it
 * is now, and a pending delivery to each endpoint that subscribes to it.
 */
export function webhookEventActions(
  db: Db,
  options: { event: StoredWebhookEvent; endpointIds: string[]; retentionDays: number },
): TransactItem[] {
  const { event } = options;
  if (options.endpointIds.length === 0) return [];
  const at = event.event.at;
  const ttl = expiryOf(at, options.retentionDays);
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
          ...(event.snapshot ? { snapshot: packSnapshot(event.snapshot) } : {}),
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

const eventOf = (item: Record<string, unknown>): StoredWebhookEvent => {
  const snapshot = unpackSnapshot(item.snapshot);
  return {
    event: item.event as StoredEvent,
    booking_id: Number(item.booking_id),
    sequence: Number(item.sequence ?? 0),
    ...(snapshot ? { snapshot } : {}),
  };
};

/** Reads an event kept for delivery. */
export async function getWebhookEvent(db: Db, eventId: string): Promise<StoredWebhookEvent | undefined> {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: webhookEventKey(eventId) }),
  );
  return Item ? eventOf(Item) : undefined;
}

/** Lists the events kept for delivery from `from` to `to` (milliseconds), oldest first, at most `limit`. */
export async function listWebhookEventsBetween(
  db: Db,
  options: { from: number; to: number; limit: number },
): Promise<StoredWebhookEvent[]> {
  const found: StoredWebhookEvent[] = [];
  // A range that ends before it starts holds nothing (and DynamoDB refuses a BETWEEN that way round).
  if (options.from > options.to) return found;
  const pad = (ms: number) => String(Math.max(0, ms)).padStart(15, '0');
  for (const month of monthsBetween(unixSeconds(options.from), unixSeconds(options.to)).reverse()) {
    const records = await queryAll(db, {
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :month AND gsi3sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':month': webhookEventMonthPartition(month),
        ':from': pad(options.from),
        ':to': `${pad(options.to)}~`,
      },
    });
    for (const record of records) {
      found.push(eventOf(record));
      if (found.length >= options.limit) return found;
    }
  }
  return found;
}
