import type { Db } from './client.ts';
import { stockPartition } from './keys.ts';
import { queryAll } from './operations.ts';

/** How much of each slot of one item is used, by slot key; slots never touched are absent (0). */
export type UsedBySlot = Map<string, number>;

/**
 * Reads the counters of one item over a slot range in one query (paged only past 1 MB), so the number
 * of calls never grows with the number of dates.
 */
export async function queryStockRange(
  db: Db,
  options: { itemId: number; first: string; last: string },
): Promise<UsedBySlot> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
    ExpressionAttributeValues: {
      ':pk': stockPartition(options.itemId),
      ':first': options.first,
      ':last': options.last,
    },
    ProjectionExpression: 'sk, used',
  });
  return new Map(records.map((record) => [String(record.sk), Number(record.used ?? 0)]));
}

/** Reads the counters of several items over their ranges concurrently: one query per item. */
export async function queryStockRanges(
  db: Db,
  ranges: { itemId: number; first: string; last: string }[],
): Promise<(itemId: number, slot: string) => number> {
  const results = await Promise.all(
    ranges.map(async (range) => [range.itemId, await queryStockRange(db, range)] as const),
  );
  const byItem = new Map(results);
  return (itemId, slot) => byItem.get(itemId)?.get(slot) ?? 0;
}
