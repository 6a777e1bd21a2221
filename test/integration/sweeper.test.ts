import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSweeper } from '#functions/sweeper/job.ts';
import { releaseRounds } from '#lib/housekeeping/sweep.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { stockKey, sweeperStateKey } from '#lib/kernel/storage/keys.ts';
import { putSessionAction, type StoredSession } from '#lib/sessions/repository.ts';
import { newSessionId } from '#lib/sessions/session.ts';
import { createTestDb, readUsed } from '#test/support/dynamo.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Issue 9: the sweeper releases in parallel, reports its lag, and clears a flood within a few runs.
let db: Db;
const base = Date.UTC(2027, 2, 1, 12, 0, 0);

beforeAll(async () => {
  db = await createTestDb('sweeper');
  await writeTenant(db, makeTenant(makeTenantJson({ items: [makeItem({ item_id: 1, stock: 100_000 })] })), 0);
});

/** A session record that expired at `expiredAt` (ms), holding one unit of `slot`, as the API writes it. */
const expiredSession = (slot: string, expiredAt: number, holds?: Record<string, unknown>): StoredSession => ({
  id: newSessionId(),
  status: 'open',
  version: 1,
  created_at: expiredAt - 900_000,
  updated_at: expiredAt - 900_000,
  expires_at: Math.floor(expiredAt / 1000),
  next_line: 2,
  lines: {},
  holds: (holds ?? { [`1|${slot}`]: 1 }) as Record<string, number>,
});

/** Writes sessions and their counters directly (fast setup); the counters add up to the holds. */
async function seed(sessions: StoredSession[]): Promise<void> {
  const records = sessions.map(
    (session) =>
      (putSessionAction(db, { session, nowSeconds: 0 }).Put as { Item: Record<string, unknown> }).Item,
  );
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < records.length; start += 25) chunks.push(records.slice(start, start + 25));
  for (let start = 0; start < chunks.length; start += 8) {
    await Promise.all(
      chunks.slice(start, start + 8).map(async (chunk) => {
        let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length) {
          const result = await db.documents.send(
            new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }),
          );
          pending = (result.UnprocessedItems?.[db.tableName] ?? []) as typeof pending;
        }
      }),
    );
  }
  const used = new Map<string, number>();
  for (const session of sessions) {
    for (const [id, units] of Object.entries(session.holds)) {
      if (typeof units === 'number') used.set(id, (used.get(id) ?? 0) + units);
    }
  }
  await Promise.all(
    [...used].map(([id, units]) =>
      db.documents.send(
        new PutCommand({
          TableName: db.tableName,
          Item: { ...stockKey(1, id.split('|')[1] ?? ''), entity: 'stock', item_id: 1, used: units },
        }),
      ),
    ),
  );
}

const usedOf = (slot: string): Promise<number> => readUsed(db, 1, slot);

const resetWatermark = (minuteStart: number) =>
  db.documents.send(
    new PutCommand({ TableName: db.tableName, Item: { ...sweeperStateKey(), swept_until: minuteStart } }),
  );

describe('the sweeper', () => {
  it('clears a flood of 10,000 expired sessions, every hold released', { timeout: 360_000 }, async () => {
    const expiredAt = base - 5 * 60_000;
    const slots = Array.from(
      { length: 500 },
      (_, index) =>
        `2027${String(4 + Math.floor(index / 28)).padStart(2, '0')}${String((index % 28) + 1).padStart(2, '0')}`,
    );
    const sessions = Array.from({ length: 10_000 }, (_, index) =>
      expiredSession(slots[index % slots.length] as string, expiredAt - (index % 3) * 60_000),
    );
    await seed(sessions);
    await resetWatermark(Math.floor(expiredAt / 60_000) * 60 - 600);
    // Each next run starts a minute later. Time stands still within a run: how many sessions a run clears
    // in its budget is the machine's speed, not a rule (the budget's own rule is the next test's).
    let now = base;
    const sweep = createSweeper({ db, clock: () => now, budgetMs: 20_000 });
    let released = 0;
    let runs = 0;
    let report: Awaited<ReturnType<typeof sweep>> | undefined;
    do {
      report = await sweep();
      released += report.released;
      runs += 1;
      now += 60_000;
    } while (!report.complete && runs < 5);
    expect(released).toBe(10_000);
    expect(report.complete).toBe(true);
    expect(report.lagSeconds).toBe(0);
    for (const slot of slots.slice(0, 20)) expect(await usedOf(slot)).toBe(0);
  });

  it('stops at its budget, keeps its watermark before the unfinished minute, and reports its lag', async () => {
    const expiredAt = base + 3_600_000;
    const sessions = Array.from({ length: 40 }, (_, index) =>
      expiredSession(`202709${String((index % 28) + 1).padStart(2, '0')}`, expiredAt),
    );
    await seed(sessions);
    await resetWatermark(Math.floor(expiredAt / 60_000) * 60 - 120);
    // Each look at the clock costs a second: the budget of 3 s runs out during the first rounds.
    let ticks = 0;
    const now = expiredAt + 600_000;
    const slow = createSweeper({ db, clock: () => now + 1_000 * ticks++, budgetMs: 3_000 });
    const first = await slow();
    expect(first.complete).toBe(false);
    expect(first.released).toBeLessThan(40);
    expect(first.lagSeconds).toBeGreaterThanOrEqual(600);
    expect(first.oldestFoundSeconds).toBe(600);
    const rest = await createSweeper({ db, clock: () => now + 60_000 })();
    expect(first.released + rest.released).toBe(40);
    expect(rest).toMatchObject({ complete: true, lagSeconds: 0, failed: 0 });
  });

  it('goes on past a release that throws, and retries it next time', async () => {
    const expiredAt = base + 7_200_000;
    const broken = expiredSession('20271001', expiredAt, { '1|20271001': 'not a number' });
    const good = Array.from({ length: 5 }, (_, index) => expiredSession(`2027100${index + 2}`, expiredAt));
    await seed([broken, ...good]);
    await resetWatermark(Math.floor(expiredAt / 60_000) * 60 - 120);
    const now = expiredAt + 120_000;
    const report = await createSweeper({ db, clock: () => now })();
    expect(report).toMatchObject({ found: 6, released: 5, failed: 1, complete: false });
    expect(report.lagSeconds).toBe(120);
    const again = await createSweeper({ db, clock: () => now + 60_000 })();
    expect(again.found).toBe(1);
    expect(again.failed).toBe(1);
  });
});

describe('release rounds', () => {
  it('never puts two sessions that share a counter in one round, oldest first', () => {
    const session = (id: string, expires: number, counters: string[]) => ({
      id,
      expires_at: expires,
      holds: Object.fromEntries(counters.map((counter) => [counter, 1])),
    });
    const rounds = releaseRounds(
      [session('a', 3, ['x']), session('b', 1, ['x', 'y']), session('c', 2, ['z']), session('d', 4, ['y'])],
      2,
    );
    expect(rounds.map((round) => round.map((entry) => entry.id))).toEqual([
      ['b', 'c'],
      ['a', 'd'],
    ]);
  });
});
