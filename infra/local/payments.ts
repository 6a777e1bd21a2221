import type { Tenant } from '#lib/config/index.ts';
import { type PaymentProvider, type ProviderSource, paymentProviderFromEnv } from '#lib/payments/index.ts';
import { type StripeStandIn, startStripeStandIn } from './stripe/index.ts';

// The payment provider `npm start` gives the service (issue 43, docs/payments.md): Stripe's keys from the
// environment when they are set (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, and STRIPE_API_BASE, which wins);
// otherwise, for a tenant that takes payment, the local stand-in for Stripe, started here on loopback with its
// state in DATA_DIR and its events posted to this runner's webhook route; for a tenant that takes none, none.

/** Where the runner's payments come from, once it listens, and how to stop what it started. */
export interface LocalPayments {
  /** The provider the handlers and the sweeper ask for (none until `start`, and for a tenant without payment). */
  payments: ProviderSource;
  /** Starts the stand-in when one is needed, posting its events to `webhookUrl`; says what it started. */
  start(webhookUrl: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

/** The runner's payments for `tenant`, keys from `env` first. */
export function localPayments(options: {
  tenant: Tenant;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
}): LocalPayments {
  const env = options.env ?? process.env;
  if (env.STRIPE_SECRET_KEY) {
    const payments = paymentProviderFromEnv(env);
    return {
      payments,
      async start() {
        // Made now, which checks the keys and the base: a bad one stops the start, not a guest's booking.
        await payments();
        return `payments: Stripe at ${env.STRIPE_API_BASE || 'api.stripe.com'} (STRIPE_SECRET_KEY)`;
      },
      stop: async () => undefined,
    };
  }
  let source: ProviderSource | undefined;
  let standIn: StripeStandIn | undefined;
  return {
    payments: async (): Promise<PaymentProvider | undefined> => source?.(),
    async start(webhookUrl) {
      if (options.tenant.settings.payment.take === 'none') return undefined;
      standIn = await startStripeStandIn({
        host: env.STRIPE_STANDIN_HOST || '127.0.0.1',
        port: Number(env.STRIPE_STANDIN_PORT || 0),
        ...(env.STRIPE_STANDIN_PUBLIC_URL ? { publicUrl: env.STRIPE_STANDIN_PUBLIC_URL } : {}),
        dataDir: options.dataDir,
        webhookUrls: [webhookUrl],
      });
      source = paymentProviderFromEnv({
        STRIPE_SECRET_KEY: standIn.secretKey,
        STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
        STRIPE_API_BASE: standIn.url,
      });
      return `payments: the local stand-in for Stripe at ${standIn.url} (test cards: docs/payments-stand-in.md)`;
    },
    async stop() {
      await standIn?.stop();
    },
  };
}
