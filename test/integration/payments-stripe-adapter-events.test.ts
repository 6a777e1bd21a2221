import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type PaymentEvent,
  PaymentProviderError,
  type StartCheckoutInput,
  stripeProvider,
} from '#lib/payments/index.ts';
import { startStripeWorld, waitFor } from '#test/support/stripe-world.ts';

// The Stripe adapter's webhooks and failures against the local stand-in: events the stand-in signs and
// posts are read through `readEvent` from the exact bytes (as sent, and as API Gateway's base64 gives them),
// a tampered body or a stale or future timestamp is refused, and Stripe answering 500 or not at all (the
// stand-in's fault controls) becomes `unavailable` within the adapter's timeout.

const { standIn, receiver, stripe } = await startStripeWorld();
const hooks = receiver as NonNullable<typeof receiver>;
const options = {
  secretKey: standIn.secretKey,
  webhookSecret: standIn.webhookSecret,
  apiBase: standIn.url,
  timeoutMs: 5000,
  maxNetworkRetries: 1,
};
const provider = stripeProvider(options);

afterEach(() => standIn.controls.clearApiFaults());

const run = randomUUID().slice(0, 8);
let serial = 0;
const checkoutInput = (overrides: Partial<StartCheckoutInput> = {}): StartCheckoutInput => {
  serial += 1;
  return {
    paymentId: `pay_${run}_${serial}`,
    bookingId: String(200 + serial),
    bookingCode: `LOON-${run}${serial}`,
    tenantId: 'demo',
    amount: 8_000,
    currency: 'CAD',
    description: 'Kayak tour, 2 seats',
    expiresAt: standIn.controls.now() + 3600,
    capture: 'automatic',
    returnUrl: 'https://lodge.example/book/LOON',
    cancelUrl: 'https://lodge.example/book/LOON',
    ...overrides,
  };
};

const failure = async (call: Promise<unknown>): Promise<PaymentProviderError> => {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PaymentProviderError);
  return error as PaymentProviderError;
};

/** The signature header's timestamp. */
const signedAt = (header: string) => Number(/t=(\d+)/.exec(header)?.[1]);

describe('webhook events', () => {
  it('reads each of the seven event types from the exact bytes, as sent and as base64-decoded bytes', async () => {
    hooks.arrivals.length = 0;
    const paid = checkoutInput();
    const auto = await provider.startCheckout(paid);
    standIn.controls.pay(auto.checkoutId);
    const manual = checkoutInput({ capture: 'manual' });
    const held = await provider.startCheckout(manual);
    standIn.controls.decline(held.checkoutId);
    standIn.controls.pay(held.checkoutId);
    const heldPayment = (await provider.readCheckout(held.checkoutId)).providerPaymentId as string;
    await provider.cancel(heldPayment, { paymentId: manual.paymentId });
    const autoPayment = (await provider.readCheckout(auto.checkoutId)).providerPaymentId as string;
    await provider.refund(autoPayment, {
      paymentId: paid.paymentId,
      refundId: `${paid.paymentId}_r`,
      amount: 1_000,
    });
    const lapsed = checkoutInput();
    const open = await provider.startCheckout(lapsed);
    await provider.expireCheckout(open.checkoutId, { paymentId: lapsed.paymentId });
    await waitFor(() => hooks.arrivals.length >= 8, 'eight deliveries');

    const events: PaymentEvent[] = [];
    for (const arrival of hooks.arrivals) {
      const header = arrival.headers['stripe-signature'] ?? '';
      const event = await provider.readEvent(arrival.body, header);
      // API Gateway may hand the body base64-encoded: the decoded bytes verify the same.
      const bytes = new Uint8Array(
        Buffer.from(Buffer.from(arrival.body, 'utf8').toString('base64'), 'base64'),
      );
      expect(await provider.readEvent(bytes, header)).toEqual(event);
      expect(event.eventId).toBe(arrival.event.id);
      events.push(event);
    }
    const seen = (type: string) => events.filter((event) => event.type === type);
    expect(new Set(events.map((event) => event.type))).toEqual(
      new Set([
        'payment.succeeded',
        'checkout.completed',
        'payment.failed',
        'payment.authorised',
        'payment.cancelled',
        'payment.refunded',
        'checkout.expired',
      ]),
    );
    expect(
      seen('checkout.completed')
        .map((e) => [e.object, e.objectId, e.metadata.paymentId])
        .sort(),
    ).toEqual(
      [
        ['checkout', auto.checkoutId, paid.paymentId],
        ['checkout', held.checkoutId, manual.paymentId],
      ].sort(),
    );
    expect(seen('checkout.expired')).toEqual([
      expect.objectContaining({
        object: 'checkout',
        objectId: open.checkoutId,
        metadata: expect.objectContaining({ bookingId: lapsed.bookingId }),
      }),
    ]);
    expect(seen('payment.failed').map((e) => e.objectId)).toEqual([heldPayment]);
    expect(seen('payment.authorised').map((e) => [e.objectId, e.metadata.paymentId])).toEqual([
      [heldPayment, manual.paymentId],
    ]);
    expect(seen('payment.cancelled').map((e) => e.objectId)).toEqual([heldPayment]);
    // A refund event names the payment to read back, whatever its charge carries.
    expect(seen('payment.refunded').map((e) => [e.object, e.objectId])).toEqual([['payment', autoPayment]]);
    for (const event of events) expect(Number.isInteger(event.created)).toBe(true);
  });

  it('refuses a tampered body, another secret, a stale or a future timestamp, and a missing signature', async () => {
    hooks.arrivals.length = 0;
    const input = checkoutInput();
    const { checkoutId } = await provider.startCheckout(input);
    standIn.controls.pay(checkoutId);
    const arrival = await waitFor(() => hooks.arrivals[0], 'a delivery');
    const header = arrival.headers['stripe-signature'] ?? '';
    const t = signedAt(header);
    expect(Number.isInteger(t)).toBe(true);
    const invalid = async (body: string | Uint8Array, signature: string, now?: number, reader = provider) => {
      const error = await failure(reader.readEvent(body, signature, now));
      expect(error.code).toBe('invalid_signature');
      // The body (a guest's email, amounts) never rides along into a log.
      expect(error.cause).toBeUndefined();
      expect(JSON.stringify(error)).not.toContain(input.paymentId);
    };
    await invalid(arrival.body.replace('"livemode": false', '"livemode": true'), header);
    await invalid(`${arrival.body} `, header);
    await invalid(
      arrival.body,
      header,
      undefined,
      stripeProvider({ ...options, webhookSecret: 'whsec_other' }),
    );
    await invalid(arrival.body, header, t + 301);
    await invalid(arrival.body, header, t - 301);
    await invalid(arrival.body, '');
    await invalid(arrival.body, header.replace(/v1=[0-9a-f]+/, 'v1=00'));
    // Within 300 seconds either way, the same bytes verify.
    expect((await provider.readEvent(arrival.body, header, t + 300)).eventId).toBe(arrival.event.id);
    expect((await provider.readEvent(arrival.body, header, t - 300)).eventId).toBe(arrival.event.id);
  });
});

