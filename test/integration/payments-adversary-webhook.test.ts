import { describe, expect, it } from 'vitest';
import {
  book,
  checkoutIdOf,
  day,
  lapse,
  postWebhook,
  settled,
  signed,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// An adversarial pass on issue 43's webhook route (payment/stripe/webhook): what a flaky or hostile provider,
// or anyone holding a signed body, can send. Each event is signed with the endpoint's secret, as only the
// provider could, so what is probed is what the route does with a verified body: objects it cannot read back,
// bodies that are not events, a provider that hangs between the two calls of one event.

const CALL_MS = 400;
const world = await startPaymentsWorld('pay-adv-hook', { take: 'full' }, {}, {}, { providerCallMs: CALL_MS });
const stripe = sdkFor(world.standIn);
const secret = world.standIn.webhookSecret;

/** An event about `object`, signed with the endpoint's secret. */
const event = (
  type: string,
  object: Record<string, unknown>,
  id = `evt_adv_${Math.random().toString(36).slice(2)}`,
) =>
  JSON.stringify({
    id,
    object: 'event',
    type,
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });

const post = (body: string) =>
  postWebhook(world.handlers, body, { 'stripe-signature': signed(body, secret) });

/**
 * Posts an event while the provider swapped in hangs (put back after): 503 busy with Retry-After 30; then again
 * with the provider answering: 200. The stand-in's held deliveries then go out, and all is settled.
 */
async function busyThenApplied(body: string): Promise<void> {
  const hung = await post(body).finally(() => world.swap(world.provider));
  expect(hung.status, JSON.stringify(hung.json)).toBe(503);
  expect(hung.headers['retry-after']).toBe('30');
  const again = await post(body);
  expect(again.status, JSON.stringify(again.json)).toBe(200);
  world.standIn.controls.setWebhookFaults({});
  world.standIn.controls.releaseWebhooks();
  await settled(world);
}

/** The stand-in's events of one object, as it sent them. */
const eventsOf = async (objectId: string) =>
  (await stripe.events.list({ limit: 100 }).autoPagingToArray({ limit: 1000 })).filter(
    (one) => (one.data.object as { id?: string }).id === objectId,
  );

describe('a verified event whose object cannot be read back', () => {
  it('a refund of a charge made without a PaymentIntent (another integration on the account): 200 ignored', async () => {
    // One Stripe account may serve other software too: its endpoint receives every charge.refunded, and a charge
    // made by the Charges API names no PaymentIntent. Before, the route answered 500 to it on every delivery.
    const body = event('charge.refunded', {
      id: 'ch_legacy_1',
      object: 'charge',
      amount: 2000,
      amount_refunded: 2000,
      currency: 'cad',
      payment_intent: null,
      metadata: {},
    });
    const first = await post(body);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ received: true, outcome: 'ignored' });
    expect((await post(body)).json).toEqual({ received: true, outcome: 'duplicate' });
  });

  it('a payment the provider does not have: 200 ignored, not a 500 retried for three days', async () => {
    const body = event('payment_intent.succeeded', {
      id: 'pi_not_at_the_provider',
      object: 'payment_intent',
      metadata: { tenant_id: 'pay-adv-hook', booking_id: '1', payment_id: 'pay_x' },
    });
    const first = await post(body);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ received: true, outcome: 'ignored' });
  });
});

describe('a verified body that is not an event', () => {
  it.each([
    ['an empty object', '{}'],
    ['an array', '[]'],
    ['null', 'null'],
    [
      'an event without data',
      JSON.stringify({
        id: 'evt_adv_nodata',
        object: 'event',
        type: 'payment_intent.succeeded',
        created: Math.floor(Date.now() / 1000),
      }),
    ],
  ])('%s: 400 validation_error, not a 500', async (_name, body) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.json.request.error.id).toBe('validation_error');
  });
});

