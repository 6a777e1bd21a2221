import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#lib/kernel/storage/database.ts';
import type { RecordedEvent } from './audit-webhooks.ts';

// The events the service committed to its webhook outbox, read from the table itself for the soak's audit
// (issue 31). A whole-table scan: an audit tool run once after the drain, never a request path.

/**
 * Reads every `webhook_event` record of the table, page by page (consistently, and without the booking
 * snapshots, which the audit does not need).
 */
export async function readRecordedEvents(
  db: Db,
  options: { pageSize?: number } = {},
): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.documents.send(
      new ScanCommand({
        TableName: db.tableName,
        ConsistentRead: true,
        FilterExpression: 'entity = :e',
        ExpressionAttributeValues: { ':e': 'webhook_event' },
        ProjectionExpression: '#event.event_id, #event.#type, #event.#at, booking_id, #sequence',
        ExpressionAttributeNames: {
          '#event': 'event',
          '#type': 'type',
          '#at': 'at',
          '#sequence': 'sequence',
        },
        ...(options.pageSize ? { Limit: options.pageSize } : {}),
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) {
      const event = item.event as { event_id: string; type: string; at: number };
      events.push({
        event_id: String(event.event_id),
        type: String(event.type),
        booking_id: Number(item.booking_id),
        sequence: Number(item.sequence ?? 0),
        at: Number(event.at),
      });
    }
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return events;
}
