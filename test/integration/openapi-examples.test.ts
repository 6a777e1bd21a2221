import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { type StripeStandIn, startStripeStandIn } from '#infra/local/stripe/index.ts';
import { putAttemptAction } from '#lib/bookings/payment-records.ts';
import { rotateFeedToken } from '#lib/channels/feed-tokens.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { transact } from '#lib/kernel/storage/transact.ts';
import { type PaymentProvider, stripeProvider } from '#lib/payments/index.ts';
import { channelFeed, fakeChannels } from '#test/support/channel-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { formBody, invoke, staffBasic, type TestResponse } from '#test/support/events.ts';
import { demoTenantJson, makeTenant } from '#test/support/tenant.ts';

// Issue 41: every operation of the served OpenAPI document, run with its own examples against the demo
// tenant (handlers in-process), must answer 2xx. What an operation needs beyond its examples (a cart, a
// booking, a token, a channel or webhook endpoint of the tenant file) is read from the document's
// `x-needs` and supplied the way its description says; nothing else is made up here.

interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  example?: unknown;
  schema?: { type?: string };
}
interface Operation {
  operationId: string;
  description?: string;
  security: Record<string, unknown>[];
  parameters: Parameter[];
  requestBody?: { content: Record<string, { example?: Record<string, unknown> }> };
  'x-needs'?: string[];
}
const document = JSON.parse(readFileSync('functions/meta/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);
const operationAt = (method: string, path: string): Operation => {
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`the document has no ${method} ${path}`);
  return operation;
};
const exampleOf = (operation: Operation, name: string): unknown =>
  operation.parameters.find((parameter) => parameter.name === name)?.example;

// The examples' dates are fixed (the document is generated and checked in): the service runs a month
// before the first of them, as a guest booking them would.
const NOW = Date.parse('2027-06-05T16:00:00Z');
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
// The payment provider staff's capture acts on: the Stripe stand-in, through the real adapter.
let standIn: StripeStandIn;
let provider: PaymentProvider;

afterAll(async () => {
  await standIn?.stop();
});

beforeAll(async () => {
  standIn = await startStripeStandIn();
  provider = stripeProvider({
    secretKey: standIn.secretKey,
    webhookSecret: standIn.webhookSecret,
    apiBase: standIn.url,
    maxNetworkRetries: 0,
  });
  db = await createTestDb('openapi-examples');
  // The demo tenant as it is, with what the document says its channel and webhook routes need: a channel
  // and an endpoint of the tenant file, named as their examples name them.
  const channelId = exampleOf(operationAt('POST', '/channel/{channel_id}/sync'), 'channel_id');
  const webhookId = exampleOf(operationAt('POST', '/webhook/{webhook_id}/enable'), 'webhook_id');
  const itemId = Number(exampleOf(operationAt('GET', '/item/{item_id}'), 'item_id'));
  const feedUrl = 'https://www.airbnb.com/calendar/ical/41.ics';
  const channels = fakeChannels();
  channels.serve(feedUrl, { body: channelFeed([]) });
  await writeTenant(
    db,
    makeTenant({
      ...demoTenantJson(),
      // The demo's policy with a cancellation policy, as the guest's cancel needs (issue 44).
      policy: {
        ...(demoTenantJson().policy as object),
        cancellation: { refunds: [{ before: { days: 7 }, percent: 100 }] },
      },
      channels: [{ id: channelId, item_id: itemId, url: feedUrl, name: 'Airbnb' }],
      webhooks: [{ id: webhookId, url: 'https://hooks.example.com/in', events: ['booking.*'] }],
    }),
    NOW,
  );
  handlers = createAllHandlers({
    ...testDeps(db, { clock: () => NOW }),
    fetchFeed: channels.fetchFeed,
    payments: async () => provider,
  });
  staff = await staffBasic(db, { label: 'openapi examples', now: NOW });
});

/** A value as a query string or form body writes it: objects in brackets, lists as `name[]`. */
const encode = (name: string, value: unknown): [string, string][] =>
  Array.isArray(value)
    ? value.map((entry) => [name, String(entry)])
    : value !== null && typeof value === 'object'
      ? Object.entries(value).flatMap(([key, inner]) => encode(`${name}[${key}]`, inner))
      : [[name, String(value)]];
const toQuery = (pairs: [string, string][]): string =>
  formBody(
    Object.fromEntries(pairs.map(([name]) => [name, pairs.filter(([n]) => n === name).map(([, v]) => v)])),
  );

/** Runs an operation with its examples, plus what was supplied for its needs. */
async function run(
  call: { method: string; path: string; operation: Operation },
  supplied: { path?: Record<string, string>; params?: Record<string, unknown>; as?: 'customer' | 'staff' },
  encoding: 'form' | 'json' = 'form',
): Promise<TestResponse> {
  const { method, operation } = call;
  // What was supplied goes first: it stands in for an example that names nothing real (a booking code).
  let path = call.path.slice(1);
  for (const [name, value] of Object.entries(supplied.path ?? {})) path = path.replace(`{${name}}`, value);
  const query: [string, string][] = [];
  for (const parameter of operation.parameters) {
    if (!parameter.name || parameter.example === undefined) continue;
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, String(parameter.example));
    else if (parameter.in === 'query')
      query.push(...encode(parameter.name.replace(/\[\]$/, ''), parameter.example));
  }
  const media = encoding === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
  const body: Record<string, unknown> = {
    ...(operation.requestBody?.content[media]?.example ?? {}),
  };
  for (const [name, value] of Object.entries(supplied.params ?? {})) {
    if (method === 'POST') body[name] = value;
    else query.push(...encode(name, value));
  }
  const public_ = operation.security.some((requirement) => Object.keys(requirement).length === 0);
  const as = supplied.as ?? (public_ ? 'customer' : 'staff');
  const { group } = resolveGroup(method, `/api/3.0/${path}`);
  return invoke(handlers[group], {
    method,
    path,
    query: toQuery(query),
    headers: as === 'staff' ? { authorization: staff } : {},
    ...(method === 'POST'
      ? encoding === 'form'
        ? {
            body: toQuery(Object.entries(body).flatMap(([name, value]) => encode(name, value))),
            contentType: media,
          }
        : { body: JSON.stringify(body), contentType: media }
      : {}),
  });
}

