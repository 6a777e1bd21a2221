import { type ApiDeps, createApiHandler } from '#lib/http/api.ts';

/**
 * The bookings group. Its routes come from the route table; those without an implementation here answer
 * 501 `not_implemented` until their issue lands.
 */
export const createBookingsHandler = (deps: ApiDeps) =>
  createApiHandler({ group: 'bookings', deps, routes: {} });
