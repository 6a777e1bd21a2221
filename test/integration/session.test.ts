import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/app.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { stockKey } from '#lib/db/keys.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { releaseExpiredSession } from '#lib/domain/sweep.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { expectInvariant, sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
let now = Date.now();
const clock = () => now;
const start = addDays(todayIn('America/Toronto', Date.now()), 30);

const usedOf = async (itemId: number, slot: string): Promise<number> => {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: stockKey(itemId, slot), ConsistentRead: true }),
  );
  return Number(Item?.used ?? 0);
};

beforeAll(async () => {
  db = await createTestDb('session');
  const tenant = makeTenant(
    makeTenantJson({
      params: { qty: { lbl: 'Quantity' }, adults: { lbl: 'Adults' } },
      // Hold budgets have their own tests (hoarding.test.ts); here one cart may hold a whole item-date.
      settings: { booking_code_prefix: 'TEST', hold_minutes: 15, limits: { client_hold_share: 1 } },
      items: [
        makeItem({ item_id: 1, sku: 'kayak', stock: 10 }),
        makeItem({ item_id: 2, sku: 'last', name: 'Last one', stock: 1 }),
        makeItem({
          item_id: 3,
          sku: 'cabin',
          name: 'Cabin',
          unit: 'N',
          stock: 2,
          params: { adults: { price: '50.00', def: 2 } },
        }),
        makeItem({
          item_id: 4,
          sku: 'hamper',
          name: 'Hamper',
          unit: 'N',
          stock: 3,
          params: { adults: { price: '10.00', def: 2 } },
        }),
        makeItem({
          item_id: 5,
          sku: 'getaway',
          name: 'Getaway',
          unit: 'N',
          stock: 5,
          params: { adults: { price: '0.00', def: 2 } },
          package: { items: [{ item_id: 3 }, { item_id: 4, optional: true }] },
        }),
        makeItem({ item_id: 6, sku: 'race', name: 'Race', stock: 1 }),
        makeItem({ item_id: 7, sku: 'overlap', name: 'Overlap', stock: 1 }),
      ],
    }),
  );
  await writeTenant(db, tenant, Date.now());
  handlers = createAllHandlers(testDeps(db, { clock }));
  client = sessionClient(handlers);
});

afterEach(async () => {
  await expectInvariant(db, now);
});

describe('adding SLIPs', () => {
  it('starts a session, holds the stock and sets the cookie', async () => {
    now = Math.max(now, Date.now());
    const slip = await client.slip(1, `date=${start}&param[qty]=2`);
    const response = await client.add([slip]);
    expect(response.status).toBe(200);
    const session = sessionOf(response);
    expect(response.json.request).toMatchObject({ resource: 'booking', id: 'session', records: 1 });
    expect(session).toMatchObject({
      age: 0,
      expires: Math.floor(now / 1000) + 900,
      start_date: start,
      end_date: start,
      sub_total: '80.00',
      total: '80.00',
      due: '80.00',
      paid_total: '0.00',
      qty: 1,
    });
    expect(session.item['1']).toMatchObject({
      sku: 'kayak',
      item_id: 1,
      unit: 'D',
      slip,
      available: 8,
      date: { start_date: start },
    });
    expect(response.cookies).toEqual([`session_id=${session.id}; Path=/; HttpOnly; SameSite=Lax`]);
    expect(await usedOf(1, start)).toBe(2);
    const byCookie = await client.readByCookie([`session_id=${session.id}`]);
    expect(Object.keys(sessionOf(byCookie).item)).toEqual(['1']);
  });

  it('marks the cookie Secure and SameSite=None over HTTPS', async () => {
    const slip = await client.slip(1, `date=${start}`);
    const response = await invoke(handlers.session, {
      method: 'POST',
      path: 'booking/session',
      body: `slip=${slip}`,
      contentType: 'application/x-www-form-urlencoded',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(response.cookies[0]).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=None$/);
  });

  it('adds several SLIPs all or nothing, naming the line and date that cannot be held', async () => {
    const kayak = await client.slip(1, `date=${addDays(start, 1)}`);
    const last = await client.slip(2, `date=${addDays(start, 1)}`);
    const first = await client.add([last]);
    expect(first.status).toBe(200);
    const before = await usedOf(1, addDays(start, 1));
    const refused = await client.add([kayak, last]);
    expect(refused.status).toBe(409);
    expect(refused.json.request.error).toMatchObject({
      id: 'unavailable',
      data: { item_id: 2, date: addDays(start, 1) },
    });
    expect(await usedOf(1, addDays(start, 1))).toBe(before);
    expect(await usedOf(2, addDays(start, 1))).toBe(1);
  });

  it('changes nothing when the same SLIP is added again', async () => {
    const slip = await client.slip(1, `date=${addDays(start, 2)}`);
    const first = sessionOf(await client.add([slip]));
    now += 60_000;
    const again = sessionOf(await client.add([slip], first.id));
    expect(Object.keys(again.item)).toEqual(['1']);
    expect(again.expires).toBe(first.expires);
    expect(await usedOf(1, addDays(start, 2))).toBe(1);
  });

  it('adds through GET with slip[] too', async () => {
    const slip = await client.slip(1, `date=${addDays(start, 3)}`);
    const response = await invoke(handlers.session, { path: 'booking/session', query: `slip[]=${slip}` });
    expect(response.status).toBe(200);
    expect(Object.keys(sessionOf(response).item)).toEqual(['1']);
  });

  it('refuses a tampered SLIP and adds nothing', async () => {
    const slip = await client.slip(1, `date=${addDays(start, 4)}`);
    const tampered = `${slip.slice(0, 30)}${slip[30] === 'A' ? 'B' : 'A'}${slip.slice(31)}`;
    const response = await client.add([tampered]);
    expect(response.status).toBe(400);
    expect(response.json.request.error).toMatchObject({
      id: 'invalid_slip',
      data: { reason: 'tampered', slip: 0 },
    });
    expect(await usedOf(1, addDays(start, 4))).toBe(0);
  });

  it('limits SLIPs per call and item-dates per session', async () => {
    const slip = await client.slip(1, `date=${start}`);
    const many = await client.add(Array.from({ length: 21 }, () => slip));
    expect(many.status).toBe(400);
    const long = await client.slip(1, `start_date=${start}&end_date=${addDays(start, 48)}`);
    const tooLong = await client.add([long]);
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.request.error.data).toEqual({ slip: 'more than 48 item-dates in one session' });
  });
});

