import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { createBookingsHandler } from './app.ts';

/** Lambda entry of the bookings group. */
export const handler = createBookingsHandler(apiDepsFromEnv());
