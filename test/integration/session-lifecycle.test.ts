import { describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import { addDays } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { stockKey } from '#lib/kernel/storage/keys.ts';
import { releaseExpiredSession } from '#lib/sessions/expiry.ts';
import { testDeps } from '#test/support/deps.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { client, db, handlers, setUpSessionWorld, start, usedOf } from '#test/support/session-world.ts';

// A session's life: reading, clearing, ending and expiring it, contention and concurrency over it, and the
// reconcile run over its counters. The world: test/support/session-world.ts.

let now = Date.now();
const clock = () => now;
setUpSessionWorld(clock);

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
    const client = new Proxy(db.documents, {
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
    return { ...db, documents: client };
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
    const { runReconcile } = await import('#lib/housekeeping/reconcile-run.ts');
    now = Math.max(now, Date.now());
    const day = addDays(start, 20);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}&param[qty]=2`)]));
    await db.documents.send(
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

    const original = (await import('#lib/config/repository.ts')).listItems;
    const kayak = (await original(db)).find((item) => item.item_id === 1);
    await db.documents.send(
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
    await db.documents.send(
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
