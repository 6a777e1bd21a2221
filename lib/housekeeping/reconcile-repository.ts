import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { clientHoldKey, clientSessionsKey, clientUnpaidKey, stockKey } from '../kernel/storage/keys.ts';
import { applyIfCondition } from '../kernel/storage/operations.ts';
import type { SessionLine } from '../sessions/index.ts';
import { COUNTER_FIELDS, counterValues } from '../stock/index.ts';

/** Everything the invariant check reads: counters, holding sessions, bookings and channel blocks. */
export interface HoldingSnapshot {
  counters: { itemId: number; slot: string; used: number }[];
  sessions: {
    id: string;
    status: string;
    expires_at: number;
    holds: Record<string, number>;
    client?: string;
    /** Its lines, to tell whether what they hold is what their items take now. */
    lines?: Record<string, SessionLine>;
  }[];
  bookings: {
    id: string;
    code?: string;
    status_id: string;
    holds: Record<string, number>;
    lines?: Record<string, SessionLine>;
    /** While unpaid: the client it counts against and the units it counts there. */
    budget?: { client: string; holds: Record<string, number> };
  }[];
  /** The blocks channels hold, each of `units` of one counter. */
  channelBlocks: { channelId: string; itemId: number; slot: string; units: number }[];
  /** What each client holds of each counter, by its budget records. */
  clientHolds: { client: string; counterId: string; held: number }[];
  /** Each client's recorded set of holding sessions. */
  clientSessions: { client: string; sessions: string[] }[];
  /** Each client's recorded count of unpaid bookings. */
  clientUnpaid: { client: string; unpaid: number }[];
}

/**
 * Reads every counter, session, booking and channel block of the table. This is the one deliberate scan: an operator's
 * whole-table check, never a request path. Segments run in parallel.
 */
export async function scanHoldings(db: Db, segments = 4): Promise<HoldingSnapshot> {
  const snapshot: HoldingSnapshot = {
    counters: [],
    sessions: [],
    bookings: [],
    channelBlocks: [],
    clientHolds: [],
    clientSessions: [],
    clientUnpaid: [],
  };
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let cursor: Record<string, unknown> | undefined;
      do {
        const page = await db.documents.send(
          new ScanCommand({
            TableName: db.tableName,
            Segment: segment,
            TotalSegments: segments,
            ConsistentRead: true,
            FilterExpression:
              'entity IN (:stock, :session, :booking, :clientHold, :clientSessions, :clientUnpaid, :block)',
            ExpressionAttributeValues: {
              ':stock': 'stock',
              ':session': 'session',
              ':booking': 'booking',
              ':clientHold': 'client_hold',
              ':clientSessions': 'client_sessions',
              ':clientUnpaid': 'client_unpaid',
              ':block': 'channel_block',
            },
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
              ...(item.client ? { client: String(item.client) } : {}),
              ...(item.lines ? { lines: item.lines } : {}),
            });
          } else if (item.entity === 'channel_block') {
            snapshot.channelBlocks.push({
              channelId: String(item.channel_id),
              itemId: Number(item.item_id),
              slot: String(item.slot),
              units: Number(item.units),
            });
          } else if (item.entity === 'client_hold') {
            snapshot.clientHolds.push({
              client: String(item.pk).slice('CLIENT#'.length),
              counterId: String(item.sk).slice('HOLD#'.length),
              held: Number(item.held ?? 0),
            });
          } else if (item.entity === 'client_unpaid') {
            snapshot.clientUnpaid.push({
              client: String(item.pk).slice('CLIENT#'.length),
              unpaid: Number(item.unpaid ?? 0),
            });
          } else if (item.entity === 'client_sessions') {
            snapshot.clientSessions.push({
              client: String(item.pk).slice('CLIENT#'.length),
              sessions: [...((item.sessions as Set<string> | undefined) ?? [])],
            });
          } else {
            snapshot.bookings.push({
              id: String(item.pk),
              ...(item.code ? { code: String(item.code) } : {}),
              status_id: String(item.status_id),
              holds: item.holds ?? {},
              ...(item.lines ? { lines: item.lines } : {}),
              ...(item.budget ? { budget: item.budget } : {}),
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
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: stockKey(options.itemId, options.slot),
        UpdateExpression: `SET used = :expected, ${COUNTER_FIELDS}`,
        ConditionExpression:
          options.seen === 0 ? 'attribute_not_exists(used) OR used = :seen' : 'used = :seen',
        ExpressionAttributeValues: {
          ':expected': options.expected,
          ':seen': options.seen,
          ...counterValues(options.itemId, options.slot),
        },
      }),
    ),
  );
}

/** Sets what a client holds of a counter to the recomputed value, only if it still holds what was seen. */
export async function fixClientHold(
  db: Db,
  options: { client: string; counterId: string; seen: number; expected: number },
): Promise<boolean> {
  return applyIfCondition(() =>
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: clientHoldKey(options.client, options.counterId),
        UpdateExpression: 'SET held = :expected, entity = :entity',
        ConditionExpression:
          options.seen === 0 ? 'attribute_not_exists(held) OR held = :seen' : 'held = :seen',
        ExpressionAttributeValues: {
          ':expected': options.expected,
          ':seen': options.seen,
          ':entity': 'client_hold',
        },
      }),
    ),
  );
}

/** Replaces a client's set of holding sessions with the recomputed one, only if it is still what was seen. */
export async function fixClientSessions(
  db: Db,
  options: { client: string; seen: string[]; expected: string[] },
): Promise<boolean> {
  const seen = options.seen.length ? 'size(sessions) = :count' : 'attribute_not_exists(sessions)';
  const condition = [seen, ...options.seen.map((_, index) => `contains(sessions, :s${index})`)].join(' AND ');
  return applyIfCondition(() =>
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: clientSessionsKey(options.client),
        UpdateExpression: options.expected.length
          ? 'SET sessions = :expected, entity = :entity'
          : 'REMOVE sessions SET entity = :entity',
        ConditionExpression: condition,
        ExpressionAttributeValues: {
          ':entity': 'client_sessions',
          ...(options.expected.length ? { ':expected': new Set(options.expected) } : {}),
          ...(options.seen.length ? { ':count': options.seen.length } : {}),
          ...Object.fromEntries(options.seen.map((id, index) => [`:s${index}`, id])),
        },
      }),
    ),
  );
}

/** Sets a client's count of unpaid bookings to the recomputed value, only if it still is what was seen. */
export async function fixClientUnpaid(
  db: Db,
  options: { client: string; seen: number; expected: number },
): Promise<boolean> {
  return applyIfCondition(() =>
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: clientUnpaidKey(options.client),
        UpdateExpression: 'SET unpaid = :expected, entity = :entity',
        ConditionExpression:
          options.seen === 0 ? 'attribute_not_exists(unpaid) OR unpaid = :seen' : 'unpaid = :seen',
        ExpressionAttributeValues: {
          ':expected': options.expected,
          ':seen': options.seen,
          ':entity': 'client_unpaid',
        },
      }),
    ),
  );
}
