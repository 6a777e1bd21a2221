import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect } from 'vitest';
import type { z } from 'zod';
import type { createAllHandlers } from '#functions/index.ts';
import { stripeWebhookRoute } from '#functions/payments/table.ts';
import { errorEnvelopeSchema } from '#functions/responses.ts';
import { docsOf } from '#functions/route-docs.ts';
import { type StripeStandIn, startStripeStandIn } from '#infra/local/stripe/index.ts';
import { findBooking, lapseUnpaidPayments } from '#lib/bookings/index.ts';
import { getConfig } from '#lib/config/index.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { type PaymentProvider, stripeProvider } from '#lib/payments/index.ts';
import { readUsed } from './dynamo.ts';
import { formBody, invoke, makeEvent, type TestResponse, testContext } from './events.ts';
import { sessionClient, sessionOf } from './session.ts';
import { makeItem, makeTenantJson } from './tenant.ts';
import { loadTenant } from './tenant-table.ts';

// The world of the payment flow's tests (issue 43): a tenant that takes payment at booking, the Stripe
// stand-in reached through the real adapter (STRIPE_API_BASE), and the stand-in's signed webhooks posted to
// the payments function through a loopback bridge, as API Gateway would hand them over.

/** One delivery the payments function answered. */
export interface Answered {
  status: number;
  outcome?: string;
  type: string;
}

/** A world: the table, handlers, stand-in and provider, and what the bridge answered. */
export interface PaymentsWorld {
  db: Db;
  handlers: ReturnType<typeof createAllHandlers>;
  standIn: StripeStandIn;
  provider: PaymentProvider;
  answered: Answered[];
  /** The provider the create sees (a test may wrap it). */
  swap: (next: PaymentProvider) => void;
  /** Moves the handlers' clock on (keep it under the 300 s a webhook's signature is good for). */
  shift: (ms: number) => void;
}

export const day = (offset = 30) => addDays(todayIn('America/Toronto', Date.now()), offset);

/**
 * A tenant of kayaks (40.00 a day, 500 of them) and one solo kayak, taking payment as `payment` says; `tenant`
 * adds to its file (gift certificates, say).
 */
export async function startPaymentsWorld(
  prefix: string,
  payment: Record<string, unknown>,
  settings: Record<string, unknown> = {},
  tenant: Record<string, unknown> = {},
): Promise<PaymentsWorld> {
  const answered: Answered[] = [];
  let current: PaymentProvider | undefined;
  let offset = 0;
  let handlers: ReturnType<typeof createAllHandlers> | undefined;
  // The bridge: the stand-in's POST as an API Gateway event, answered by the payments function.
  const bridge: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const result = await postWebhook(handlers as NonNullable<typeof handlers>, body, {
        'stripe-signature': String(request.headers['stripe-signature'] ?? ''),
      });
      answered.push({ status: result.status, outcome: result.json?.outcome, type: JSON.parse(body).type });
      response.statusCode = result.status;
      response.end(result.text);
    });
  });
  await new Promise<void>((resolve) => bridge.listen(0, '127.0.0.1', resolve));
  const standIn = await startStripeStandIn({
    webhookUrls: [`http://127.0.0.1:${(bridge.address() as AddressInfo).port}/`],
    retry: { baseMs: 20, maxMs: 200, maxAttempts: 6, timeoutMs: 5000 },
  });
  const provider = stripeProvider({
    secretKey: standIn.secretKey,
    webhookSecret: standIn.webhookSecret,
    apiBase: standIn.url,
    timeoutMs: 5000,
    maxNetworkRetries: 0,
  });
  current = provider;
  const table = await loadTenant(
    prefix,
    makeTenantJson({
      ...tenant,
      settings: { booking_code_prefix: 'PAY', payment, ...settings },
      items: [
        makeItem({ item_id: 1, stock: 500 }),
        makeItem({ item_id: 2, sku: 'solo', name: 'Solo', stock: 1 }),
      ],
    }),
    { deps: { payments: async () => current }, clock: () => Date.now() + offset },
  );
  handlers = table.handlers;
  afterAll(async () => {
    await standIn.stop();
    bridge.closeAllConnections();
    await new Promise<void>((resolve) => bridge.close(() => resolve()));
  });
  return {
    db: table.db,
    handlers: table.handlers,
    standIn,
    provider,
    answered,
    swap: (next) => {
      current = next;
    },
    shift: (ms) => {
      offset += ms;
    },
  };
}

