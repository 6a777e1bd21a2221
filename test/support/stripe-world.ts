import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll } from 'vitest';
import {
  type StripeStandIn,
  type StripeStandInOptions,
  startStripeStandIn,
} from '#infra/local/stripe/index.ts';
import { expectStripeErrorSchema, expectStripeSchema } from './stripe-schemas.ts';

// The stand-in as the product's adapter meets it: the official SDK pointed at it by host, port and protocol,
// every answer checked against Stripe's OpenAPI document; and a webhook receiver on the loopback.

/** One POST the receiver got. */
export interface WebhookArrival {
  headers: Record<string, string>;
  body: string;
  status: number;
  event: { id: string; type: string };
}

/** A webhook receiver on 127.0.0.1 that answers what `answer` says (200 by default). */
export async function startWebhookReceiver() {
  const arrivals: WebhookArrival[] = [];
  const state: { answer: (arrival: Omit<WebhookArrival, 'status'>) => number | 'hang' } = {
    answer: () => 200,
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
      const event = JSON.parse(body) as { id: string; type: string };
      const seen = { headers, body, event };
      const status = state.answer(seen);
      if (status === 'hang') return;
      arrivals.push({ ...seen, status });
      response.statusCode = status;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stripe/webhook`;
  const stop = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url, arrivals, state, stop };
}

/** The official SDK configured for a stand-in, as the adapter will be (`STRIPE_API_BASE`). */
export function sdkFor(standIn: StripeStandIn, config: Partial<Stripe.StripeConfig> = {}): Stripe {
  const base = new URL(standIn.url);
  return new Stripe(standIn.secretKey, {
    host: base.hostname,
    port: Number(base.port),
    protocol: 'http',
    maxNetworkRetries: 0,
    telemetry: false,
    ...config,
  });
}

const RESOURCES = ['paymentIntents', 'refunds', 'events', 'charges'] as const;

const checkPromise = <T>(promise: Promise<T>): Promise<T> =>
  promise.then(
    (value) => {
      expectStripeSchema(value);
      return value;
    },
    (error: unknown) => {
      if (error instanceof Stripe.errors.StripeError && error.raw && error.statusCode !== 401)
        expectStripeErrorSchema({ error: error.raw });
      throw error;
    },
  );

function checked<T extends object>(resource: T): T {
  return new Proxy(resource, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args) as Promise<unknown> & {
          autoPagingToArray?: (options: { limit: number }) => Promise<unknown[]>;
        };
        if (!result || typeof result.then !== 'function') return result;
        const out = checkPromise(result) as typeof result;
        if (result.autoPagingToArray) {
          const toArray = result.autoPagingToArray.bind(result);
          out.autoPagingToArray = async (options) => {
            const items = await toArray(options);
            for (const item of items) expectStripeSchema(item);
            return items;
          };
        }
        return out;
      };
    },
  });
}

/** The SDK whose every answer (objects, lists, errors) is validated against Stripe's document. */
export function checkedSdk(stripe: Stripe): Stripe {
  const wrapped = Object.create(stripe) as Stripe;
  for (const name of RESOURCES)
    (wrapped as unknown as Record<string, object>)[name] = checked(stripe[name] as object);
  wrapped.checkout = {
    ...stripe.checkout,
    sessions: checked(stripe.checkout.sessions),
  } as Stripe['checkout'];
  return wrapped;
}

/**
 * A stand-in with a receiver for its webhooks and the checked SDK, stopped after the file's tests; `control`
 * drives `/_standin/*` over HTTP as the soak does.
 */
export async function startStripeWorld(options: StripeStandInOptions & { withReceiver?: boolean } = {}) {
  const receiver = options.withReceiver === false ? undefined : await startWebhookReceiver();
  const standIn = await startStripeStandIn({
    retry: { baseMs: 20, maxMs: 200, maxAttempts: 5, timeoutMs: 2000 },
    ...options,
    webhookUrls: receiver ? [receiver.url, ...(options.webhookUrls ?? [])] : options.webhookUrls,
  });
  const stripe = checkedSdk(sdkFor(standIn));
  const control = async (path: string, body?: Record<string, unknown>, method = body ? 'POST' : 'GET') => {
    const response = await fetch(`${standIn.url}/_standin/${path}`, {
      method,
      headers: { authorization: `Bearer ${standIn.secretKey}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, any> };
  };
  afterAll(async () => {
    await standIn.stop();
    await receiver?.stop();
  });
  return { standIn, stripe, control, receiver };
}

/** A Checkout Session as the adapter will ask for one: a deposit for a booking, with its ids. */
export function depositSession(overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}) {
  return {
    mode: 'payment',
    line_items: [
      {
        price_data: {
          currency: 'cad',
          product_data: { name: 'Deposit: Lakeside cabin, 2 nights' },
          unit_amount: 12_500,
        },
        quantity: 1,
      },
    ],
    metadata: { tenant_id: 'demo', booking_id: '42', payment_id: 'pay_1' },
    payment_intent_data: {
      capture_method: 'automatic',
      metadata: { tenant_id: 'demo', payment_id: 'pay_1' },
    },
    success_url: 'http://127.0.0.1:3000/book/paid?session={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://127.0.0.1:3000/book/cancelled',
    customer_email: 'guest@example.com',
    client_reference_id: 'CFPP-290317',
    ...overrides,
  } satisfies Stripe.Checkout.SessionCreateParams;
}

/** Waits (polling, never a fixed sleep) until `check` returns something truthy. */
export async function waitFor<T>(
  check: () => T | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
