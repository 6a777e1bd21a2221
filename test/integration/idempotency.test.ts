import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  IDEMPOTENCY_SECONDS,
  type IdempotentCall,
  LEASE_MARGIN_MS,
  runOnceOrReplay,
} from '#lib/bookings/idempotency-store.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createTestDb } from '#test/support/dynamo.ts';

let db: Db;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

beforeAll(async () => {
  db = await createTestDb('idempotency');
});

afterEach(() => {
  vi.useRealTimers();
});

/** Freezes the clock the Powertools utility reads (`Date.now()`); timers stay real. */
const setClock = (at: number) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
};

let calls = 0;
const makeCall = (overrides: Partial<IdempotentCall> = {}): IdempotentCall => {
  calls += 1;
  return {
    scope: `session-${calls}`,
    key: 'key-1',
    requestHash: 'hash-a',
    remainingMs: 10_000,
    ...overrides,
  };
};

/** A piece of work that counts its runs and answers what it is told. */
const makeWork = <T>(result: T) => vi.fn(async () => result);

/** Work that starts and never ends until `finish`, as a running (or crashed) request. */
const makeBlockedWork = () => {
  let finish: (value: { booking: string }) => void = () => {};
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const done = new Promise<{ booking: string }>((resolve) => {
    finish = resolve;
  });
  const work = async () => {
    markStarted();
    return done;
  };
  return { work, started, finish: (value: { booking: string }) => finish(value) };
};

const readRecords = async () => {
  const { Items } = await db.documents.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'IDEMPOTENCY' },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
};

const refusal = (code: 'in_progress' | 'idempotency_mismatch', key = 'key-1') => ({
  name: 'IdempotencyKeyError',
  code,
  key,
  message:
    code === 'in_progress'
      ? 'A request with this Idempotency-Key is still being processed'
      : 'This Idempotency-Key was used for a different request',
});

