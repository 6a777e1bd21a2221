import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#lib/kernel/storage/database.ts';
import { stockKey, sweeperStateKey } from '#lib/kernel/storage/keys.ts';
import { putSessionAction, type SessionLine, type StoredSession } from '#lib/sessions/repository.ts';
import { newSessionId } from '#lib/sessions/session.ts';
import { encodeSlip } from '#lib/slip/codec.ts';
import { TEST_SLIP_KEY } from './deps.ts';

// Expired carts written straight into a table, as the API would have left them, for the sweeper's test and
// its flood in `npm run bench` (test/bench/sweeper.ts). No vitest here: the benchmark runs it under tsx.

/** `count` cart lines of item 1 on `slot`, each with its signed SLIP, as big as the API stores them. */
export function cartLines(slot: string, count: number): Record<string, SessionLine> {
  const lines: Record<string, SessionLine> = {};
  for (let index = 1; index <= count; index += 1) {
    const payload = {
      tenant: 'demo',
      itemId: 1,
      start: slot,
      end: slot,
      params: { adults: index, children: 1 },
      expiresAt: 4_102_444_800,
    };
    lines[String(index)] = {
      line_id: String(index),
      item_id: 1,
      sku: 'flood',
      name: 'Flood kayak',
      unit: 'D',
      slip: encodeSlip(payload, TEST_SLIP_KEY),
      payload,
      qty: 1,
      holds_per_qty: { [`1|${slot}`]: 1 },
      sub_total: 13_000,
      parts: {},
      start_date: slot,
      end_date: slot,
      last_date: slot,
      length: 1,
      added_at: 0,
    };
  }
  return lines;
}

/**
 * A session record that expired at `expiredAt` (ms), holding one unit of item 1 on `slot` (or `holds`), with
 * `lines` cart lines (none by default: the sweeper reads only the holds, but lines make a record its size).
 */
export const expiredSession = (
  slot: string,
  expiredAt: number,
  options: { holds?: Record<string, unknown>; lines?: number } = {},
): StoredSession => ({
  id: newSessionId(),
  status: 'open',
  version: 1,
  created_at: expiredAt - 900_000,
  updated_at: expiredAt - 900_000,
  expires_at: Math.floor(expiredAt / 1000),
  next_line: (options.lines ?? 0) + 1,
  lines: options.lines ? cartLines(slot, options.lines) : {},
  holds: (options.holds ?? { [`1|${slot}`]: 1 }) as Record<string, number>,
});

/** Writes sessions and their counters directly (fast setup); the counters add up to the holds. */
export async function seedSessions(db: Db, sessions: StoredSession[]): Promise<void> {
  const records = sessions.map(
    (session) =>
      (putSessionAction(db, { session, nowSeconds: 0 }).Put as { Item: Record<string, unknown> }).Item,
  );
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < records.length; start += 25) chunks.push(records.slice(start, start + 25));
  for (let start = 0; start < chunks.length; start += 8) {
    await Promise.all(
      chunks.slice(start, start + 8).map(async (chunk) => {
        let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length) {
          const result = await db.documents.send(
            new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }),
          );
          pending = (result.UnprocessedItems?.[db.tableName] ?? []) as typeof pending;
        }
      }),
    );
  }
  const used = new Map<string, number>();
  for (const session of sessions) {
    for (const [id, units] of Object.entries(session.holds)) {
      if (typeof units === 'number') used.set(id, (used.get(id) ?? 0) + units);
    }
  }
  await Promise.all(
    [...used].map(([id, units]) =>
      db.documents.send(
        new PutCommand({
          TableName: db.tableName,
          Item: { ...stockKey(1, id.split('|')[1] ?? ''), entity: 'stock', item_id: 1, used: units },
        }),
      ),
    ),
  );
}

/** Sets where the next sweep starts reading (Unix seconds of a minute), as a sweep that finished there would. */
export const resetWatermark = (db: Db, minuteStart: number) =>
  db.documents.send(
    new PutCommand({ TableName: db.tableName, Item: { ...sweeperStateKey(), swept_until: minuteStart } }),
  );
