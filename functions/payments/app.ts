import { type ApiDeps, createApiHandler } from '#lib/http/group-handler.ts';
import { PAYMENTS_ROUTES } from './table.ts';

/** The payments group: the payment provider's webhook (issue 43). */
export const createPaymentsHandler = (deps: ApiDeps) =>
  createApiHandler({
    group: 'payments',
    deps,
    routes: PAYMENTS_ROUTES,
    context: {
      db: deps.db,
      payments: deps.payments,
      clock: deps.clock,
      providerCallMs: deps.providerCallMs,
    },
  });
