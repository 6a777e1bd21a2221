import { runtimeFromEnv } from '#lib/http/runtime.ts';
import { createMetaHandler } from './app.ts';

/** Lambda entry of the meta group (also the API's $default route). */
export const handler = createMetaHandler(runtimeFromEnv());
