import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './client.ts';
import { stockKey } from './keys.ts';
import { applyIfCondition } from './operations.ts';

/** Everything the invariant check reads: counters, holding sessions and bookings. */
export interface HoldingSnapshot {
  counters: { itemId: number; slot: string; used: number }[];
  sessions: { id: string; status: string; expires_at: number; holds: Record<string, number> }[];
  bookings: { id: string; status_id: string; holds: Record<string, number> }[];
}

/**
 * Reads every counter, session and booking of the table. This is the one deliberate scan: an operator's
 * whole-table check, never a request path. Segments run in parallel.
 */
export async function scanHoldings(db: Db, segments = 4): Promise<HoldingSnapshot> {
  const snapshot: HoldingSnapshot = { counters: [], sessions: [], bookings: [] };
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let cursor: Record<string, unknown> | undefined;
      do {
        const page = await db.client.send(
          new ScanCommand({
            TableName: db.tableName,
            Segment: segment,
            TotalSegments: segments,
            ConsistentRead: true,
            FilterExpression: 'entity IN (:stock, :session, :booking)',
            ExpressionAttributeValues: { ':stock': 'stock', ':session': 'session', ':booking': 'booking' },
            ExclusiveStartKey: cursor,
          }),
        );
        for (const item of page.Items ?? []) {
          if (item.entity === 'stock') {
            snapshot.counters.push({
              itemId: Number(item.item_id),
              slot: String(item.sk),
              used: Number(item.used ?? 0),
            });
          } else if (item.entity === 'session') {
            snapshot.sessions.push({
              id: String(item.id),
              status: String(item.status),
              expires_at: Number(item.expires_at),
              holds: item.holds ?? {},
            });
          } else {
            snapshot.bookings.push({
              id: String(item.pk),
              status_id: String(item.status_id),
              holds: item.holds ?? {},
            });
          }
        }
        cursor = page.LastEvaluatedKey;
      } while (cursor);
    }),
  );
  return snapshot;
}

/** Sets a counter's `used` to the recomputed value, only if it still holds what was seen. */
export async function fixCounter(
  db: Db,
  options: { itemId: number; slot: string; seen: number; expected: number },
): Promise<boolean> {
  return applyIfCondition(() =>
    db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: stockKey(options.itemId, options.slot),
        UpdateExpression: 'SET used = :expected, entity = :entity, item_id = :item',
        ConditionExpression:
          options.seen === 0 ? 'attribute_not_exists(used) OR used = :seen' : 'used = :seen',
        ExpressionAttributeValues: {
          ':expected': options.expected,
          ':seen': options.seen,
          ':entity': 'stock',
          ':item': options.itemId,
        },
      }),
    ),
  );
}
