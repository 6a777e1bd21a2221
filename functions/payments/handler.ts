import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { paymentProviderFromEnv } from '#lib/payments/index.ts';
import { createPaymentsHandler } from './app.ts';

/** Lambda entry of the payments group. */
export const handler = createPaymentsHandler({ ...apiDepsFromEnv(), payments: paymentProviderFromEnv() });
