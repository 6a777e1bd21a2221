import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type PaymentProvider,
  PaymentProviderError,
  type StartCheckoutInput,
  stripeProvider,
} from '#lib/payments/index.ts';
import { startStripeWorld } from '#test/support/stripe-world.ts';

// The payment port's Stripe adapter (lib/payments/) against the local stand-in for Stripe, reached by
// STRIPE_API_BASE as it would reach Stripe: every operation in the port's words, the idempotency keys
// derived from our records, and the already-done answered as state. The raw SDK (`stripe`, every answer
// checked against Stripe's OpenAPI document) looks at what the adapter left at "Stripe".
// Webhooks and faults: payments-stripe-adapter-events.test.ts.

const { standIn, stripe } = await startStripeWorld({ withReceiver: false });
const provider: PaymentProvider = stripeProvider({
  secretKey: standIn.secretKey,
  webhookSecret: standIn.webhookSecret,
  apiBase: standIn.url,
  timeoutMs: 5000,
  maxNetworkRetries: 1,
});

const run = randomUUID().slice(0, 8);
let serial = 0;

/** A checkout request for a fresh payment of a fresh booking, due in an hour of the stand-in's clock. */
const checkoutInput = (overrides: Partial<StartCheckoutInput> = {}): StartCheckoutInput => {
  serial += 1;
  return {
    paymentId: `pay_${run}_${serial}`,
    bookingId: String(100 + serial),
    bookingCode: `LOON-${run}${serial}`,
    tenantId: 'demo',
    amount: 12_500,
    currency: 'CAD',
    description: 'Deposit: Lakeside cabin, 2 nights',
    customerEmail: 'guest@example.com',
    expiresAt: standIn.controls.now() + 3600,
    capture: 'automatic',
    returnUrl: 'https://lodge.example/book/LOON?checkout={checkout_id}',
    cancelUrl: 'https://lodge.example/book/LOON',
    ...overrides,
  };
};

/** A checkout the guest has paid (or authorised, with manual capture). */
const paidCheckout = async (overrides: Partial<StartCheckoutInput> = {}) => {
  const input = checkoutInput(overrides);
  const checkout = await provider.startCheckout(input);
  standIn.controls.pay(checkout.checkoutId);
  const view = await provider.readCheckout(checkout.checkoutId);
  return { input, checkout, view, paymentId: view.providerPaymentId as string };
};

/** The port error a call fails with. */
const failure = async (call: Promise<unknown>): Promise<PaymentProviderError> => {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PaymentProviderError);
  return error as PaymentProviderError;
};

/** The idempotency keys of the events an object caused, from Stripe's own record of the requests. */
const keysOf = async (objectId: string) =>
  (await stripe.events.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }))
    .filter((event) => (event.data.object as { id?: string }).id === objectId)
    .map((event) => event.request?.idempotency_key ?? null);

