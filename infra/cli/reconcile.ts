import { parseArgs } from 'node:util';
import { connectForCli } from '#infra/local/settings.ts';
import { runReconcile } from '#lib/housekeeping/index.ts';
import { parseCounterId } from '#lib/stock/index.ts';

// Usage: npm run reconcile [-- --fix]
// Checks, for every item-date, used = live session holds + active bookings + channel blocks <= capacity, and that every
// client's hold budget records agree with its open sessions.
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { fix: { type: 'boolean', default: false } } });
  const db = connectForCli();
  const run = await runReconcile(db, { fix: values.fix, now: Date.now() });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  for (const entry of run.discrepancies) {
    const what =
      entry.kind === 'corrupt'
        ? `used ${entry.used} but holds, bookings and channel blocks add up to ${entry.expected} (corrupt)`
        : `used ${entry.used} is over capacity ${entry.capacity}: stock was lowered below what is held or booked`;
    say(`item ${entry.itemId} ${entry.slot}: ${what}`);
  }
  for (const entry of run.clientDiscrepancies) {
    say(
      entry.kind === 'client_unpaid'
        ? `client ${entry.client}: counts ${entry.unpaid} unpaid bookings, ${entry.expected} are`
        : entry.kind === 'client_hold'
          ? `client ${entry.client} ${entry.counterId}: budget says ${entry.held} held, its open sessions and unpaid bookings hold ${entry.expected}`
          : `client ${entry.client}: holding sessions recorded [${entry.sessions.join(' ')}], open sessions holding [${entry.expected.join(' ')}]`,
    );
  }
  for (const entry of run.holderDiscrepancies) {
    const { itemId, slot } = parseCounterId(entry.counterId);
    const what =
      entry.kind === 'takes_more'
        ? 'could be sold past its stock: its item was corrected after it was held'
        : 'holds stock its item no longer takes';
    say(
      `${entry.holder} ${entry.id} line ${entry.line}: holds ${entry.holds} of item ${itemId} ${slot}, its item takes ${entry.takes} now (${what})`,
    );
  }
  if (run.discrepancies.length === 0) say(`no discrepancy in ${run.counters} counters`);
  if (run.holderDiscrepancies.length === 0)
    say('every open cart and active booking holds what its items take');
  if (run.clientDiscrepancies.length === 0) say('hold budgets agree with the open sessions');
  if (run.awaitingSweep) say(`${run.awaitingSweep} expired sessions still hold stock until the sweeper runs`);
  if (values.fix)
    say(`fixed ${run.fixed}${run.skipped ? `, ${run.skipped} changed meanwhile (run again)` : ''}`);
  const corrupt =
    run.discrepancies.filter((entry) => entry.kind === 'corrupt').length + run.clientDiscrepancies.length;
  // A line that takes more than it holds needs a person: --fix cannot take stock that may be gone.
  const underHeld = run.holderDiscrepancies.some((entry) => entry.kind === 'takes_more');
  return corrupt > run.fixed || underHeld ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`reconcile failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