const failure = (response: TestResponse): string =>
  `${response.status} ${JSON.stringify(response.json?.request?.error ?? response.json ?? response.text.slice(0, 80))}`;

/** The SLIP of the item's own example rated (GET item/{item_id}). */
async function rateSlip(): Promise<string> {
  const rated = await run(
    { method: 'GET', path: '/item/{item_id}', operation: operationAt('GET', '/item/{item_id}') },
    {},
  );
  const slip = rated.json?.item?.rate?.slip as string | undefined;
  if (!slip) throw new Error(`the item example gives no SLIP: ${failure(rated)}`);
  return slip;
}

/** A cart holding a line: the item's own example rated, its SLIP added (POST booking/session). */
async function makeCart(): Promise<string> {
  const slip = await rateSlip();
  const added = await run(
    { method: 'POST', path: '/booking/session', operation: operationAt('POST', '/booking/session') },
    { params: { slip: [slip] } },
  );
  if (added.status !== 200) throw new Error(`the cart was refused: ${failure(added)}`);
  return added.json.booking.session.id as string;
}

/** A booking made from a cart with booking/create's own example. */
async function makeBooking(): Promise<{ id: string; token: string }> {
  const created = await run(
    { method: 'POST', path: '/booking/create', operation: operationAt('POST', '/booking/create') },
    { params: { session_id: await makeCart() } },
  );
  if (created.status !== 200) throw new Error(`the create example was refused: ${failure(created)}`);
  return created.json.booking;
}

/** The payment `set_paid` records, as the description says: `update` with `status_id=PAID&set_paid=1`. */
async function paidAtDesk(code: string): Promise<string> {
  const paid = await invoke(handlers.bookings, {
    method: 'POST',
    path: `booking/${code}/update`,
    body: 'status_id=PAID&set_paid=1',
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization: staff },
  });
  expect(paid.status, failure(paid)).toBe(200);
  // The demo takes a deposit: its checkout's attempt is listed before the desk's payment.
  const pos = paid.json.booking.payments.find((payment: { provider: string }) => payment.provider === 'pos');
  return pos.id as string;
}

