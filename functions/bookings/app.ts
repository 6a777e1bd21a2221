import { type ApiDeps, createApiHandler, slipKeysOf } from '#lib/http/group-handler.ts';
import { BOOKINGS_ROUTES } from './table.ts';

/**
 * The bookings group: the form, create, records, lists, invoices, actions, customers and webhooks (the
 * staff calendar feed and the channels are the channels group's).
 */
export const createBookingsHandler = (deps: ApiDeps) =>
  createApiHandler({
    group: 'bookings',
    deps,
    routes: BOOKINGS_ROUTES,
    context: {
      db: deps.db,
      slipKeys: slipKeysOf(deps),
      ...(deps.payments ? { payments: deps.payments } : {}),
    },
  });
