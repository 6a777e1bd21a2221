import { type ApiMiddleware, stateWith } from '../request-state.ts';
import type { Route } from '../routes.ts';

/** Records the chosen route: its name for metrics and logs, the envelope's resource and id. */
export const routeContext = (route: Route): ApiMiddleware => ({
  before: ({ event }) => {
    const state = stateWith(event);
    state.route = route.name;
    state.resource = route.resource;
    state.id = route.id || (Object.values(event.pathParameters ?? {})[0] ?? '');
  },
});
