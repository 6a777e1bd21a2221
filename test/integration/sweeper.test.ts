import { beforeAll, describe, expect, it } from 'vitest';
import { createSweeper } from '#functions/sweeper/job.ts';
import { releaseRounds } from '#lib/housekeeping/sweep.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createTestDb, readUsed, watchCommands } from '#test/support/dynamo.ts';
import { expiredSession, resetWatermark, seedSessions } from '#test/support/expired-sessions.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Issue 9: the sweeper releases in parallel, reports its lag, and clears a flood within a few runs. The flood
// of 10,000 carts, a measure of speed rather than a rule, is in `npm run bench` (test/bench/sweeper.ts).
let db: Db;
const base = Date.UTC(2027, 2, 1, 12, 0, 0);

beforeAll(async () => {
  db = await createTestDb('sweeper');
  await writeTenant(db, makeTenant(makeTenantJson({ items: [makeItem({ item_id: 1, stock: 100_000 })] })), 0);
});

const seed = (sessions: Parameters<typeof seedSessions>[1]) => seedSessions(db, sessions);
const usedOf = (slot: string): Promise<number> => readUsed(db, 1, slot);
const minuteOf = (ms: number) => Math.floor(ms / 60_000) * 60;

describe('the sweeper', () => {
  it('clears a flood across more shards than it reads at once, pages of a shard and rounds of releases', async () => {
    // Twelve expiry minutes, more than the ten shards a sweep reads at once. The oldest minute holds 120
    // carts of twenty lines, over the 1 MB a page of its index query returns; each other minute 10 carts.
    // 230 releases, in rounds of 16 that share no counter.
    const newest = base - 5 * 60_000;
    const slots = Array.from(
      { length: 40 },
      (_, index) => `20270${4 + Math.floor(index / 28)}${String((index % 28) + 1).padStart(2, '0')}`,
    );
    const sessions = Array.from({ length: 12 }, (_, minute) =>
      Array.from({ length: minute === 11 ? 120 : 10 }, (_, index) =>
        expiredSession(slots[(minute * 7 + index) % slots.length] as string, newest - minute * 60_000, {
          lines: 20,
        }),
      ),
    ).flat();
    await seed(sessions);
    await resetWatermark(db, minuteOf(newest - 11 * 60_000) - 60);
    // Time stands still within a run, and each next run starts a minute later: how many sessions a run
    // clears in its budget is the machine's speed, not a rule (the budget's own rule is the next test's).
    const pages: unknown[] = [];
    const watched = watchCommands(db, (name, input) => {
      const query = input as { IndexName?: string; ExclusiveStartKey?: unknown };
      if (name === 'QueryCommand' && query.IndexName === 'gsi1' && query.ExclusiveStartKey) pages.push(query);
    });
    let now = base;
    const sweep = createSweeper({ db: watched, clock: () => now, budgetMs: 20_000 });
    let released = 0;
    let runs = 0;
    let report: Awaited<ReturnType<typeof sweep>> | undefined;
    do {
      report = await sweep();
      released += report.released;
      runs += 1;
      now += 60_000;
    } while (!report.complete && runs < 5);
    expect(released).toBe(sessions.length);
    expect(pages.length).toBeGreaterThan(0);
    expect(report.complete).toBe(true);
    expect(report.lagSeconds).toBe(0);
    for (const slot of new Set(slots)) expect(await usedOf(slot)).toBe(0);
  });

  it('stops at its budget, keeps its watermark before the unfinished minute, and reports its lag', async () => {
    const expiredAt = base + 3_600_000;
    const sessions = Array.from({ length: 40 }, (_, index) =>
      expiredSession(`202709${String((index % 28) + 1).padStart(2, '0')}`, expiredAt),
    );
    await seed(sessions);
    await resetWatermark(db, minuteOf(expiredAt) - 120);
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
    const broken = expiredSession('20271001', expiredAt, { holds: { '1|20271001': 'not a number' } });
    const good = Array.from({ length: 5 }, (_, index) => expiredSession(`2027100${index + 2}`, expiredAt));
    await seed([broken, ...good]);
    await resetWatermark(db, minuteOf(expiredAt) - 120);
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