/**
 * An authorised payment of a booking: what a guest's checkout of a tenant capturing by hand leaves (the demo
 * tenant takes none), made at the stand-in and recorded on the booking as a create and its webhook would.
 */
async function authorised(code: string): Promise<string> {
  const record = await run(
    { method: 'GET', path: '/booking/{booking_id}', operation: operationAt('GET', '/booking/{booking_id}') },
    { path: { booking_id: code } },
  );
  const bookingId = record.json.booking.booking_id as number;
  const paymentId = `pay_examples${bookingId}`;
  const nowSeconds = Math.floor(NOW / 1000);
  const checkout = await provider.startCheckout({
    paymentId,
    bookingId: String(bookingId),
    bookingCode: code,
    tenantId: 'demo',
    amount: 5000,
    currency: 'CAD',
    description: 'Deposit',
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    capture: 'manual',
    returnUrl: 'https://example.com/back',
    cancelUrl: 'https://example.com/cancel',
  });
  standIn.controls.pay(checkout.checkoutId);
  const view = await provider.readCheckout(checkout.checkoutId);
  await transact(db, [
    putAttemptAction(db, {
      payment_id: paymentId,
      booking_id: bookingId,
      provider: provider.name,
      kind: 'deposit',
      amount: 5000,
      currency: 'CAD',
      capture: 'manual',
      status: 'authorised',
      version: 2,
      deadline: nowSeconds + 3600,
      checkout_expires_at: nowSeconds + 3600,
      checkout_id: checkout.checkoutId,
      provider_payment_id: view.providerPaymentId as string,
      captured: 0,
      refunded: 0,
      applied: 0,
      return_url: 'https://example.com/back',
      cancel_url: 'https://example.com/cancel',
      created: nowSeconds,
      updated: nowSeconds,
    }),
  ]);
  return paymentId;
}

