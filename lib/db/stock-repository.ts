import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { addDays } from '../core/dates.ts';
import type { Db } from './client.ts';
import { stockDayIndexKeys, stockDayPartition, stockKey, stockPartition } from './keys.ts';
import { applyIfCondition, queryAll } from './operations.ts';
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

/** What every write of a counter sets besides `used`: its kind, its item and its date-index keys. */
export const COUNTER_FIELDS = 'entity = :entity, item_id = :item, gsi3pk = :dayPk, gsi3sk = :daySk';

/** The values of COUNTER_FIELDS for a counter. */
export const counterValues = (itemId: number, slot: string) => {
  const { gsi3pk, gsi3sk } = stockDayIndexKeys(itemId, slot);
  return { ':entity': 'stock', ':item': itemId, ':dayPk': gsi3pk, ':daySk': gsi3sk };
};

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
      UpdateExpression: `SET used = if_not_exists(used, :zero) + :units, ${COUNTER_FIELDS}`,
      ConditionExpression: 'attribute_not_exists(used) OR used <= :room',
      ExpressionAttributeValues: {
        ':zero': 0,
        ':units': options.units,
        ':room': options.capacity - options.units,
        ...counterValues(options.itemId, options.slot),
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
      UpdateExpression: `SET used = if_not_exists(used, :zero) - :units, ${COUNTER_FIELDS}`,
      ExpressionAttributeValues: {
        ':zero': 0,
        ':units': options.units,
        ...counterValues(options.itemId, options.slot),
      },
    },
  };
}

/** The UTC days (YYYYMMDD) that slot ranges cover, each once, in order. */
export function daysOfRanges(ranges: { first: string; last: string }[]): string[] {
  const days = new Set<string>();
  for (const range of ranges) {
    const last = range.last.slice(0, 8);
    for (let day = range.first.slice(0, 8); day <= last; day = addDays(day, 1)) days.add(day);
  }
  return [...days].sort();
}

/** Every item's counters of one day, from the date index: one query (paged only past 1 MB). */
const queryStockDay = (db: Db, day: string) =>
  queryAll(db, {
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk',
    ExpressionAttributeValues: { ':pk': stockDayPartition(day) },
    ProjectionExpression: 'item_id, sk, used',
  });

/**
 * The counters of several items over their ranges, read the cheaper way: from the date index, one query a
 * day whatever the number of items, when every counter of the tenant is indexed (`dayIndex`) and the days
 * are fewer than the items; otherwise one query per item. Both are eventually consistent reads, as a list
 * always was: a hold never relies on them, it is conditional on the counter itself.
 */
export async function readStock(
  db: Db,
  ranges: { itemId: number; first: string; last: string }[],
  options: { dayIndex: boolean },
): Promise<(itemId: number, slot: string) => number> {
  const days = options.dayIndex ? daysOfRanges(ranges) : [];
  if (!options.dayIndex || days.length >= ranges.length) return queryStockRanges(db, ranges);
  const wanted = new Map(ranges.map((range) => [range.itemId, range]));
  const byItem = new Map<number, UsedBySlot>();
  for (const records of await Promise.all(days.map((day) => queryStockDay(db, day)))) {
    for (const record of records) {
      const itemId = Number(record.item_id);
      const slot = String(record.sk);
      const range = wanted.get(itemId);
      if (!range || slot < range.first || slot > range.last) continue;
      const used = byItem.get(itemId) ?? new Map<string, number>();
      used.set(slot, Number(record.used ?? 0));
      byItem.set(itemId, used);
    }
  }
  return (itemId, slot) => byItem.get(itemId)?.get(slot) ?? 0;
}

/**
 * Adds the date-index keys to the counters of items that were written before the index existed (their
 * `used` untouched, nothing created), and answers how many it indexed. Idempotent.
 */
export async function indexStockCounters(db: Db, itemIds: number[]): Promise<number> {
  let indexed = 0;
  for (const itemId of itemIds) {
    const unindexed = await queryAll(db, {
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'attribute_not_exists(gsi3pk)',
      ExpressionAttributeValues: { ':pk': stockPartition(itemId) },
      ProjectionExpression: 'sk',
    });
    for (const record of unindexed) {
      const slot = String(record.sk);
      const { gsi3pk, gsi3sk } = stockDayIndexKeys(itemId, slot);
      const done = await applyIfCondition(() =>
        db.client.send(
          new UpdateCommand({
            TableName: db.tableName,
            Key: stockKey(itemId, slot),
            UpdateExpression: 'SET gsi3pk = :dayPk, gsi3sk = :daySk',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':dayPk': gsi3pk, ':daySk': gsi3sk },
          }),
        ),
      );
      if (done) indexed += 1;
    }
  }
  return indexed;
}
