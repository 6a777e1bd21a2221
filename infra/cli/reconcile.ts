import { parseArgs } from 'node:util';
import { connectForCli } from '#infra/local/settings.ts';
import { runReconcile } from '#lib/domain/reconcile-run.ts';

// Usage: npm run reconcile [-- --fix]
// Checks, for every item-date, used = live session holds + active bookings <= capacity.
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { fix: { type: 'boolean', default: false } } });
  const db = connectForCli();
  const run = await runReconcile(db, { fix: values.fix, now: Date.now() });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  for (const entry of run.discrepancies) {
    const what =
      entry.kind === 'corrupt'
        ? `used ${entry.used} but holds and bookings add up to ${entry.expected} (corrupt)`
        : `used ${entry.used} is over capacity ${entry.capacity}: stock was lowered below what is held or booked`;
    say(`item ${entry.itemId} ${entry.slot}: ${what}`);
  }
  if (run.discrepancies.length === 0) say(`no discrepancy in ${run.counters} counters`);
  if (run.awaitingSweep) say(`${run.awaitingSweep} expired sessions still hold stock until the sweeper runs`);
  if (values.fix)
    say(`fixed ${run.fixed}${run.skipped ? `, ${run.skipped} changed meanwhile (run again)` : ''}`);
  const corrupt = run.discrepancies.filter((entry) => entry.kind === 'corrupt').length;
  return corrupt > run.fixed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`reconcile failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
