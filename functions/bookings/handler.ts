import { runtimeFromEnv } from '#lib/http/runtime.ts';
import { createBookingsHandler } from './app.ts';

/** Lambda entry of the bookings group. */
export const handler = createBookingsHandler(runtimeFromEnv());
