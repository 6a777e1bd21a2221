import { getConfig } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import type { Payment, PaymentProvider } from '../payments/index.ts';
import { type PaymentReport, reconcilePayments } from './reconcile-payments.ts';
import { scanPayments } from './reconcile-payments-repository.ts';

/**
 * Audits the table's money; with `provider`, also lists the provider's payments of this tenant made after
 * `since` (Unix seconds) and matches them to our attempts both ways. Reports only: nothing is written.
 */
export async function runPaymentsReconcile(
  db: Db,
  options: { provider?: PaymentProvider | undefined; since?: number } = {},
): Promise<PaymentReport> {
  const [snapshot, config] = await Promise.all([scanPayments(db), getConfig(db)]);
  if (!options.provider) return reconcilePayments(snapshot);
  const since = options.since ?? 0;
  const payments: Payment[] = [];
  // Another tenant's payments share the provider account; they are its audit's, not ours.
  for await (const payment of options.provider.listPayments({ createdAfter: since }))
    if (payment.metadata.tenantId === config?.tenant) payments.push(payment);
  return reconcilePayments(snapshot, { name: options.provider.name, since, payments });
}