describe('alter', () => {
  it('holds and releases the difference of a quantity, and removes lines', async () => {
    const day = addDays(start, 5);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}&param[qty]=2`)]));
    const up = await client.alter(session.id, { 1: '3' });
    expect(sessionOf(up).item['1']).toMatchObject({ qty: 3, rate: { item_total: '240.00', qty: 3 } });
    expect(await usedOf(1, day)).toBe(6);
    await client.alter(session.id, { 1: '1' });
    expect(await usedOf(1, day)).toBe(2);
    const tooMany = await client.alter(session.id, { 1: '6' });
    expect(tooMany.status).toBe(409);
    expect(tooMany.json.request.error.data).toMatchObject({ line: '1', item_id: 1, date: day });
    expect(await usedOf(1, day)).toBe(2);
    const removed = await client.alter(session.id, { 1: 'remove' });
    expect(sessionOf(removed).item).toEqual({});
    expect(await usedOf(1, day)).toBe(0);
  });

  it('opts a package part in and out, holding and releasing it', async () => {
    const night = addDays(start, 6);
    const slip = await client.slip(5, `date=${night}`);
    const session = sessionOf(await client.add([slip]));
    expect(session.item['1.2']).toMatchObject({ item_id: 4, optional: 1, opt: 'out' });
    expect([await usedOf(3, night), await usedOf(4, night), await usedOf(5, night)]).toEqual([1, 0, 1]);
    const opted = sessionOf(await client.alter(session.id, { '1.2': 'optin' }));
    expect(opted.item['1.2'].opt).toBe('in');
    expect(Number(opted.sub_total)).toBe(Number(session.sub_total) + 20);
    expect(await usedOf(4, night)).toBe(1);
    await client.alter(session.id, { '1.2': 'optout' });
    expect(await usedOf(4, night)).toBe(0);
  });

  it.each([
    ['a malformed line id', { x1: '2' }, { 'alter[x1]': 'malformed line id' }],
    ['an unknown line', { 9: '2' }, { 'alter[9]': 'unknown line' }],
    ['a bad value', { 1: 'lots' }, { 'alter[1]': 'a quantity from 0 to 99, remove, optin or optout' }],
    ['optin on a required part', { '1.1': 'optin' }, { 'alter[1.1]': 'not an optional part' }],
    ['optin on a main line', { 1: 'optin' }, { 'alter[1]': 'optin and optout take a part line such as 1.1' }],
  ])('refuses %s with 400 and changes nothing', async (_name, changes, data) => {
    const night = addDays(start, 8);
    const session = sessionOf(await client.add([await client.slip(5, `date=${night}`)]));
    const response = await client.alter(session.id, changes);
    expect(response.status).toBe(400);
    expect(response.json.request.error.data).toEqual(data);
    expect(sessionOf(await client.read(session.id)).item['1'].qty).toBe(1);
    await client.end(session.id);
  });
});

describe('lifecycle', () => {
  it('reads without extending the hold', async () => {
    now = Math.max(now, Date.now());
    const session = sessionOf(await client.add([await client.slip(1, `date=${addDays(start, 9)}`)]));
    now += 5 * 60_000;
    const read = sessionOf(await client.read(session.id));
    expect(read.expires).toBe(session.expires);
    expect(read.age).toBe(300);
  });

  it('clears every hold and keeps the session; ends and refuses it afterwards', async () => {
    now = Math.max(now, Date.now());
    const day = addDays(start, 10);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}&param[qty]=3`)]));
    const cleared = await client.clear(session.id);
    expect(sessionOf(cleared)).toMatchObject({ id: session.id, item: {} });
    expect(await usedOf(1, day)).toBe(0);
    await client.add([await client.slip(1, `date=${day}`)], session.id);
    const ended = await client.end(session.id);
    expect(ended.status).toBe(200);
    expect(ended.cookies[0]).toContain('Max-Age=0');
    expect(await usedOf(1, day)).toBe(0);
    const after = await client.read(session.id);
    expect(after.status).toBe(409);
    expect(after.json.request.error.id).toBe('session_expired');
    expect(after.cookies[0]).toContain('session_id=;');
  });

  it('answers an unknown session with 404 and clears the cookie', async () => {
    const response = await client.readByCookie(['session_id=AAAAAAAAAAAAAAAAAAAAAAAA']);
    expect(response.status).toBe(404);
    expect(response.cookies[0]).toContain('Max-Age=0');
  });

  it('answers a read without any session with an empty cart', async () => {
    const response = await invoke(handlers.session, { path: 'booking/session' });
    expect(sessionOf(response)).toMatchObject({ id: '', item: {}, total: '0.00' });
  });

  it('expires at once past its hold time, and one sweep gives the stock back', async () => {
    now = Math.max(now, Date.now());
    const day = addDays(start, 11);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}&param[qty]=4`)]));
    now += 15 * 60_000 + 1000;
    for (const response of [
      await client.read(session.id),
      await client.alter(session.id, { 1: '2' }),
      await client.clear(session.id),
    ]) {
      expect(response.status).toBe(409);
      expect(response.json.request.error.id).toBe('session_expired');
    }
    expect(await usedOf(1, day)).toBe(4);
    const sweep = createSweeper({ db, clock });
    const first = await sweep();
    expect(first.released).toBeGreaterThanOrEqual(1);
    expect(await usedOf(1, day)).toBe(0);
    const second = await sweep();
    expect(second.released).toBe(0);
    expect(await usedOf(1, day)).toBe(0);
  });

  it('keeps the holds of a session extended just before the sweep', async () => {
    now = Math.max(now, Date.now());
    const day = addDays(start, 12);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}`)]));
    now += 14 * 60_000;
    expect((await client.alter(session.id, { 1: '2' })).status).toBe(200);
    now += 2 * 60_000;
    await createSweeper({ db, clock })();
    expect(await usedOf(1, day)).toBe(2);
    expect((await client.read(session.id)).status).toBe(200);
    await client.end(session.id);
  });

  it('releases each hold exactly once when a sweep stops half-way and runs again', async () => {
    now = Math.max(now, Date.now());
    const day = addDays(start, 13);
    const a = sessionOf(await client.add([await client.slip(1, `date=${day}`)]));
    const b = sessionOf(await client.add([await client.slip(1, `date=${day}&param[qty]=2`)]));
    now += 16 * 60_000;
    expect(await releaseExpiredSession(db, { sessionId: a.id, now })).toBe(true);
    expect(await usedOf(1, day)).toBe(2);
    await createSweeper({ db, clock })();
    await createSweeper({ db, clock })();
    expect(await releaseExpiredSession(db, { sessionId: b.id, now })).toBe(false);
    expect(await usedOf(1, day)).toBe(0);
  });
});

