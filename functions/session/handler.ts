import { apiDepsFromEnv } from '#lib/http/api-deps-from-env.ts';
import { createSessionHandler } from './app.ts';

/** Lambda entry of the session group. */
export const handler = createSessionHandler(apiDepsFromEnv());
