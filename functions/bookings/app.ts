import { type ApiDeps, createApiHandler, slipKeysOf } from '#lib/http/group-handler.ts';
import { BOOKINGS_ROUTES } from './table.ts';

/**
 * The bookings group: the form, create, records, lists, invoices, actions and notes (the customers and the
 * webhook endpoints are the admin group's; the staff calendar feed and the channels, the channels group's).
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
