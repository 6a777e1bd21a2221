import { parseArgs } from 'node:util';
import { connectForCli } from '#infra/local/settings.ts';
import { type PaymentDiscrepancy, runPaymentsReconcile, runReconcile } from '#lib/housekeeping/index.ts';
import { paymentProviderFromEnv } from '#lib/payments/index.ts';
import { parseCounterId } from '#lib/stock/index.ts';

// Usage: npm run reconcile [-- --fix] [--provider [--days N]]
// Checks, for every item-date, used = live session holds + active bookings + channel blocks <= capacity, and that every
// client's hold budget records agree with its open sessions; then the money (issue 43): every payment belongs to a
// booking, paid_total = captured - refunded, no lapsed or cancelled booking keeps money staff did not keep, and with
// --provider the provider's payments of the last N days (default 30) against ours, both ways. --fix never moves money.
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      fix: { type: 'boolean', default: false },
      provider: { type: 'boolean', default: false },
      days: { type: 'string', default: '30' },
    },
  });
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 3650)
    throw new Error('--days must be a whole number of days, 1 to 3650');
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
  const provider = values.provider ? await providerOrFail() : undefined;
  const money = await runPaymentsReconcile(db, {
    provider,
    since: Math.floor(Date.now() / 1000) - days * 86_400,
  });
  for (const entry of money.discrepancies) say(describeMoney(entry));
  if (money.discrepancies.length === 0)
    say(
      `money agrees over ${money.bookings} bookings and ${money.attempts} payment attempts${
        money.providerPayments === undefined
          ? ''
          : ` and ${money.providerPayments} ${provider?.name} payments of the last ${days} days`
      }`,
    );
  else if (values.fix) say('money is reported, never fixed: refunds and captures are for staff to decide');
  const corrupt =
    run.discrepancies.filter((entry) => entry.kind === 'corrupt').length + run.clientDiscrepancies.length;
  // A line that takes more than it holds needs a person: --fix cannot take stock that may be gone.
  const underHeld = run.holderDiscrepancies.some((entry) => entry.kind === 'takes_more');
  return corrupt > run.fixed || underHeld || money.discrepancies.length > 0 ? 1 : 0;
}

/** The provider the service is configured with (`STRIPE_*`); --provider without one is an error, not a pass. */
async function providerOrFail() {
  const provider = await paymentProviderFromEnv(process.env)();
  if (!provider) throw new Error('--provider needs STRIPE_SECRET_KEY (and STRIPE_API_BASE for the stand-in)');
  return provider;
}

/** One money discrepancy on one line. */
function describeMoney(entry: PaymentDiscrepancy): string {
  switch (entry.kind) {
    case 'orphan_attempt':
      return `payment ${entry.paymentId}: belongs to booking ${entry.bookingId}, which does not exist (captured ${entry.captured})`;
    case 'orphan_transaction':
      return `transaction ${entry.transactionId}: belongs to booking ${entry.bookingId}, which does not exist (amount ${entry.amount})`;
    case 'paid_total':
      return `booking ${entry.booking}: paid_total ${entry.paidTotal} but its payments add up to ${entry.expected}`;
    case 'not_counted':
      return `booking ${entry.booking} payment ${entry.paymentId}: captured less refunded is ${entry.held} but ${entry.applied} is counted`;
    case 'rows':
      return `booking ${entry.booking} payment ${entry.paymentId}: its transaction rows add up to ${entry.rows} but ${entry.applied} is counted`;
    case 'kept_inactive':
      return `booking ${entry.booking} payment ${entry.paymentId}: ${entry.status} but keeps ${entry.held} captured, and staff did not keep it`;
    case 'provider_unknown':
      return `provider payment ${entry.providerPaymentId}: captured ${entry.captured}, refunded ${entry.refunded}, has no booking here${entry.bookingId ? ` (names booking ${entry.bookingId})` : ''}`;
    case 'provider_missing':
      return `booking ${entry.booking} payment ${entry.paymentId}: the provider does not list ${entry.providerPaymentId}`;
    case 'provider_differs':
      return `booking ${entry.booking} payment ${entry.paymentId}: recorded captured ${entry.captured} refunded ${entry.refunded}, the provider says captured ${entry.providerCaptured} refunded ${entry.providerRefunded}`;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`reconcile failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
