import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { getConfig } from '#lib/config/repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { configKey, stockKey } from '#lib/kernel/storage/keys.ts';
import { daysOfRanges, monthsOfRanges, readStock } from '#lib/stock/repository.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, recordCommands, watchCommands } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

const ITEMS = 30;
/** The first of a month at least 70 days ahead: a week from it stays in one month. */
const start = (() => {
  const later = addDays(todayIn('America/Toronto', Date.now()), 70);
  const nextMonth = addDays(`${later.slice(0, 6)}28`, 7);
  return `${nextMonth.slice(0, 6)}01`;
})();
/** The tenant of these tests: ITEMS units of 5, each item as `item` changes it (a later load's). */
const tenantOf = (item: (id: number) => Record<string, unknown> = () => ({})) =>
  makeTenant(
    makeTenantJson({
      settings: {
        booking_code_prefix: 'IDX',
        limits: { client_hold_share: 1, open_sessions_per_client: 100 },
      },
      items: Array.from({ length: ITEMS }, (_, index) =>
        makeItem({
          item_id: index + 1,
          sku: `unit-${index + 1}`,
          name: `Unit ${index + 1}`,
          stock: 5,
          ...item(index + 1),
        }),
      ),
    }),
  );
const tenant = tenantOf();

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;

/**
 * A counter as the service wrote it before the span index: `used` and nothing to index it by, or (`day`)
 * the keys of the earlier day layout.
 */
