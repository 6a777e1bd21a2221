import type { ApiDeps } from '#lib/http/group-handler.ts';
import { createAdminHandler } from './admin/app.ts';
import { createBookingsHandler } from './bookings/app.ts';
import { createChannelsHandler } from './channels/app.ts';
import { createItemsHandler } from './items/app.ts';
import { createMetaHandler } from './meta/app.ts';
import { createPaymentsHandler } from './payments/app.ts';
import { ROUTES } from './routes.ts';
import { createSessionHandler } from './session/app.ts';

/** Every endpoint group's handler built over the same dependencies. */
export const createAllHandlers = (deps: ApiDeps) => ({
  items: createItemsHandler(deps),
  session: createSessionHandler(deps),
  bookings: createBookingsHandler(deps),
  admin: createAdminHandler(deps),
  meta: createMetaHandler(deps, { known: ROUTES.filter((route) => route.group !== 'meta') }),
  channels: createChannelsHandler(deps),
  payments: createPaymentsHandler(deps),
});
