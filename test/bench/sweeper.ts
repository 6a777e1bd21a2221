import { randomUUID } from 'node:crypto';
import { createSweeper } from '#functions/sweeper/job.ts';
import { countDbUsage, type DbUsage, emptyDbUsage } from '#infra/local/db-usage.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { expiredSession, resetWatermark, seedSessions } from '#test/support/expired-sessions.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// The sweeper against a flood (issue 9's scale, moved here from the test suite by issue 42): 10,000 carts
// that expired over three minutes, each holding one unit of one of 500 dates, cleared by sweeps a minute
// apart with the deployed budget. What the suite keeps is the rule (test/integration/sweeper.test.ts: every
// boundary a flood crosses, with a few hundred carts); what this measures is how fast a backlog goes.

/** What clearing the flood took. */
export interface SweeperFlood {
  sessions: number;
  runs: number;
  seconds: number;
  releasesPerSecond: number;
  calls: Record<string, number>;
}

export async function measureSweeperFlood(endpoint: string, sessions = 10_000): Promise<SweeperFlood> {
  const tableName = `bench-sweeper-${randomUUID().slice(0, 8)}`;
  const plain = createDb({ endpoint, tableName });
  await ensureTable(plain);
  await writeTenant(
    plain,
    makeTenant(makeTenantJson({ items: [makeItem({ item_id: 1, stock: 100_000 })] })),
    0,
  );
  const base = Date.UTC(2027, 2, 1, 12, 0, 0);
  const expiredAt = base - 5 * 60_000;
  const slots = Array.from(
    { length: 500 },
    (_, index) =>
      `2027${String(4 + Math.floor(index / 28)).padStart(2, '0')}${String((index % 28) + 1).padStart(2, '0')}`,
  );
  await seedSessions(
    plain,
    Array.from({ length: sessions }, (_, index) =>
      expiredSession(slots[index % slots.length] as string, expiredAt - (index % 3) * 60_000),
    ),
  );
  await resetWatermark(plain, Math.floor(expiredAt / 60_000) * 60 - 600);
  const usage: DbUsage = emptyDbUsage();
  const db = createDb({ endpoint, tableName, instrument: countDbUsage(usage) });
  // Each run starts a minute after the last, as the schedule runs them, and works to the deployed budget of
  // the real time it takes.
  let now = base;
  let runStarted = performance.now();
  const sweep = createSweeper({ db, clock: () => now + performance.now() - runStarted });
  let released = 0;
  let runs = 0;
  const started = performance.now();
  for (let complete = false; !complete && runs < 10; runs += 1) {
    runStarted = performance.now();
    const report = await sweep();
    released += report.released;
    complete = report.complete;
    now += 60_000;
  }
  const seconds = (performance.now() - started) / 1000;
  if (released !== sessions) throw new Error(`the sweeper released ${released} of ${sessions} carts`);
  const audit = await runReconcile(plain, { fix: false, now });
  if (audit.discrepancies.length)
    throw new Error(`the flood left ${audit.discrepancies.length} discrepancies`);
  return {
    sessions,
    runs,
    seconds: Math.round(seconds * 10) / 10,
    releasesPerSecond: Math.round(sessions / seconds),
    calls: usage.calls,
  };
}

/** The flood as a markdown table. */
export function sweeperTable(flood: SweeperFlood): string[] {
  return [
    '| sweeper flood | runs | seconds | releases/s | DynamoDB calls by operation |',
    '|---|---|---|---|---|',
    `| ${flood.sessions} expired carts | ${flood.runs} | ${flood.seconds} | ${flood.releasesPerSecond} | ${Object.entries(
      flood.calls,
    )
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')} |`,
  ];
}