describe('a checkout', () => {
  it('opens a hosted checkout carrying our ids, the deadline, the capture mode and the return addresses', async () => {
    const input = checkoutInput({ capture: 'manual' });
    const checkout = await provider.startCheckout(input);
    expect(checkout).toEqual({
      checkoutId: expect.stringMatching(/^cs_/),
      url: `${standIn.url}/c/pay/${checkout.checkoutId}`,
      expiresAt: input.expiresAt,
    });
    const session = await stripe.checkout.sessions.retrieve(checkout.checkoutId);
    expect(session).toMatchObject({
      mode: 'payment',
      amount_total: 12_500,
      currency: 'cad',
      expires_at: input.expiresAt,
      client_reference_id: input.bookingCode,
      customer_email: 'guest@example.com',
      metadata: {
        tenant_id: 'demo',
        booking_id: input.bookingId,
        booking_code: input.bookingCode,
        payment_id: input.paymentId,
      },
      success_url: 'https://lodge.example/book/LOON?checkout={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://lodge.example/book/LOON',
    });
    expect(await provider.readCheckout(checkout.checkoutId)).toEqual({
      checkoutId: checkout.checkoutId,
      state: 'open',
      paid: false,
      amount: 12_500,
      currency: 'CAD',
      expiresAt: input.expiresAt,
      metadata: {
        tenantId: 'demo',
        bookingId: input.bookingId,
        bookingCode: input.bookingCode,
        paymentId: input.paymentId,
      },
    });
    standIn.controls.pay(checkout.checkoutId);
    const view = await provider.readCheckout(checkout.checkoutId);
    expect(view).toMatchObject({ state: 'complete', paid: false });
    const intent = await stripe.paymentIntents.retrieve(view.providerPaymentId as string);
    expect(intent).toMatchObject({
      capture_method: 'manual',
      description: input.description,
      metadata: { tenant_id: 'demo', booking_id: input.bookingId, payment_id: input.paymentId },
    });
  });

  it('shows the lines it is given, and refuses lines that do not add up to the amount, sending nothing', async () => {
    const lines = [
      { name: 'Lakeside cabin', description: '2 nights', unitAmount: 5000, quantity: 2 },
      { name: 'Canoe', unitAmount: 2500, quantity: 1 },
    ];
    const { checkoutId, url } = await provider.startCheckout(checkoutInput({ lines }));
    expect((await stripe.checkout.sessions.retrieve(checkoutId)).amount_total).toBe(12_500);
    // The guest's page lists what is paid for, line by line.
    const page = await (await fetch(url)).text();
    expect(page.indexOf('Lakeside cabin')).toBeGreaterThan(-1);
    expect(page.indexOf('Canoe')).toBeGreaterThan(page.indexOf('Lakeside cabin'));
    const input = checkoutInput({ lines: [{ name: 'Canoe', unitAmount: 2500, quantity: 1 }] });
    const refused = await failure(provider.startCheckout(input));
    expect([refused.code, refused.reason]).toEqual(['refused', 'invalid_request']);
    expect(refused.message).toContain('The lines total 2500, not the amount 12500');
    const sessions = await stripe.checkout.sessions.list({ limit: 100 });
    expect(sessions.data.some((s) => s.metadata?.payment_id === input.paymentId)).toBe(false);
  });

  it('is made once per payment: the same payment id answers the same checkout, a new one a new checkout', async () => {
    const input = checkoutInput();
    const first = await provider.startCheckout(input);
    expect(await provider.startCheckout(input)).toEqual(first);
    const other = await provider.startCheckout({ ...input, paymentId: `${input.paymentId}_again` });
    expect(other.checkoutId).not.toBe(first.checkoutId);
    // The same payment id with other values is a bug of the caller, refused rather than answered wrongly.
    const reused = await failure(provider.startCheckout({ ...input, amount: 9_900 }));
    expect([reused.code, reused.reason]).toEqual(['refused', 'key_reused']);
  });

  it('is paid: the checkout reads complete and paid, with its payment captured', async () => {
    const { view, input } = await paidCheckout();
    expect(view).toMatchObject({ state: 'complete', paid: true, amount: 12_500, currency: 'CAD' });
    expect(view.payment).toEqual({
      providerPaymentId: view.providerPaymentId,
      state: 'captured',
      capture: 'automatic',
      amount: 12_500,
      capturable: 0,
      captured: 12_500,
      refunded: 0,
      currency: 'CAD',
      created: expect.any(Number),
      metadata: {
        tenantId: 'demo',
        bookingId: input.bookingId,
        bookingCode: input.bookingCode,
        paymentId: input.paymentId,
      },
    });
  });

  it('is expired on request (key <paymentId>:expire); expiring it again, or a paid one, answers its state', async () => {
    const input = checkoutInput();
    const { checkoutId } = await provider.startCheckout(input);
    const expired = await provider.expireCheckout(checkoutId, { paymentId: input.paymentId });
    expect(expired.state).toBe('expired');
    expect(await provider.expireCheckout(checkoutId, { paymentId: input.paymentId })).toEqual(expired);
    expect(await provider.expireCheckout(checkoutId, { paymentId: `${input.paymentId}_b` })).toEqual(expired);
    const { checkout, input: paidInput } = await paidCheckout();
    const complete = await provider.expireCheckout(checkout.checkoutId, { paymentId: paidInput.paymentId });
    expect([complete.state, complete.paid]).toEqual(['complete', true]);
    const events = await stripe.events.list({ type: 'checkout.session.expired', limit: 100 });
    const mine = events.data.filter((e) => (e.data.object as { id: string }).id === checkoutId);
    expect(mine.map((e) => e.request?.idempotency_key)).toEqual([`${input.paymentId}:expire`]);
  });

  it('answers not_found for an unknown checkout or payment', async () => {
    expect((await failure(provider.readCheckout('cs_test_missing'))).code).toBe('not_found');
    expect((await failure(provider.readPayment('pi_missing'))).code).toBe('not_found');
  });
});