/**
 * POSTs a body to the webhook route as API Gateway would (base64 when asked), with its headers. Not through
 * `invoke`: the route is Stripe's, not a client's, and is not in the OpenAPI document; its answer is checked
 * against its own schema, or the error envelope's.
 */
export async function postWebhook(
  handlers: ReturnType<typeof createAllHandlers>,
  body: string,
  headers: Record<string, string>,
  options: { base64?: boolean } = {},
): Promise<TestResponse> {
  const event = makeEvent({
    method: 'POST',
    path: 'payment/stripe/webhook',
    body,
    contentType: 'application/json; charset=utf-8',
    headers,
    ...(options.base64 ? { base64: true } : {}),
  });
  const result = await handlers.payments(event, testContext());
  const status = result.statusCode ?? 200;
  const json = JSON.parse(result.body ?? 'null');
  (status >= 400 ? errorEnvelopeSchema : (docsOf(stripeWebhookRoute.name).response as z.ZodType)).parse(json);
  return {
    status,
    headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
    cookies: result.cookies ?? [],
    json,
    text: result.body ?? '',
  };
}

/** A `Stripe-Signature` header for a body, signed with `secret` at `timestamp` (Unix seconds), as Stripe signs. */
export const signed = (body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string =>
  `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

/** A customer's create of `qty` of an item, with SLIPs held by the create itself. */
export async function book(
  world: PaymentsWorld,
  options: { itemId?: number; date?: string; qty?: number; fields?: Record<string, string> } = {},
) {
  const client = sessionClient(world.handlers);
  const slip = await client.slip(
    options.itemId ?? 1,
    `date=${options.date ?? day()}&param[qty]=${options.qty ?? 1}`,
  );
  const sessionId = sessionOf(await client.add([slip])).id as string;
  const response = await createFor(world, sessionId, options.fields);
  return { sessionId, response, created: response.json.booking };
}

/** `booking/create` of a session by the customer who made it (the same form each time). */
export const createFor = (world: PaymentsWorld, sessionId: string, fields: Record<string, string> = {}) =>
  invoke(world.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      session_id: sessionId,
      'form[customer_name]': 'Ada Lovelace',
      'form[customer_email]': 'ada@example.com',
      ...fields,
    }),
    contentType: 'application/x-www-form-urlencoded',
  });

/** The booking, its attempts and its events as stored. */
export async function stored(world: PaymentsWorld, bookingId: number) {
  return findBooking(world.db, String(bookingId), undefined);
}

/** Waits until every delivery the stand-in made so far has been answered (or failed for good). */
export async function settled(world: PaymentsWorld): Promise<void> {
  for (let tries = 0; tries < 400; tries += 1) {
    const busy = world.standIn.controls.deliveries().some((one) => one.state === 'pending');
    if (!busy) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the stand-in still has deliveries pending');
}

/** The checkout id of a payment URL the create answered (`…/c/pay/<id>`). */
export const checkoutIdOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/**
 * Runs the sweeper's lapse at `now` (default: a day from now, past every deadline), with the sweep's limits
 * when given: `endBy` on the wall clock, and the most one provider call may take.
 */
export async function lapse(
  world: PaymentsWorld,
  options: { now?: number; provider?: PaymentProvider | null; endBy?: number; providerCallMs?: number } = {},
) {
  const config = await getConfig(world.db);
  expect(config).toBeDefined();
  return lapseUnpaidPayments(world.db, {
    config: config as NonNullable<typeof config>,
    now: options.now ?? Date.now() + 86_400_000,
    provider: options.provider === null ? undefined : (options.provider ?? world.provider),
    ...(options.endBy !== undefined ? { endBy: options.endBy } : {}),
    ...(options.providerCallMs !== undefined ? { providerCallMs: options.providerCallMs } : {}),
  });
}

export const usedOf = (world: PaymentsWorld, itemId: number, date: string) =>
  readUsed(world.db, itemId, date);
