import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { paymentProviderFromEnv } from '#lib/payments/index.ts';
import { createBookingsHandler } from './app.ts';

/** Lambda entry of the bookings group: its create opens the payment provider's checkout (issue 43). */
export const handler = createBookingsHandler({ ...apiDepsFromEnv(), payments: paymentProviderFromEnv() });
