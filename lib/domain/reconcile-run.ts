import type { Db } from '../db/client.ts';
import { fixCounter, scanHoldings } from '../db/reconcile-repository.ts';
import { getConfig, listItems } from '../db/tenant-repository.ts';
import { type ReconcileReport, reconcile } from './reconcile.ts';

/** A reconcile run: the report, and with `fix` which corrupt counters were rewritten. */
export interface ReconcileRun extends ReconcileReport {
  fixed: number;
  /** Counters that changed between the read and the fix; run again. */
  skipped: number;
}

/**
 * Checks the stock invariant across a whole table; with `fix`, recomputes `used` of every corrupt
 * counter by a conditional write (never over a value that changed meanwhile). Over-capacity from a
 * lowered stock is reported, never "fixed".
 */
export async function runReconcile(db: Db, options: { fix: boolean; now: number }): Promise<ReconcileRun> {
  const [snapshot, items, config] = await Promise.all([scanHoldings(db), listItems(db), getConfig(db)]);
  const report = reconcile(snapshot, {
    items,
    timeZone: config?.company.timezone ?? 'UTC',
    nowSeconds: Math.floor(options.now / 1000),
  });
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
  }
  return { ...report, fixed, skipped };
}