describe('a large event', () => {
  it('over the API’s 64 KiB body limit is still read (a provider’s body is not a client’s form)', async () => {
    const { created } = await book(world);
    const checkoutId = checkoutIdOf(created.payment_url);
    world.standIn.controls.setWebhookFaults({ hold: true });
    world.standIn.controls.pay(checkoutId);
    const [sent] = (await eventsOf(checkoutId)).filter((one) => one.type === 'checkout.session.completed');
    const body = JSON.stringify({ ...sent, padding: 'x'.repeat(100 * 1024) });
    const response = await post(body);
    world.standIn.controls.setWebhookFaults({});
    world.standIn.controls.releaseWebhooks();
    await settled(world);
    expect(response.status).toBe(200);
    expect(response.json.outcome).toBe('applied');
    expect((await stored(world, created.booking_id)).booking).toMatchObject({
      status_id: 'PAID',
      paid_total: 4000,
    });
  });
});

describe('a provider that hangs between the two calls of one event', () => {
  it('a late payment refunded as the provider hangs: 503, given back once at the next delivery', async () => {
    // The one solo kayak: booked, lapsed with the provider out of reach (its checkout left open), then taken by
    // a rival, so the guest's late payment must go back: the refund is the event's second call.
    const date = day(40);
    const { created } = await book(world, { itemId: 2, date });
    const checkoutId = checkoutIdOf(created.payment_url);
    expect(await lapse(world, { provider: null })).toBeGreaterThanOrEqual(1);
    const rival = await book(world, {
      itemId: 2,
      date,
      fields: { 'form[customer_email]': 'rival@example.com' },
    });
    expect(rival.response.status).toBe(200);
    world.standIn.controls.setWebhookFaults({ hold: true });
    world.standIn.controls.pay(checkoutId);
    const [sent] = (await eventsOf(checkoutId)).filter((one) => one.type === 'checkout.session.completed');
    const body = JSON.stringify(sent);
    // The read back answers; the refund, the event's second call, is made at the provider but its answer never
    // comes.
    const calls: string[] = [];
    world.swap(
      new Proxy(world.provider, {
        get(target, key) {
          const value = Reflect.get(target, key, target);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(String(key));
            const answer = value.apply(target, args);
            // Made at the provider, its answer lost: the call hangs until the route's limit cuts it.
            return key === 'refund' ? answer.then(() => new Promise(() => {})) : answer;
          };
        },
      }),
    );
    await busyThenApplied(body);
    expect(calls).toEqual(expect.arrayContaining(['readCheckout', 'refund']));
    const record = await stored(world, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'VOID', paid_total: 0 });
    const intent = record.attempts?.[0]?.provider_payment_id as string;
    // Made once: the next delivery found it made (its key, and its refund id in the payment's refunds).
    const refunds = await stripe.refunds.list({ payment_intent: intent });
    expect(refunds.data.map((one) => one.amount)).toEqual([4000]);
    expect(await world.provider.readPayment(intent)).toMatchObject({ captured: 4000, refunded: 4000 });
  });
});

describe('a provider that hangs as the webhook opens a checkout in place of one closed early', () => {
  it('503, and the next delivery opens it: the guest is not left without a way to pay', async () => {
    const { created } = await book(world, { date: day(60) });
    const closed = checkoutIdOf(created.payment_url);
    world.standIn.controls.setWebhookFaults({ hold: true });
    await stripe.checkout.sessions.expire(closed);
    const [sent] = (await eventsOf(closed)).filter((one) => one.type === 'checkout.session.expired');
    const body = JSON.stringify(sent);
    world.swap(
      new Proxy(world.provider, {
        get(target, key) {
          const value = Reflect.get(target, key, target);
          if (typeof value !== 'function') return value;
          // The new checkout's request never answers.
          return key === 'startCheckout' ? () => new Promise(() => {}) : value.bind(target);
        },
      }),
    );
    await busyThenApplied(body);
    const record = await stored(world, created.booking_id);
    const fresh = record.attempts?.find((one) => one.payment_id === record.booking.payment?.payment_id);
    expect(record.attempts?.find((one) => one.checkout_id === closed)?.status).toBe('cancelled');
    expect(fresh).toMatchObject({ status: 'pending', amount: 4000 });
    expect(fresh?.checkout_url).toMatch(/\/c\/pay\/cs_/);
  });
});