describe('runOnceOrReplay', () => {
  it('replays the first result for the same key and request without running the work again', async () => {
    const call = makeCall();
    const first = makeWork({ booking: { code: 'LOON-7KX2QM', total: 120.5 }, request: { id: 'create' } });
    const again = makeWork({ booking: { code: 'OTHER' } });
    const result = await runOnceOrReplay(db, call, first);
    const replay = await runOnceOrReplay(db, call, again);
    expect(replay).toEqual(result);
    expect(first).toHaveBeenCalledTimes(1);
    expect(again).not.toHaveBeenCalled();
  });

  it('keeps its record in the tenant table with a 24 h ttl and a lease of the remaining time plus the margin', async () => {
    setClock(T0);
    const call = makeCall({ scope: 'session-record', remainingMs: 7_000 });
    const blocked = makeBlockedWork();
    const before = new Set((await readRecords()).map((record) => record.sk));
    const running = runOnceOrReplay(db, call, blocked.work);
    await blocked.started;
    const [claim] = (await readRecords()).filter((record) => !before.has(record.sk));
    expect(claim).toMatchObject({
      pk: 'IDEMPOTENCY',
      sk: expect.stringMatching(/^booking-create#/),
      ttl: T0 / 1000 + IDEMPOTENCY_SECONDS,
      in_progress_expiration: T0 + 7_000 + LEASE_MARGIN_MS,
      validation: expect.any(String),
    });
    blocked.finish({ booking: 'done' });
    await running;
    const { Item } = await db.documents.send(
      new GetCommand({
        TableName: db.tableName,
        Key: { pk: claim?.pk, sk: claim?.sk },
        ConsistentRead: true,
      }),
    );
    expect(Item).toMatchObject({ status: 'COMPLETED', data: { booking: 'done' } });
  });

  it('refuses the same key with a different request as idempotency_mismatch', async () => {
    const call = makeCall();
    await runOnceOrReplay(db, call, makeWork({ ok: 1 }));
    const other = makeWork({ ok: 2 });
    await expect(runOnceOrReplay(db, { ...call, requestHash: 'hash-b' }, other)).rejects.toMatchObject(
      refusal('idempotency_mismatch'),
    );
    expect(other).not.toHaveBeenCalled();
  });

  it('answers in_progress to a second call while the first still runs, then replays its result', async () => {
    const call = makeCall();
    const blocked = makeBlockedWork();
    const first = runOnceOrReplay(db, call, blocked.work);
    await blocked.started;
    const second = makeWork({ booking: 'second' });
    await expect(runOnceOrReplay(db, call, second)).rejects.toMatchObject(refusal('in_progress'));
    expect(second).not.toHaveBeenCalled();
    blocked.finish({ booking: 'first' });
    expect(await first).toEqual({ booking: 'first' });
    expect(await runOnceOrReplay(db, call, second)).toEqual({ booking: 'first' });
  });

  it('checks the request before the claim: another request is a mismatch even while the first runs', async () => {
    const call = makeCall();
    const blocked = makeBlockedWork();
    const first = runOnceOrReplay(db, call, blocked.work);
    await blocked.started;
    await expect(
      runOnceOrReplay(db, { ...call, requestHash: 'hash-b' }, makeWork({ booking: 'other' })),
    ).rejects.toMatchObject(refusal('idempotency_mismatch'));
    blocked.finish({ booking: 'first' });
    await first;
  });

  it('releases the key when the work fails, passing its error on, so a retry runs', async () => {
    const call = makeCall();
    const failure = Object.assign(new Error('No such session'), { code: 'not_found' });
    await expect(
      runOnceOrReplay(db, call, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    const retry = makeWork({ booking: 'retried' });
    expect(await runOnceOrReplay(db, call, retry)).toEqual({ booking: 'retried' });
    expect(retry).toHaveBeenCalledTimes(1);
  });

  it('lets a key left in progress by a crashed process be claimed again after its lease, not before', async () => {
    setClock(T0);
    const call = makeCall({ remainingMs: 10_000 });
    const crashed = makeBlockedWork();
    void runOnceOrReplay(db, call, crashed.work);
    await crashed.started;
    const leaseEnd = T0 + 10_000 + LEASE_MARGIN_MS;
    for (const at of [T0 + 1, leaseEnd - 1, leaseEnd]) {
      vi.setSystemTime(at);
      const early = makeWork({ booking: 'early' });
      await expect(runOnceOrReplay(db, call, early)).rejects.toMatchObject(refusal('in_progress'));
      expect(early).not.toHaveBeenCalled();
    }
    vi.setSystemTime(leaseEnd + 1);
    const later = makeWork({ booking: 'later' });
    expect(await runOnceOrReplay(db, call, later)).toEqual({ booking: 'later' });
    expect(later).toHaveBeenCalledTimes(1);
    expect(await runOnceOrReplay(db, call, makeWork({ booking: 'again' }))).toEqual({ booking: 'later' });
  });

  it('replays for 24 h by the record’s own expiry, then runs the work again', async () => {
    setClock(T0);
    const call = makeCall();
    await runOnceOrReplay(db, call, makeWork({ booking: 'first' }));
    vi.setSystemTime(T0 + IDEMPOTENCY_SECONDS * 1000 - 1000);
    expect(await runOnceOrReplay(db, call, makeWork({ booking: 'second' }))).toEqual({ booking: 'first' });
    vi.setSystemTime(T0 + IDEMPOTENCY_SECONDS * 1000 + 1000);
    expect(await runOnceOrReplay(db, call, makeWork({ booking: 'second' }))).toEqual({ booking: 'second' });
  });

  it('keeps equal keys of different scopes apart', async () => {
    const one = makeCall({ key: 'shared' });
    const two = makeCall({ key: 'shared', requestHash: 'hash-b' });
    expect(await runOnceOrReplay(db, one, makeWork({ booking: 'one' }))).toEqual({ booking: 'one' });
    expect(await runOnceOrReplay(db, two, makeWork({ booking: 'two' }))).toEqual({ booking: 'two' });
    expect(await runOnceOrReplay(db, one, makeWork({ booking: 'x' }))).toEqual({ booking: 'one' });
    expect(await runOnceOrReplay(db, two, makeWork({ booking: 'x' }))).toEqual({ booking: 'two' });
  });
});
