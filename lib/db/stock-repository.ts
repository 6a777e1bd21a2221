import type { Db } from './client.ts';
import { stockKey, stockPartition } from './keys.ts';
import { queryAll } from './operations.ts';
import type { TransactItem } from './transact.ts';

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

/** Splits a counter id into its item and slot. */
export const parseCounterId = (counterId: string): { itemId: number; slot: string } => {
  const [item = '', slot = ''] = counterId.split('|');
  return { itemId: Number(item), slot };
};

/** The counter id of an item slot. */
export const counterId = (itemId: number, slot: string): string => `${itemId}|${slot}`;

/**
 * Holds `units` of a counter: `used` grows only while it stays within capacity. Conditions cannot add,
 * so the caller passes capacity − units, computed from item configuration read in the same request.
 */
export function holdStockAction(
  db: Db,
  options: { itemId: number; slot: string; units: number; capacity: number },
): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: stockKey(options.itemId, options.slot),
      UpdateExpression: 'SET used = if_not_exists(used, :zero) + :units, entity = :entity, item_id = :item',
      ConditionExpression: 'attribute_not_exists(used) OR used <= :room',
      ExpressionAttributeValues: {
        ':zero': 0,
        ':units': options.units,
        ':room': options.capacity - options.units,
        ':entity': 'stock',
        ':item': options.itemId,
      },
    },
  };
}

/** Takes `units` of a counter without a capacity condition (an item that is unlimited now). */
export function takeStockAction(
  db: Db,
  options: { itemId: number; slot: string; units: number },
): TransactItem {
  return releaseStockAction(db, { ...options, units: -options.units });
}

/** Releases `units` of a counter. */
export function releaseStockAction(
  db: Db,
  options: { itemId: number; slot: string; units: number },
): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: stockKey(options.itemId, options.slot),
      UpdateExpression: 'SET used = if_not_exists(used, :zero) - :units, entity = :entity, item_id = :item',
      ExpressionAttributeValues: {
        ':zero': 0,
        ':units': options.units,
        ':entity': 'stock',
        ':item': options.itemId,
      },
    },
  };
}
