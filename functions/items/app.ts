import { type ApiDeps, createApiHandler } from '#lib/http/api.ts';

/**
 * The items group. Its routes come from the route table; those without an implementation here answer
 * 501 `not_implemented` until their issue lands.
 */
export const createItemsHandler = (deps: ApiDeps) => createApiHandler({ group: 'items', deps, routes: {} });
