import type Stripe from 'stripe';
import { PaymentProviderError } from './errors.ts';

// Part of the Stripe adapter: its options, checked once at construction, as the SDK's settings.

/** The API version stripe 23.1.0 pins (`Stripe.API_VERSION`), sent on every call so objects keep their shape. */
export const STRIPE_API_VERSION = '2026-10-28.endive';

/** How the Stripe adapter reaches Stripe (or a server that speaks its API). */
export interface StripeProviderOptions {
  /** `STRIPE_SECRET_KEY`: `sk_…` or a restricted `rk_…` key. */
  secretKey: string;
  /** `STRIPE_WEBHOOK_SECRET`: the endpoint's `whsec_…` signing secret. */
  webhookSecret: string;
  /** `STRIPE_API_BASE` (`http://127.0.0.1:12111`): protocol, host and port only; Stripe's own when absent. */
  apiBase?: string;
  /** Per attempt, in milliseconds (default 8000). */
  timeoutMs?: number;
  /** Retries of an attempt that failed on the network, a 409 or a 5xx, with the same key (default 2). */
  maxNetworkRetries?: number;
}

const misconfigured = (detail: string) => new PaymentProviderError('misconfigured', { detail });

/** The SDK's connection settings for an API base, refused at construction (cold start) when unusable. */
function connectionFor(apiBase: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (apiBase === undefined || apiBase === '') return {};
  const url = URL.canParse(apiBase) ? new URL(apiBase) : undefined;
  const protocol = url?.protocol.slice(0, -1);
  // The SDK takes a host, a port and a protocol: a path, a query or credentials could not be honoured.
  if (
    !url ||
    (protocol !== 'http' && protocol !== 'https') ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  )
    throw misconfigured('STRIPE_API_BASE must be an http or https origin, such as http://127.0.0.1:12111.');
  const port = url.port === '' ? (protocol === 'https' ? 443 : 80) : Number(url.port);
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port, protocol };
}

/** The SDK's settings for the options, refused at construction (cold start) when unusable. */
export function stripeSettings(options: StripeProviderOptions): Stripe.StripeConfig {
  if (!options.secretKey) throw misconfigured('STRIPE_SECRET_KEY is required.');
  if (!options.webhookSecret) throw misconfigured('STRIPE_WEBHOOK_SECRET is required.');
  const timeout = options.timeoutMs ?? 8000;
  const maxNetworkRetries = options.maxNetworkRetries ?? 2;
  if (!Number.isSafeInteger(timeout) || timeout < 1) throw misconfigured('timeoutMs must be 1 or more.');
  if (!Number.isSafeInteger(maxNetworkRetries) || maxNetworkRetries < 0)
    throw misconfigured('maxNetworkRetries must be 0 or more.');
  return {
    apiVersion: STRIPE_API_VERSION,
    timeout,
    maxNetworkRetries,
    ...connectionFor(options.apiBase),
  };
}
