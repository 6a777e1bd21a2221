import type { ApiDeps } from '#lib/http/api.ts';
import type { Group } from '#lib/http/routes.ts';
import { createBookingsHandler } from './bookings/app.ts';
import { createItemsHandler } from './items/app.ts';
import { createMetaHandler } from './meta/app.ts';
import { createSessionHandler } from './session/app.ts';

/** The handler factory of every endpoint group, for the local gateway and the tests. */
export const GROUP_HANDLERS = {
  items: createItemsHandler,
  session: createSessionHandler,
  bookings: createBookingsHandler,
  meta: createMetaHandler,
} satisfies Record<Group, (deps: ApiDeps) => unknown>;

/** Every endpoint group's handler built over the same dependencies. */
export const createAllHandlers = (deps: ApiDeps) => ({
  items: createItemsHandler(deps),
  session: createSessionHandler(deps),
  bookings: createBookingsHandler(deps),
  meta: createMetaHandler(deps),
});