describe('a payment', () => {
  it('reads a declined attempt as failed, with the decline reason, then captured once the guest pays', async () => {
    const input = checkoutInput();
    const { checkoutId } = await provider.startCheckout(input);
    standIn.controls.decline(checkoutId);
    const declined = await provider.readCheckout(checkoutId);
    expect(declined.state).toBe('open');
    expect(declined.payment).toMatchObject({ state: 'failed', failure: { code: 'generic_decline' } });
    standIn.controls.pay(checkoutId);
    const payment = await provider.readPayment(declined.providerPaymentId as string);
    expect(payment.state).toBe('captured');
    expect(payment.failure).toBeUndefined();
  });

  it('is captured once (key <paymentId>:capture): a retry, or a capture of a captured payment, answers its state', async () => {
    const { paymentId, input, view } = await paidCheckout({ capture: 'manual' });
    expect(view.payment).toMatchObject({ state: 'authorised', capturable: 12_500, captured: 0 });
    const captured = await provider.capture(paymentId, { paymentId: input.paymentId, amount: 10_000 });
    // The 2,500 a partial capture releases is not a refund.
    expect(captured).toMatchObject({
      state: 'captured',
      capturable: 0,
      captured: 10_000,
      refunded: 0,
      amount: 12_500,
    });
    expect(await provider.capture(paymentId, { paymentId: input.paymentId, amount: 10_000 })).toEqual(
      captured,
    );
    // Another amount under the same payment (its key replays another request), or a new key: still captured.
    expect(await provider.capture(paymentId, { paymentId: input.paymentId })).toEqual(captured);
    expect(await provider.capture(paymentId, { paymentId: `${input.paymentId}_b` })).toEqual(captured);
    expect(await keysOf(paymentId)).toContain(`${input.paymentId}:capture`);
    const succeeded = await stripe.events.list({ type: 'payment_intent.succeeded', limit: 100 });
    expect(succeeded.data.filter((e) => (e.data.object as { id: string }).id === paymentId)).toHaveLength(1);
    expect((await failure(provider.cancel(paymentId, { paymentId: input.paymentId }))).reason).toBe(
      'invalid_state',
    );
    const refund = { paymentId: input.paymentId, refundId: `${input.paymentId}_r`, amount: 4_000 };
    expect((await provider.refund(paymentId, refund)).amount).toBe(4_000);
    expect(await provider.readPayment(paymentId)).toMatchObject({ captured: 10_000, refunded: 4_000 });
  });

  it('refuses to capture more than is authorised, and changes nothing', async () => {
    const { paymentId, input } = await paidCheckout({ capture: 'manual' });
    const refused = await failure(
      provider.capture(paymentId, { paymentId: input.paymentId, amount: 12_501 }),
    );
    expect([refused.code, refused.reason]).toEqual(['refused', 'amount_too_large']);
    expect((await provider.readPayment(paymentId)).state).toBe('authorised');
  });

  it('is cancelled once (key <paymentId>:cancel): cancelling it again answers its state; capturing it is refused', async () => {
    const { paymentId, input } = await paidCheckout({ capture: 'manual' });
    const cancelled = await provider.cancel(paymentId, { paymentId: input.paymentId });
    expect(cancelled).toMatchObject({ state: 'cancelled', capturable: 0, captured: 0 });
    expect(await provider.cancel(paymentId, { paymentId: input.paymentId })).toEqual(cancelled);
    expect(await provider.cancel(paymentId, { paymentId: `${input.paymentId}_b` })).toEqual(cancelled);
    expect(await keysOf(paymentId)).toContain(`${input.paymentId}:cancel`);
    const refused = await failure(provider.capture(paymentId, { paymentId: input.paymentId }));
    expect([refused.code, refused.reason]).toEqual(['refused', 'invalid_state']);
  });
});