describe('contention', () => {
  const conflicting = (times: number): Db => {
    let left = times;
    const client = new Proxy(db.client, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return async (command: { constructor: { name: string } }) => {
          if (command.constructor.name === 'TransactWriteCommand' && left > 0) {
            left -= 1;
            const { TransactionCanceledException } = await import('@aws-sdk/client-dynamodb');
            throw new TransactionCanceledException({
              message: 'Transaction cancelled',
              $metadata: {},
              CancellationReasons: [{ Code: 'TransactionConflict' }],
            });
          }
          return (target.send as (c: unknown) => Promise<unknown>)(command);
        };
      },
    });
    return { ...db, client };
  };

  it('retries a transaction conflict and succeeds', async () => {
    now = Math.max(now, Date.now());
    const flaky = sessionClient(createAllHandlers(testDeps(conflicting(2), { clock })));
    const response = await flaky.add([await client.slip(1, `date=${addDays(start, 14)}`)]);
    expect(response.status).toBe(200);
    expect(await usedOf(1, addDays(start, 14))).toBe(1);
  });

  it('ends in 503 busy with Retry-After when conflicts persist, holding nothing', async () => {
    now = Math.max(now, Date.now());
    const jammed = sessionClient(createAllHandlers(testDeps(conflicting(50), { clock })));
    const response = await jammed.add([await client.slip(1, `date=${addDays(start, 15)}`)]);
    expect(response.status).toBe(503);
    expect(response.json.request.error.id).toBe('busy');
    expect(response.headers['retry-after']).toBe('1');
    expect(await usedOf(1, addDays(start, 15))).toBe(0);
  });
});

