import {
  EXTENSION_DEFAULT_PORT,
  ExtensionSecretError,
  readExtensionSecret,
} from '../kernel/extension-secret.ts';
import { PaymentProviderError } from './errors.ts';
import type { PaymentProvider } from './port.ts';
import type { StripeProviderOptions } from './stripe-config.ts';

/**
 * The adapter's module. A Lambda bundle is one file, into which esbuild would write the adapter (12 KB) as
 * soon as this file imported it: the functions that call the provider ship it as a file of its own beside
 * their bundle instead (`payments-provider.mjs`, named here by esbuild's `define`, infra/constructs/
 * functions.ts), so a cold start loads it only when a payment is made. Run from source, it is the module.
 */
const ADAPTER_FILE =
  (globalThis as { PAYMENT_ADAPTER_FILE?: string }).PAYMENT_ADAPTER_FILE ?? './stripe-adapter.ts';

/** The Stripe adapter, made with `options` (its module loaded at the first call). */
async function stripeProvider(options: StripeProviderOptions): Promise<PaymentProvider> {
  const adapter: typeof import('./stripe-adapter.ts') = await import(
    /* @vite-ignore */ new URL(ADAPTER_FILE, import.meta.url).href
  );
  return adapter.stripeProvider(options);
}

// Where a function finds its payment provider: locally STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (and
// STRIPE_API_BASE, a stand-in's address); in AWS the tenant's Secrets Manager secret (STRIPE_SECRET_ARN), read
// through the Parameters and Secrets extension and kept a minute, so a rotated key is picked up without a
// deploy (docs/payments.md). An explicit STRIPE_API_BASE wins over the secret's.

/** A provider, made when first asked for; undefined when the function has no payment configuration. */
export type ProviderSource = () => Promise<PaymentProvider | undefined>;

/** The secret's JSON: `{"secret_key": "sk_…", "webhook_secret": "whsec_…", "api_base"?: "https://…"}`. */
interface StripeSecret {
  secret_key?: string;
  webhook_secret?: string;
  api_base?: string;
}

const SECRET_CACHE_MS = 60_000;

/** The secret's string; the extension refusing is a misconfiguration, its silence the provider unavailable. */
const readSecret = (arn: string, env: NodeJS.ProcessEnv): Promise<string> =>
  readExtensionSecret({
    secretArn: arn,
    port: Number(env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? EXTENSION_DEFAULT_PORT),
    sessionToken: env.AWS_SESSION_TOKEN ?? '',
  }).catch((error: unknown) => {
    throw error instanceof ExtensionSecretError && error.status !== undefined
      ? new PaymentProviderError('misconfigured', { detail: 'The payment secret could not be read.' })
      : new PaymentProviderError('unavailable');
  });

/** The payment provider of a function's environment (none configured: a source that answers undefined). */
export function paymentProviderFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderSource {
  const apiBase = env.STRIPE_API_BASE || undefined;
  if (env.STRIPE_SECRET_KEY) {
    const options = {
      secretKey: env.STRIPE_SECRET_KEY,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET ?? '',
      ...(apiBase ? { apiBase } : {}),
    };
    // Checked by the adapter when it is made, at the first payment: the check (stripe-config.ts) travels in
    // the adapter's file, not in every bundle. The local runner asks for the provider as it starts, so a bad
    // key or base still stops `npm start` rather than a guest's request (infra/local/payments.ts).
    let provider: Promise<PaymentProvider> | undefined;
    return () => {
      provider ??= stripeProvider(options);
      provider.catch(() => {
        provider = undefined;
      });
      return provider;
    };
  }
  const arn = env.STRIPE_SECRET_ARN;
  if (!arn) return async () => undefined;
  let cached: { at: number; text: string; provider: PaymentProvider } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < SECRET_CACHE_MS) return cached.provider;
    const text = await readSecret(arn, env);
    if (cached?.text === text) {
      cached = { ...cached, at: Date.now() };
      return cached.provider;
    }
    const secret = JSON.parse(text) as StripeSecret;
    // The stack creates the secret as `{}`: no provider until an operator puts the keys in.
    if (!secret.secret_key) return undefined;
    const base = apiBase ?? secret.api_base;
    const provider = await stripeProvider({
      secretKey: secret.secret_key ?? '',
      webhookSecret: secret.webhook_secret ?? '',
      ...(base ? { apiBase: base } : {}),
    });
    cached = { at: Date.now(), text, provider };
    return provider;
  };
}
