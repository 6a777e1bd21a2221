import { type ApiDeps, createApiHandler } from '#lib/http/group-handler.ts';
import { ADMIN_ROUTES } from './table.ts';

/**
 * The admin group: staff's customers and webhook endpoints, routes no guest's path takes (the booking
 * records, lists and actions are the bookings group's; the channels' list and sync, the channels group's).
 */
export const createAdminHandler = (deps: ApiDeps) =>
  createApiHandler({
    group: 'admin',
    deps,
    routes: ADMIN_ROUTES,
    context: { db: deps.db, replayPageSize: deps.replayPageSize },
  });
