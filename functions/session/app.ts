import { type ApiDeps, createApiHandler } from '#lib/http/api.ts';

/**
 * The session group. Its routes come from the route table; those without an implementation here answer
 * 501 `not_implemented` until their issue lands.
 */
export const createSessionHandler = (deps: ApiDeps) =>
  createApiHandler({ group: 'session', deps, routes: {} });
