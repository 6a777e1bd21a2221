import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { configKey, stockKey } from '#lib/db/keys.ts';
import { daysOfRanges, readStock } from '#lib/db/stock-repository.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { getConfig } from '#lib/db/tenant-repository.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, recordCommands } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

const ITEMS = 30;
const start = addDays(todayIn('America/Toronto', Date.now()), 70);
const tenant = makeTenant(
  makeTenantJson({
    settings: { booking_code_prefix: 'IDX', limits: { client_hold_share: 1, open_sessions_per_client: 100 } },
    items: Array.from({ length: ITEMS }, (_, index) =>
      makeItem({ item_id: index + 1, sku: `unit-${index + 1}`, name: `Unit ${index + 1}`, stock: 5 }),
    ),
  }),
);

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;

/** A counter as the service wrote it before the date index: `used` and nothing to index it by. */
const oldCounter = (itemId: number, slot: string, used: number) =>
  db.client.send(
    new PutCommand({
      TableName: db.tableName,
      Item: { ...stockKey(itemId, slot), used, entity: 'stock', item_id: itemId },
    }),
  );

const availability = async (query: string) => {
  const { json } = await invoke(handlers.items, { path: 'item', query });
  return Object.fromEntries(
    Object.entries(json.items as Record<string, { rate: { available: number } }>).map(([id, item]) => [
      id,
      item.rate.available,
    ]),
  );
};

beforeAll(async () => {
  db = await createTestDb('stockday');
  await writeTenant(db, tenant, Date.now());
  handlers = createAllHandlers(testDeps(db));
});

describe('the date index of the stock counters', () => {
  it('lists the days slot ranges cover, once each, hours by their UTC day', () => {
    expect(
      daysOfRanges([
        { first: '20270130', last: '20270202' },
        { first: '20270201T10Z', last: '20270201T12Z' },
        { first: '20270301', last: '20270301' },
      ]),
    ).toEqual(['20270130', '20270131', '20270201', '20270202', '20270301']);
  });

  it('reads a rated list in one counter query a day, whatever the number of items', async () => {
    const recorded = recordCommands(db);
    const counting = createAllHandlers({ ...testDeps(recorded.db), configTtlMs: 60_000 });
    const calls = async (nights: number) => {
      recorded.commands.length = 0;
      const { status } = await invoke(counting.items, {
        path: 'item',
        query: `start_date=${start}&end_date=${addDays(start, nights)}`,
      });
      expect(status).toBe(200);
      return recorded.commands.filter((command) => command === 'QueryCommand').length;
    };
    // The items query once (the function keeps the catalogue), then one query a day: 3 and 8 days.
    expect(await calls(2)).toBe(1 + 3);
    expect(await calls(7)).toBe(8);
  });

  it('sees exactly what the counters hold, as the per-item reads do', async () => {
    const days = Array.from({ length: 6 }, (_, index) => addDays(start, 100 + index));
    const ranges = Array.from({ length: ITEMS }, (_, index) => ({
      itemId: index + 1,
      first: days[0] as string,
      last: days.at(-1) as string,
    }));
    const holds = fc.array(
      fc.record({
        itemId: fc.integer({ min: 1, max: ITEMS }),
        day: fc.constantFrom(...days),
        units: fc.integer({ min: 1, max: 5 }),
      }),
      { maxLength: 25 },
    );
    await fc.assert(
      fc.asyncProperty(holds, async (written) => {
        for (const itemId of new Set(written.map((hold) => hold.itemId)))
          for (const day of days)
            await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: stockKey(itemId, day) }));
        const client = sessionClient(handlers);
        for (const hold of written) {
          const slip = await client.slip(hold.itemId, `date=${hold.day}&param[qty]=1`).catch(() => undefined);
          if (slip) await client.add([slip]);
        }
        const byDay = await readStock(db, ranges, { dayIndex: true });
        const byItem = await readStock(db, ranges, { dayIndex: false });
        for (const { itemId } of ranges)
          for (const day of days) expect(byDay(itemId, day)).toBe(byItem(itemId, day));
      }),
      { numRuns: 8 },
    );
  });

  it('keeps counters written before the index working: lists read by item until the load indexes them', async () => {
    const day = addDays(start, 200);
    // A table as it was: counters without index keys, and no flag on the configuration.
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: configKey(),
        UpdateExpression: 'REMOVE stock_day_index',
      }),
    );
    for (let itemId = 1; itemId <= ITEMS; itemId += 1) await oldCounter(itemId, day, itemId % 5);
    const expected = Object.fromEntries(
      Array.from({ length: ITEMS }, (_, index) => [String(index + 1), 5 - ((index + 1) % 5)]),
    );
    expect(await availability(`date=${day}`)).toEqual(expected);

    const summary = await writeTenant(db, tenant, Date.now());
    expect(summary.countersIndexed).toBe(ITEMS);
    expect((await getConfig(db))?.stock_day_index).toBe(true);
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: stockKey(7, day), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ used: 2, gsi3pk: `STOCKDAY#${day}` });
    // Now read by day, the same answer; a second load has nothing left to index.
    expect(await availability(`date=${day}`)).toEqual(expected);
    expect((await writeTenant(db, tenant, Date.now())).countersIndexed).toBe(0);
  });

  it('indexes every counter a hold writes, so the flag stays true', async () => {
    const day = addDays(start, 250);
    const client = sessionClient(handlers);
    const held = await client.add([await client.slip(3, `date=${day}&param[qty]=2`)]);
    expect(sessionOf(held).id).toBeTruthy();
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: stockKey(3, day), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ used: 2, gsi3pk: `STOCKDAY#${day}`, gsi3sk: `0000000003#${day}` });
  });
});

describe('the catalogue an items function keeps', () => {
  it('is read once until the tenant is loaded again, while counters are read for every request', async () => {
    const recorded = recordCommands(db);
    // A configuration kept for a millisecond: the catalogue is kept by the configuration's version.
    const keeping = createAllHandlers({ ...testDeps(recorded.db), configTtlMs: 1 });
    const list = async () => {
      recorded.commands.length = 0;
      const { status, json } = await invoke(keeping.items, {
        path: 'item',
        query: `start_date=${start}&end_date=${addDays(start, 2)}`,
      });
      expect(status).toBe(200);
      return { queries: recorded.commands.filter((command) => command === 'QueryCommand').length, json };
    };
    expect((await list()).queries).toBe(1 + 3);
    expect((await list()).queries).toBe(3);
    const renamed = makeTenant(
      makeTenantJson({
        settings: {
          booking_code_prefix: 'IDX',
          limits: { client_hold_share: 1, open_sessions_per_client: 100 },
        },
        items: Array.from({ length: ITEMS }, (_, index) =>
          makeItem({ item_id: index + 1, sku: `unit-${index + 1}`, name: `Renamed ${index + 1}`, stock: 5 }),
        ),
      }),
    );
    await writeTenant(db, renamed, Date.now() + 1);
    await new Promise((wake) => setTimeout(wake, 5));
    const after = await list();
    expect(after.queries).toBe(1 + 3);
    expect(after.json.items['1'].name).toBe('Renamed 1');
    await writeTenant(db, tenant, Date.now() + 2);
  });
});
