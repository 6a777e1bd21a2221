import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { datesFrom } from '../kernel/dates.ts';
import type { Db } from '../kernel/storage/database.ts';
import { stockIndexKeys, stockKey, stockMonthPartition, stockPartition } from '../kernel/storage/keys.ts';
import { applyIfCondition, queryAll } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';

/** How much of each slot of one item is used, by slot key; slots never touched are absent (0). */
export type UsedBySlot = Map<string, number>;

/**
 * Reads the counters of one item over a slot range in one query (paged only past 1 MB), so the number
 * of calls never grows with the number of dates.
 */
export async function queryStockRange(
  db: Db,
  options: { itemId: number; first: string; last: string; consistent?: boolean },
): Promise<UsedBySlot> {
  const records = await queryAll(db, {
    ...(options.consistent ? { ConsistentRead: true } : {}),
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

/** What every write of a counter sets besides `used`: its kind, its item and its span-index keys. */
export const COUNTER_FIELDS = 'entity = :entity, item_id = :item, gsi3pk = :indexPk, gsi3sk = :indexSk';

/** The values of COUNTER_FIELDS for a counter. */
export const counterValues = (itemId: number, slot: string) => {
  const { gsi3pk, gsi3sk } = stockIndexKeys(itemId, slot);
  return { ':entity': 'stock', ':item': itemId, ':indexPk': gsi3pk, ':indexSk': gsi3sk };
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

/** The UTC day of a slot: a daily slot is its date, an hourly one `<date>T<hour>Z`. */
const dayOfSlot = (slot: string): string => slot.split('T', 1)[0] ?? slot;

/** The UTC days (YYYYMMDD) that slot ranges cover, each once, in order. */
export function daysOfRanges(ranges: { first: string; last: string }[]): string[] {
  const days = new Set<string>();
  const walked = new Set<string>();
  for (const range of ranges) {
    // A list's items mostly share one range: each range is walked once.
    const key = `${range.first}|${range.last}`;
    if (walked.has(key)) continue;
    walked.add(key);
    // Walked by count: past year 9999 a date has nine digits and sorts before the dates it follows.
    for (const day of datesFrom(dayOfSlot(range.first), dayOfSlot(range.last))) days.add(day);
  }
  return [...days].sort();
}

/** The months slot ranges cover, each with the first and last day covered in it: one index query each. */
export function monthsOfRanges(
  ranges: { first: string; last: string }[],
): { month: string; first: string; last: string }[] {
  const months = new Map<string, { month: string; first: string; last: string }>();
  for (const day of daysOfRanges(ranges)) {
    const month = day.slice(0, 6);
    const seen = months.get(month);
    if (seen) seen.last = day;
    else months.set(month, { month, first: day, last: day });
  }
  return [...months.values()];
}

/** Every item's counters from one day to another of one month, from the span index: one query. */
export const queryStockMonth = (db: Db, span: { month: string; first: string; last: string }) =>
  queryAll(db, {
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': stockMonthPartition(span.month),
      ':from': `${span.first}#`,
      ':to': `${span.last}#~`,
    },
    ProjectionExpression: 'item_id, sk, used',
  });

/**
 * The counters of several items over their ranges, read the cheaper way: from the span index, one query a
 * month whatever the number of items (a list of up to a month's nights: one or two), when every counter of
 * the tenant is indexed (`spanIndex`) and the months are fewer than the items; otherwise one query per
 * item. Both are eventually consistent reads, as a list always was: a hold never relies on them, it is
 * conditional on the counter itself.
 */
export async function readStock(
  db: Db,
  ranges: { itemId: number; first: string; last: string }[],
  options: { spanIndex: boolean },
): Promise<(itemId: number, slot: string) => number> {
  const months = options.spanIndex ? monthsOfRanges(ranges) : [];
  if (!options.spanIndex || months.length >= ranges.length) return queryStockRanges(db, ranges);
  const wanted = new Map(ranges.map((range) => [range.itemId, range]));
  const byItem = new Map<number, UsedBySlot>();
  for (const records of await Promise.all(months.map((span) => queryStockMonth(db, span)))) {
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
 * Gives the span-index keys to the counters of items that were written without them or under an earlier
 * layout (their `used` untouched, nothing created), and answers how many it indexed. Idempotent.
 */
export async function indexStockCounters(db: Db, itemIds: number[]): Promise<number> {
  let indexed = 0;
  for (const itemId of itemIds) {
    const unindexed = await queryAll(db, {
      KeyConditionExpression: 'pk = :pk',
      // A missing gsi3pk fails begins_with too.
      FilterExpression: 'NOT begins_with(gsi3pk, :layout)',
      ExpressionAttributeValues: { ':pk': stockPartition(itemId), ':layout': stockMonthPartition('') },
      ProjectionExpression: 'sk',
    });
    for (const record of unindexed) {
      const slot = String(record.sk);
      const { gsi3pk, gsi3sk } = stockIndexKeys(itemId, slot);
      const done = await applyIfCondition(() =>
        db.documents.send(
          new UpdateCommand({
            TableName: db.tableName,
            Key: stockKey(itemId, slot),
            UpdateExpression: 'SET gsi3pk = :indexPk, gsi3sk = :indexSk',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':indexPk': gsi3pk, ':indexSk': gsi3sk },
          }),
        ),
      );
      if (done) indexed += 1;
    }
  }
  return indexed;
}
