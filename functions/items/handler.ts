import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { createItemsHandler } from './app.ts';

/** Lambda entry of the items group. */
export const handler = createItemsHandler(apiDepsFromEnv());