describe('a refund', () => {
  it('is made once per refund id (key <refundId>:refund), also when retried after the key has expired', async () => {
    const { paymentId, input } = await paidCheckout();
    const refund = await provider.refund(paymentId, {
      paymentId: input.paymentId,
      refundId: `${input.paymentId}_r1`,
      amount: 2_500,
    });
    expect(refund).toEqual({
      providerRefundId: expect.stringMatching(/^re_/),
      providerPaymentId: paymentId,
      amount: 2_500,
      currency: 'CAD',
      state: 'succeeded',
      metadata: { paymentId: input.paymentId, refundId: `${input.paymentId}_r1` },
    });
    const again = { paymentId: input.paymentId, refundId: `${input.paymentId}_r1`, amount: 2_500 };
    expect(await provider.refund(paymentId, again)).toEqual(refund);
    // Stripe forgets a key after 24 hours; the refund's own record still says it was made.
    standIn.controls.advanceClock(25 * 60 * 60);
    expect(await provider.refund(paymentId, again)).toEqual(refund);
    const refunds = await stripe.refunds.list({ payment_intent: paymentId });
    expect(refunds.data.map((r) => r.id)).toEqual([refund.providerRefundId]);
    expect(await keysOf(refunds.data[0]?.charge as string)).toEqual([`${input.paymentId}_r1:refund`]);
    expect(await provider.readPayment(paymentId)).toMatchObject({
      state: 'captured',
      captured: 12_500,
      refunded: 2_500,
    });
  });

  it('refuses more than is left, then nothing left, and changes nothing', async () => {
    const { paymentId, input } = await paidCheckout();
    const refund = (refundId: string, amount: number) =>
      provider.refund(paymentId, {
        paymentId: input.paymentId,
        refundId: `${input.paymentId}_${refundId}`,
        amount,
      });
    await refund('a', 10_000);
    const tooMuch = await failure(refund('b', 2_501));
    expect([tooMuch.code, tooMuch.reason]).toEqual(['refused', 'amount_too_large']);
    await refund('c', 2_500);
    const nothing = await failure(refund('d', 1));
    expect([nothing.code, nothing.reason]).toEqual(['refused', 'nothing_to_refund']);
    expect((await provider.readPayment(paymentId)).refunded).toBe(12_500);
    expect((await stripe.refunds.list({ payment_intent: paymentId })).data).toHaveLength(2);
  });

  it('refuses an amount that is not a whole positive number before asking Stripe', async () => {
    const { paymentId, input } = await paidCheckout();
    for (const amount of [0, -5, 12.5, Number.NaN]) {
      const refused = await failure(
        provider.refund(paymentId, { paymentId: input.paymentId, refundId: `x${amount}`, amount }),
      );
      expect([refused.code, refused.reason]).toEqual(['refused', 'invalid_request']);
    }
    expect((await stripe.refunds.list({ payment_intent: paymentId })).data).toEqual([]);
  });
});

describe('the payments list', () => {
  it('walks the payments newest first, down to createdAfter, at most limit of them, with our ids', async () => {
    const before = standIn.controls.now();
    standIn.controls.advanceClock(2);
    const first = await paidCheckout();
    standIn.controls.advanceClock(1);
    const second = await paidCheckout({ capture: 'manual' });
    const listed = [];
    for await (const payment of provider.listPayments({ createdAfter: before })) listed.push(payment);
    expect(listed.map((p) => [p.providerPaymentId, p.state, p.metadata.paymentId])).toEqual([
      [second.paymentId, 'authorised', second.input.paymentId],
      [first.paymentId, 'captured', first.input.paymentId],
    ]);
    const newest = [];
    for await (const payment of provider.listPayments({ limit: 1 })) newest.push(payment.providerPaymentId);
    expect(newest).toEqual([second.paymentId]);
  });
});