/** Ends a cart, letting its holds go. */
async function endCart(id: string): Promise<void> {
  const ended = await invoke(handlers.session, {
    method: 'POST',
    path: 'booking/session/end',
    body: `session_id=${id}`,
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(ended.status, failure(ended)).toBe(200);
}

/** Lets a booking's stock go again, so the examples' dates never run out (the demo cabin has 4). */
async function voidBooking(id: string): Promise<void> {
  const voided = await invoke(handlers.bookings, {
    method: 'POST',
    path: `booking/${id}/update`,
    body: 'status_id=VOID',
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization: staff },
  });
  expect(voided.status, failure(voided)).toBe(200);
}

type Supplied = Parameters<typeof run>[1] & { path: Record<string, string>; params: Record<string, unknown> };

/** What an operation's `x-needs` asks for, made as its description says; bookings made go into `made`. */
async function supply(operation: Operation, made: string[]): Promise<Supplied> {
  const supplied: Supplied = { path: {}, params: {} };
  for (const need of operation['x-needs'] ?? []) {
    if (need === 'slip') supplied.params.slip = [await rateSlip()];
    else if (need === 'cart') supplied.params.session_id = await makeCart();
    else if (need === 'booking' || need === 'booking-token' || need === 'customer') {
      const booking = await makeBooking();
      made.push(booking.id);
      if (need === 'customer') {
        const record = await run(
          {
            method: 'GET',
            path: '/booking/{booking_id}',
            operation: operationAt('GET', '/booking/{booking_id}'),
          },
          { path: { booking_id: booking.id } },
        );
        supplied.path.customer_id = String(record.json.booking?.customer_id);
      } else supplied.path.booking_id = booking.id;
      if (need === 'booking-token') {
        supplied.params.token = booking.token;
        supplied.as = 'customer';
      }
    } else if (need === 'guest-token') {
      const booking = await makeBooking();
      made.push(booking.id);
      supplied.path.booking_id = booking.id;
      supplied.params.token = booking.token;
      supplied.as = 'customer';
    } else if (need === 'cancel-quote') {
      const quote = await run(
        {
          method: 'GET',
          path: '/booking/{booking_id}/manage/cancel',
          operation: operationAt('GET', '/booking/{booking_id}/manage/cancel'),
        },
        { path: supplied.path, params: { token: supplied.params.token }, as: 'customer' },
      );
      expect(quote.status, failure(quote)).toBe(200);
      supplied.params.quote = quote.json.cancellation.quote;
    } else if (need === 'change-dates') {
      // The guest's booking paid (the demo asks a deposit first); the examples' dates and party are the change.
      await paidAtDesk(supplied.path.booking_id as string);
    } else if (need === 'change-quote') {
      const quote = await run(
        {
          method: 'GET',
          path: '/booking/{booking_id}/manage/change',
          operation: operationAt('GET', '/booking/{booking_id}/manage/change'),
        },
        { path: supplied.path, params: { token: supplied.params.token }, as: 'customer' },
      );
      expect(quote.status, failure(quote)).toBe(200);
      supplied.params.quote = quote.json.change.quote;
    } else if (need === 'payment' || need === 'payment-authorised') {
      const booking = await makeBooking();
      made.push(booking.id);
      supplied.path.booking_id = booking.id;
      supplied.path.payment_id =
        need === 'payment' ? await paidAtDesk(booking.id) : await authorised(booking.id);
    } else if (need === 'feed-token') {
      const itemId = exampleOf(operation, 'item_id');
      supplied.params.token = await rotateFeedToken(db, {
        scope: itemId === undefined ? { kind: 'bookings' } : { kind: 'item', itemId: Number(itemId) },
        now: NOW,
      });
    } else if (need !== 'channel' && need !== 'webhook' && need !== 'cancellation-policy')
      throw new Error(`unknown need ${need}`);
  }
  return supplied;
}

describe("the OpenAPI document's examples against the demo tenant", () => {
  it.each(operations.map((entry) => [`${entry.method} ${entry.path}`, entry] as const))(
    '%s runs as documented',
    async (_, entry) => {
      const made: string[] = [];
      try {
        // A POST runs with each body the document describes, each with needs of its own (a cart books once).
        for (const encoding of entry.method === 'POST' ? (['form', 'json'] as const) : (['form'] as const)) {
          const response = await run(entry, await supply(entry.operation, made), encoding);
          if (entry.path === '/booking/create' && response.status === 200)
            made.push(response.json.booking.id);
          // A cart a SLIP was added to lets its hold go again, as booked ones are voided.
          const cart = entry.path === '/booking/session' ? response.json?.booking?.session : undefined;
          if (cart?.id && Object.keys(cart.item ?? {}).length) await endCart(cart.id as string);
          expect(
            response.status,
            `${entry.method} ${entry.path} (${encoding}): ${failure(response)}`,
          ).toBeLessThan(300);
        }
      } finally {
        for (const id of made) await voidBooking(id);
      }
    },
  );

  it('says in words what each operation needs beyond its examples', () => {
    const words: Record<string, RegExp> = {
      slip: /slip\[\]/,
      cart: /session_id/,
      booking: /booking\/create/,
      'booking-token': /token/,
      'guest-token': /token/,
      'cancellation-policy': /policy\.cancellation/,
      'cancel-quote': /quote/,
      'change-dates': /start_date/,
      'change-quote': /change\.quote/,
      payment: /set_paid=1/,
      'payment-authorised': /authorised/,
      customer: /customer/,
      'feed-token': /npm run channels -- token/,
      channel: /`channels`/,
      webhook: /`webhooks`/,
    };
    const unsaid = operations.flatMap(({ method, path, operation }) =>
      (operation['x-needs'] ?? [])
        .filter((need) => !words[need]?.test(operation.description ?? ''))
        .map((need) => `${method} ${path}: ${need}`),
    );
    expect(unsaid).toEqual([]);
    const needing = (name: string) =>
      operations
        .filter(({ operation }) => operation['x-needs']?.includes(name))
        .map(({ method, path }) => `${method} ${path}`);
    expect(needing('feed-token').sort()).toEqual(['GET /booking/ical', 'GET /item/{item_id}/ical']);
    expect(needing('channel').sort()).toEqual([
      'GET /channel/{channel_id}/sync',
      'POST /channel/{channel_id}/sync',
    ]);
  });
});
