import { apiDepsFromEnv } from '#lib/http/api-deps-from-env.ts';
import { createItemsHandler } from './app.ts';

/** Lambda entry of the items group. */
export const handler = createItemsHandler(apiDepsFromEnv());
