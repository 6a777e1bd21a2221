import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { createAdminHandler } from './app.ts';

/** Lambda entry of the admin group. */
export const handler = createAdminHandler(apiDepsFromEnv());
