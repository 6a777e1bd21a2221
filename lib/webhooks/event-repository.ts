import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredEvent } from '../kernel/events.ts';
import type { Db } from '../kernel/storage/database.ts';
import { monthsBetween, webhookEventKey, webhookEventMonthPartition } from '../kernel/storage/keys.ts';
import { queryAll } from '../kernel/storage/operations.ts';
import { unixSeconds } from '../kernel/time.ts';
import { type StoredWebhookEvent, unpackSnapshot } from './outbox.ts';

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
  const { Item } = await db.documents.send(
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