describe('failures', () => {
  it('answers unavailable when Stripe answers 500 to every attempt, and retryable', async () => {
    const { checkoutId } = await provider.startCheckout(checkoutInput());
    standIn.controls.failApi({ mode: 'error', when: 'before', count: 2 });
    const error = await failure(provider.readCheckout(checkoutId));
    expect([error.code, error.retryable]).toEqual(['unavailable', true]);
    expect(error.message).not.toMatch(/unknown error/i);
    expect((await provider.readCheckout(checkoutId)).state).toBe('open');
  });

  it('retries a 500 with the same key and answers when the retry gets through', async () => {
    const input = checkoutInput();
    standIn.controls.failApi({ mode: 'error', when: 'before', count: 1 });
    const checkout = await provider.startCheckout(input);
    expect(await provider.startCheckout(input)).toEqual(checkout);
  });

  it('answers unavailable within its timeout when Stripe does not answer', async () => {
    const quick = stripeProvider({ ...options, timeoutMs: 300, maxNetworkRetries: 1 });
    const { checkoutId } = await quick.startCheckout(checkoutInput());
    standIn.controls.failApi({ mode: 'hang', when: 'before', count: 2 });
    const started = Date.now();
    const error = await failure(quick.readCheckout(checkoutId));
    // Two attempts of 300 ms and one backoff of at most a second; the rest is a generous margin.
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(error.code).toBe('unavailable');
  });

  it('answers a capture that Stripe made but answered 500 to (and replays 500 to its key) as captured', async () => {
    const input = checkoutInput({ capture: 'manual' });
    const { checkoutId } = await provider.startCheckout(input);
    standIn.controls.pay(checkoutId);
    const paymentId = (await provider.readCheckout(checkoutId)).providerPaymentId as string;
    standIn.controls.failApi({ mode: 'error', when: 'after', count: 1 });
    const captured = await provider.capture(paymentId, { paymentId: input.paymentId });
    expect(captured).toMatchObject({ state: 'captured', captured: 8_000 });
    expect(await provider.capture(paymentId, { paymentId: input.paymentId })).toEqual(captured);
  });

  it('answers a refund an earlier call made (Stripe answered it 500, and replays 500 to its key) as made', async () => {
    const input = checkoutInput();
    const { checkoutId } = await provider.startCheckout(input);
    standIn.controls.pay(checkoutId);
    const paymentId = (await provider.readCheckout(checkoutId)).providerPaymentId as string;
    const request = { paymentId: input.paymentId, refundId: `${input.paymentId}_r`, amount: 3_000 };
    // What a Lambda sent before it gave up: the refund was made, its answer (kept under the key) a 500.
    standIn.controls.failApi({ mode: 'error', when: 'after', count: 1 });
    const earlier = await stripe.refunds
      .create(
        {
          payment_intent: paymentId,
          amount: 3_000,
          metadata: { payment_id: input.paymentId, refund_id: request.refundId },
        },
        { idempotencyKey: `${request.refundId}:refund` },
      )
      .then(
        () => 'answered',
        (error: { statusCode?: number }) => error.statusCode,
      );
    expect(earlier).toBe(500);
    const refund = await provider.refund(paymentId, request);
    expect(refund).toMatchObject({
      amount: 3_000,
      state: 'succeeded',
      metadata: { refundId: request.refundId },
    });
    expect(await provider.refund(paymentId, request)).toEqual(refund);
    expect((await stripe.refunds.list({ payment_intent: paymentId })).data).toHaveLength(1);
    expect((await provider.readPayment(paymentId)).refunded).toBe(3_000);
  });

  it('answers misconfigured for a wrong key, never quoting the key or Stripe message', async () => {
    const wrong = stripeProvider({ ...options, secretKey: 'sk_test_wrong_key_1234' });
    const error = await failure(wrong.readPayment('pi_any'));
    expect([error.code, error.retryable]).toEqual(['misconfigured', false]);
    expect(error.providerRequestId).toMatch(/^req_/);
    for (const text of [error.message, JSON.stringify(error)]) {
      expect(text).not.toContain('1234');
      expect(text).not.toMatch(/Invalid API Key/i);
    }
  });
});
