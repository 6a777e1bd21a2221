import { getConfig, listItems } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { type ReconcileReport, reconcile } from './reconcile.ts';
import {
  fixClientHold,
  fixClientSessions,
  fixClientUnpaid,
  fixCounter,
  scanHoldings,
} from './reconcile-repository.ts';

/** A reconcile run: the report, and with `fix` which corrupt counters were rewritten. */
export interface ReconcileRun extends ReconcileReport {
  fixed: number;
  /** Counters that changed between the read and the fix; run again. */
  skipped: number;
}

/**
 * Checks the stock invariant across a whole table; with `fix`, recomputes `used` of every corrupt
 * counter and of every client budget record that disagrees with the open sessions, by conditional writes
 * (never over a value that changed meanwhile). Over-capacity from a lowered stock is reported, never
 * "fixed".
 */
export async function runReconcile(db: Db, options: { fix: boolean; now: number }): Promise<ReconcileRun> {
  const [snapshot, items, config] = await Promise.all([scanHoldings(db), listItems(db), getConfig(db)]);
  const report = reconcile(snapshot, { items, ...(config ? { config } : {}), now: options.now });
  let fixed = 0;
  let skipped = 0;
  if (options.fix) {
    for (const entry of report.discrepancies.filter((discrepancy) => discrepancy.kind === 'corrupt')) {
      const done = await fixCounter(db, {
        itemId: entry.itemId,
        slot: entry.slot,
        seen: entry.used,
        expected: entry.expected,
      });
      if (done) fixed += 1;
      else skipped += 1;
    }
    for (const entry of report.clientDiscrepancies) {
      const done =
        entry.kind === 'client_unpaid'
          ? await fixClientUnpaid(db, { client: entry.client, seen: entry.unpaid, expected: entry.expected })
          : entry.kind === 'client_hold'
            ? await fixClientHold(db, {
                client: entry.client,
                counterId: entry.counterId,
                seen: entry.held,
                expected: entry.expected,
              })
            : await fixClientSessions(db, {
                client: entry.client,
                seen: entry.sessions,
                expected: entry.expected,
              });
      if (done) fixed += 1;
      else skipped += 1;
    }
  }
  return { ...report, fixed, skipped };
}
