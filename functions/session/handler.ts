import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { createSessionHandler } from './app.ts';

/** Lambda entry of the session group. */
export const handler = createSessionHandler(apiDepsFromEnv());