describe('concurrency', () => {
  it('sells the last unit exactly once to 50 concurrent carts', async () => {
    now = Math.max(now, Date.now());
    const slip = await client.slip(6, `date=${start}`);
    const responses = await Promise.all(Array.from({ length: 50 }, () => client.add([slip])));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
    for (const response of responses.filter((entry) => entry.status === 409)) {
      expect(response.json.request.error.id).toBe('unavailable');
    }
    expect(await usedOf(6, start)).toBe(1);
  });

  it('gives an overlapping sold-out day to one of two multi-day carts', async () => {
    now = Math.max(now, Date.now());
    const a = await client.slip(7, `start_date=${start}&end_date=${addDays(start, 2)}`);
    const b = await client.slip(7, `start_date=${addDays(start, 2)}&end_date=${addDays(start, 4)}`);
    const [first, second] = await Promise.all([client.add([a]), client.add([b])]);
    expect([first?.status, second?.status].sort()).toEqual([200, 409]);
    expect(await usedOf(7, addDays(start, 2))).toBe(1);
  });

  it('keeps the counters agreeing with the session under concurrent alters', async () => {
    now = Math.max(now, Date.now());
    const day = addDays(start, 16);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}`)]));
    const quantities = ['3', '1', '5', '2', '4', '7', '2', '6'];
    const responses = await Promise.all(quantities.map((qty) => client.alter(session.id, { 1: qty })));
    expect(responses.every((response) => [200, 409, 503].includes(response.status))).toBe(true);
    const final = sessionOf(await client.read(session.id));
    expect(await usedOf(1, day)).toBe(final.item['1'].qty);
  });
});

describe('npm run reconcile', () => {
  it('reports a corrupt counter, fixes it conditionally, and reports a lowered stock apart', async () => {
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { runReconcile } = await import('#lib/domain/reconcile-run.ts');
    now = Math.max(now, Date.now());
    const day = addDays(start, 20);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}&param[qty]=2`)]));
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: stockKey(1, day),
        UpdateExpression: 'SET used = :wrong',
        ExpressionAttributeValues: { ':wrong': 7 },
      }),
    );
    const found = await runReconcile(db, { fix: false, now });
    expect(found.discrepancies).toEqual([
      { itemId: 1, slot: day, used: 7, expected: 2, capacity: 10, kind: 'corrupt' },
    ]);
    const fixed = await runReconcile(db, { fix: true, now });
    expect(fixed.fixed).toBe(1);
    expect(await usedOf(1, day)).toBe(2);

    const original = (await import('#lib/db/tenant-repository.ts')).listItems;
    const kayak = (await original(db)).find((item) => item.item_id === 1);
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: { pk: 'ITEM', sk: 'ITEM#0000000001' },
        UpdateExpression: 'SET stock = :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const over = await runReconcile(db, { fix: true, now });
    expect(over.discrepancies).toContainEqual({
      itemId: 1,
      slot: day,
      used: 2,
      expected: 2,
      capacity: 1,
      kind: 'over_capacity',
    });
    expect(over.discrepancies.every((entry) => entry.kind === 'over_capacity')).toBe(true);
    expect(over.fixed).toBe(0);
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: { pk: 'ITEM', sk: 'ITEM#0000000001' },
        UpdateExpression: 'SET stock = :stock',
        ExpressionAttributeValues: { ':stock': kayak?.stock },
      }),
    );
    await client.end(session.id);
  });
});
