import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { createMetaHandler } from './app.ts';

/** Lambda entry of the meta group (also the API's $default route). */
export const handler = createMetaHandler(apiDepsFromEnv());
