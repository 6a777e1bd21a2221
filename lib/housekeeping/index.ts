// The housekeeping context's public entry: what other contexts, the functions and the CLIs use of it.

export type { PaymentDiscrepancy, PaymentReport } from './reconcile-payments.ts';
export { runPaymentsReconcile } from './reconcile-payments-run.ts';
export { runReconcile } from './reconcile-run.ts';
export { releaseRounds, sweepMinutes } from './sweep.ts';
export { getSweptUntil, putSweptUntil } from './sweeper-state-repository.ts';
export { writeTenant } from './tenant-load.ts';
