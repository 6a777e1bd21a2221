import { randomUUID } from 'node:crypto';
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { addDays, type Ymd } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { rateWindowKey, sessionKey } from '#lib/db/keys.ts';
import { holdStockAction, monthsOfRanges, queryStockMonth } from '#lib/db/stock-repository.ts';

/** Runs `work` on `concurrency` workers for `seconds`, and returns completed operations per second. */
export async function measureFloor(
  concurrency: number,
  seconds: number,
  work: () => Promise<unknown>,
): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await work();
        done += 1;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

/** The bare DynamoDB calls of one kind of request. */
export type FloorRequest = 'unratedList' | 'ratedList' | 'ratedItem' | 'calendar' | 'addSlip' | 'create';

/**
 * The bare DynamoDB calls each request cannot avoid (`requests`), and each scenario's, by scenario name,
 * for its floor (`scenarios`).
 */
export function floorCalls(
  db: Db,
  options: { size: number; start: Ymd; end: Ymd },
): {
  requests: Record<FloorRequest, () => Promise<unknown>>;
  scenarios: Record<string, () => Promise<unknown>>;
} {
  const { size, start, end } = options;
  const queryStock = (itemId: number, last = end) =>
    db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: { ':pk': `STOCK#${itemId}`, ':a': start, ':b': last },
      }),
    );
  // The span index: one query a month returns every item's counters over the span's days.
  const months = monthsOfRanges([{ first: start, last: addDays(end, -1) }]);
  const queryMonths = () => months.map((span) => queryStockMonth(db, span));
  // A list reads by month when the months are fewer than the items, as the service does (readStock).
  const queryListStock = () =>
    months.length < size ? queryMonths() : Array.from({ length: size }, (_, i) => queryStock(i + 1));
  // Every public request counts against its client's limit: a conditional write it cannot avoid, since
  // the limits are kept in the table and never in one instance's memory.
  const countRequest = () =>
    db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: rateWindowKey(`floor-${randomUUID()}`, Math.floor(Date.now() / 60_000) * 60),
        UpdateExpression: 'ADD requests :one SET entity = :entity',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
        ExpressionAttributeValues: { ':one': 1, ':entity': 'floor', ':limit': 1_000_000 },
      }),
    );
  const floorHold = (slot: Ymd) => {
    const { Update } = holdStockAction(db, { itemId: 2, slot, units: 1, capacity: 100_000_000 });
    const update = Update as NonNullable<typeof Update>;
    return {
      Update: {
        ...update,
        ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':entity': 'floor' },
      },
    };
  };
  const holdTransaction = () =>
    db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          // The layout's conditional counter update, with the span-index keys every counter write sets;
          // marked as the floor's, not stock, so the race's audit does not count it as a service counter.
          ...Array.from({ length: 7 }, (_, night) => floorHold(addDays(start, night))),
          { Put: { TableName: db.tableName, Item: { ...sessionKey(randomUUID()), entity: 'floor' } } },
        ],
      }),
    );
  const createTransaction = () =>
    db.client.send(
      new TransactWriteCommand({
        TransactItems: ['a', 'b', 'c', 'd'].map((kind) => ({
          Put: { TableName: db.tableName, Item: { pk: `FLOOR#${randomUUID()}`, sk: kind, entity: 'floor' } },
        })),
      }),
    );
  const requests = {
    // The items function keeps the catalogue until the tenant is loaded again: a list cannot avoid only
    // its client's count (and, rated, the counters).
    unratedList: () => countRequest(),
    ratedList: () => Promise.all([countRequest(), ...queryListStock()]),
    // One item, rated or its calendar: the item comes from the kept catalogue too.
    ratedItem: () => Promise.all([countRequest(), queryStock(1)]),
    calendar: () => Promise.all([countRequest(), queryStock(1, addDays(start, 90))]),
    // An add: the item comes from the session function's kept catalogue; the hold is the write.
    addSlip: async () => {
      await countRequest();
      await holdTransaction();
    },
    create: () => Promise.all([countRequest(), createTransaction()]),
  };
  return {
    requests,
    scenarios: {
      'unrated list': requests.unratedList,
      'rated list, 7 nights': requests.ratedList,
      'rated item, 7 nights': requests.ratedItem,
      'calendar, 90 days': requests.calendar,
      'add a SLIP': requests.addSlip,
      'full flow (rate, add, create)': async () => {
        // The add step reads the item as the add-a-SLIP scenario's does.
        await requests.ratedItem();
        await requests.addSlip();
        await requests.create();
      },
    },
  };
}
