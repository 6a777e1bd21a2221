import { runtimeFromEnv } from '#lib/http/runtime.ts';
import { createItemsHandler } from './app.ts';

/** Lambda entry of the items group. */
export const handler = createItemsHandler(runtimeFromEnv());
