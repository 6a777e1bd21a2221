import { ApiError } from '../errors.ts';
import type { ApiMiddleware } from '../request-state.ts';
import type { Route } from '../routes.ts';

/**
 * Answers 501 `not_implemented` for a route of the table that its group does not implement yet: a
 * missing feature is visibly missing rather than faked. It comes after the access rule and the limits,
 * so an unbuilt route tells an unauthorised caller nothing more than a built one.
 */
export const notImplemented = (route: Route, implemented: boolean): ApiMiddleware => ({
  before: () => {
    if (implemented) return;
    throw new ApiError('not_implemented', {
      details: `${route.method} ${route.path} is not built yet`,
      data: { route: `${route.method} ${route.path}` },
    });
  },
});