const oldCounter = (itemId: number, slot: string, used: number, layout: 'none' | 'day' = 'none') =>
  db.documents.send(
    new PutCommand({
      TableName: db.tableName,
      Item: {
        ...stockKey(itemId, slot),
        used,
        entity: 'stock',
        item_id: itemId,
        ...(layout === 'day'
          ? { gsi3pk: `STOCKDAY#${slot}`, gsi3sk: `${String(itemId).padStart(10, '0')}#${slot}` }
          : {}),
      },
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

describe('the span index of the stock counters', () => {
  it('lists the days slot ranges cover, once each, hours by their UTC day', () => {
    expect(
      daysOfRanges([
        { first: '20270130', last: '20270202' },
        { first: '20270201T10Z', last: '20270201T12Z' },
        { first: '20270301', last: '20270301' },
      ]),
    ).toEqual(['20270130', '20270131', '20270201', '20270202', '20270301']);
    expect(
      monthsOfRanges([
        { first: '20270130', last: '20270202' },
        { first: '20270201T10Z', last: '20270201T12Z' },
        { first: '20270301', last: '20270301' },
      ]),
    ).toEqual([
      { month: '202701', first: '20270130', last: '20270131' },
      { month: '202702', first: '20270201', last: '20270202' },
      { month: '202703', first: '20270301', last: '20270301' },
    ]);
  });

  it('reads a rated list in one counter query a month, whatever the number of items and nights', async () => {
    const recorded = recordCommands(db);
    const counting = createAllHandlers({ ...testDeps(recorded.db), configTtlMs: 60_000 });
    const calls = async (nights: number, from = start) => {
      recorded.commands.length = 0;
      const { status } = await invoke(counting.items, {
        path: 'item',
        query: `start_date=${from}&end_date=${addDays(from, nights)}`,
      });
      expect(status).toBe(200);
      return recorded.commands.filter((command) => command === 'QueryCommand').length;
    };
    // The items query once (the function keeps the catalogue), then one query a month: two nights and
    // a week in one month, and three nights across the end of the month before.
    expect(await calls(2)).toBe(1 + 1);
    expect(await calls(7)).toBe(1);
    expect(await calls(3, addDays(start, -1))).toBe(2);
  });

  it('sees exactly what the counters hold, as the per-item reads do', async () => {
    // Six days across the end of a month.
    const days = Array.from({ length: 6 }, (_, index) => addDays(start, index - 3));
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
            await db.documents.send(
              new DeleteCommand({ TableName: db.tableName, Key: stockKey(itemId, day) }),
            );
        const client = sessionClient(handlers);
        for (const hold of written) {
          const slip = await client.slip(hold.itemId, `date=${hold.day}&param[qty]=1`).catch(() => undefined);
          if (slip) await client.add([slip]);
        }
        const byMonth = await readStock(db, ranges, { spanIndex: true });
        const byItem = await readStock(db, ranges, { spanIndex: false });
        for (const { itemId } of ranges)
          for (const day of days) expect(byMonth(itemId, day)).toBe(byItem(itemId, day));
      }),
      { numRuns: 8 },
    );
  });

  it('keeps counters written before the index working: lists read by item until the load indexes them', async () => {
    const day = addDays(start, 200);
    // A table as it was: counters without index keys or with the earlier day layout's, and the earlier
    // flag on the configuration.
    await db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: configKey(),
        UpdateExpression: 'SET stock_day_index = :true REMOVE stock_index',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
    for (let itemId = 1; itemId <= ITEMS; itemId += 1)
      await oldCounter(itemId, day, itemId % 5, itemId % 2 ? 'day' : 'none');
    const expected = Object.fromEntries(
      Array.from({ length: ITEMS }, (_, index) => [String(index + 1), 5 - ((index + 1) % 5)]),
    );
    expect(await availability(`date=${day}`)).toEqual(expected);

    const summary = await writeTenant(db, tenant, Date.now());
    expect(summary.countersIndexed).toBe(ITEMS);
    const config = await getConfig(db);
    expect(config?.stock_index).toBe('month');
    expect(config).not.toHaveProperty('stock_day_index');
    for (const itemId of [6, 7]) {
      const { Item } = await db.documents.send(
        new GetCommand({ TableName: db.tableName, Key: stockKey(itemId, day), ConsistentRead: true }),
      );
      expect(Item).toMatchObject({
        used: itemId % 5,
        gsi3pk: `STOCKMONTH#${day.slice(0, 6)}`,
        gsi3sk: `${day}#000000000${itemId}#${day}`,
      });
    }
    // Now read by month, the same answer; a second load has nothing left to index.
    expect(await availability(`date=${day}`)).toEqual(expected);
    expect((await writeTenant(db, tenant, Date.now())).countersIndexed).toBe(0);
  });

  it('indexes every counter a hold writes, so the flag stays true', async () => {
    const day = addDays(start, 250);
    const client = sessionClient(handlers);
    const held = await client.add([await client.slip(3, `date=${day}&param[qty]=2`)]);
    expect(sessionOf(held).id).toBeTruthy();
    const { Item } = await db.documents.send(
      new GetCommand({ TableName: db.tableName, Key: stockKey(3, day), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({
      used: 2,
      gsi3pk: `STOCKMONTH#${day.slice(0, 6)}`,
      gsi3sk: `${day}#0000000003#${day}`,
    });
  });
});

describe('the catalogue an items function keeps', () => {
  it('is read once until the tenant is loaded again, while counters are read for every request', async () => {
    const recorded = recordCommands(db);
    // A configuration kept for a millisecond of the handlers' clock, which each request moves past it: the
    // configuration is read every time, the catalogue is kept by the configuration's version.
    let now = Date.now();
    const keeping = createAllHandlers({ ...testDeps(recorded.db, { clock: () => now }), configTtlMs: 1 });
    const list = async () => {
      now += 2;
      recorded.commands.length = 0;
      const { status, json } = await invoke(keeping.items, {
        path: 'item',
        query: `start_date=${start}&end_date=${addDays(start, 2)}`,
      });
      expect(status).toBe(200);
      return { queries: recorded.commands.filter((command) => command === 'QueryCommand').length, json };
    };
    expect((await list()).queries).toBe(1 + 1);
    expect((await list()).queries).toBe(1);
    const renamed = tenantOf((id) => ({ name: `Renamed ${id}` }));
    await writeTenant(db, renamed, Date.now() + 1);
    const after = await list();
    expect(after.queries).toBe(1 + 1);
    expect(after.json.items['1'].name).toBe('Renamed 1');
    await writeTenant(db, tenant, Date.now() + 2);
  });

  it('gives one item and its calendar too: they read only its counters', async () => {
    const recorded = recordCommands(db);
    const keeping = createAllHandlers({ ...testDeps(recorded.db), configTtlMs: 60_000 });
    const calls = async (path: string, query: string) => {
      recorded.commands.length = 0;
      const { status, json } = await invoke(keeping.items, { path, query });
      expect(status).toBe(200);
      return { commands: [...recorded.commands], json };
    };
    // The first request reads the configuration and the catalogue.
    await calls('item', '');
    const rated = await calls('item/4', `start_date=${start}&end_date=${addDays(start, 2)}`);
    expect(rated.commands).toEqual(['UpdateCommand', 'QueryCommand']);
    expect(rated.json.item.rate.status).toBe('AVAILABLE');
    const calendar = await calls('item/4/cal', `start_date=${start}&end_date=${addDays(start, 30)}`);
    expect(calendar.commands).toEqual(['UpdateCommand', 'QueryCommand']);
    expect(Object.keys(calendar.json.item.cal)).toHaveLength(31);
    const missing = await invoke(keeping.items, { path: 'item/999' });
    expect(missing.status).toBe(404);
  });

  it('is kept by the session function for changes that take no stock; one that takes stock reads its items', async () => {
    const seen: { name: string; input: unknown }[] = [];
    const watched = watchCommands(db, (name, input) => seen.push({ name, input }));
    const keeping = createAllHandlers({ ...testDeps(watched), configTtlMs: 60_000 });
    const day = addDays(start, 300);
    const client = sessionClient(keeping);
    const first = sessionOf(await client.add([await client.slip(5, `date=${day}&param[qty]=1`)]));
    const slip = await client.slip(6, `date=${day}&param[qty]=1`);
    const itemReads = async (call: () => Promise<unknown>) => {
      seen.length = 0;
      await call();
      return seen.filter((command) => command.name === 'BatchGetCommand').map((command) => command.input);
    };
    // Adding holds stock: its items come from the table, consistently, in one read (the cart's both).
    const adding = await itemReads(async () => {
      const held = await client.add([slip], first.id);
      expect(Object.keys(sessionOf(held).item)).toHaveLength(2);
    });
    expect(adding).toHaveLength(1);
    expect(JSON.stringify(adding[0])).toContain('"ConsistentRead":true');
    // Letting go of a line takes no stock: the kept catalogue answers.
    expect(await itemReads(() => client.alter(first.id, { '2': '0' }))).toEqual([]);
  });

  it('holds against a capacity a tenant load reduced once the configuration is read again', async () => {
    // A configuration kept for a millisecond of the handlers' clock: the kept catalogue follows its version.
    let now = Date.now();
    const keeping = createAllHandlers({ ...testDeps(db, { clock: () => now }), configTtlMs: 1 });
    const day = addDays(start, 320);
    const client = sessionClient(keeping);
    expect((await client.add([await client.slip(8, `date=${day}&param[qty]=3`)])).status).toBe(200);
    const another = await client.slip(8, `date=${day}&param[qty]=1`);
    const reduced = tenantOf((id) => ({ stock: id === 8 ? 3 : 5 }));
    await writeTenant(db, reduced, Date.now() + 1);
    now += 2;
    try {
      // The SLIP was rated under 5 units; 3 are held and the item has 3 now.
      const refused = await client.add([another]);
      expect(refused.status).toBe(409);
      expect(refused.json.request.error).toMatchObject({
        id: 'unavailable',
        data: { item_id: 8, date: day },
      });
    } finally {
      await writeTenant(db, tenant, Date.now() + 2);
    }
  });
});
