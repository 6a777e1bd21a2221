import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { depositSession, startStripeWorld } from '#test/support/stripe-world.ts';

// The stand-in for Stripe (infra/local/stripe/) driven only through the official SDK, pointed at it by host,
// port and protocol as the payments adapter will be; every object and error it answers is validated against
// Stripe's OpenAPI document (test/support/stripe-schemas.ts).

const { standIn, stripe, control } = await startStripeWorld({ withReceiver: false });

const pay = async (id: string) => (await control(`checkout/${id}/pay`, {})).json;
const decline = async (id: string) => (await control(`checkout/${id}/decline`, {})).json;

/** An SDK answer without its (non-enumerable) `lastResponse`. */
const plain = (value: object) => JSON.parse(JSON.stringify(value));

/** The error the SDK throws for a call, so a test can assert on its type, status and code. */
const failure = async (call: Promise<unknown>): Promise<Stripe.errors.StripeError> => {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Stripe.errors.StripeError);
  return error as Stripe.errors.StripeError;
};

describe('Checkout Sessions', () => {
  it('creates a session in payment mode with what the adapter sends, and reads it back', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const session = await stripe.checkout.sessions.create(
      depositSession({
        expires_at: expiresAt,
        payment_intent_data: { capture_method: 'manual', metadata: { payment_id: 'pay_9' } },
      }),
    );
    expect(session).toMatchObject({
      object: 'checkout.session',
      livemode: false,
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: 12_500,
      currency: 'cad',
      expires_at: expiresAt,
      metadata: { tenant_id: 'demo', booking_id: '42', payment_id: 'pay_1' },
      customer_email: 'guest@example.com',
      client_reference_id: 'CFPP-290317',
      payment_intent: null,
    });
    expect(session.id).toMatch(/^cs_test_/);
    expect(Number.isInteger(session.created) && session.created < 10_000_000_000).toBe(true);
    expect(session.url).toBe(`${standIn.url}/c/pay/${session.id}`);
    expect(session.lastResponse.requestId).toMatch(/^req_/);
    expect(plain(await stripe.checkout.sessions.retrieve(session.id))).toEqual(plain(session));
  });

  it('takes upper-case currencies and stores them lower-case, amounts in minor units', async () => {
    const session = await stripe.checkout.sessions.create(
      depositSession({
        line_items: [
          {
            price_data: { currency: 'JPY', product_data: { name: 'Kayak' }, unit_amount: 2500 },
            quantity: 3,
          },
        ],
      }),
    );
    expect([session.currency, session.amount_total]).toEqual(['jpy', 7500]);
  });

  it('pays with the test card: the session completes, the PaymentIntent succeeds with its charge', async () => {
    const created = await stripe.checkout.sessions.create(depositSession());
    await pay(created.id);
    const session = await stripe.checkout.sessions.retrieve(created.id, {
      expand: ['payment_intent', 'payment_intent.latest_charge'],
    });
    expect(session).toMatchObject({ status: 'complete', payment_status: 'paid', url: null });
    const intent = session.payment_intent as Stripe.PaymentIntent;
    expect(intent).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 12_500,
      amount_received: 12_500,
      capture_method: 'automatic',
      metadata: { tenant_id: 'demo', payment_id: 'pay_1' },
    });
    expect(intent.id).toMatch(/^pi_/);
    const charge = intent.latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({ object: 'charge', paid: true, captured: true, amount_captured: 12_500 });
    expect(charge.id).toMatch(/^ch_/);
    const unexpanded = await stripe.paymentIntents.retrieve(intent.id);
    expect(unexpanded.latest_charge).toBe(charge.id);
    expect(
      (await stripe.paymentIntents.retrieve(intent.id, { expand: ['latest_charge'] })).latest_charge,
    ).toEqual(charge);
  });

  it('declines and leaves the session open for another try, which can then pay', async () => {
    const created = await stripe.checkout.sessions.create(depositSession());
    await decline(created.id);
    const declined = await stripe.checkout.sessions.retrieve(created.id, { expand: ['payment_intent'] });
    expect(declined.status).toBe('open');
    const intent = declined.payment_intent as Stripe.PaymentIntent;
    expect(intent.status).toBe('requires_payment_method');
    expect(intent.last_payment_error).toMatchObject({
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
    });
    await pay(created.id);
    const paid = await stripe.paymentIntents.retrieve(intent.id);
    expect([paid.status, paid.last_payment_error]).toEqual(['succeeded', null]);
    expect(paid.latest_charge).not.toBe(intent.latest_charge);
  });

  it('expires an open session on request, and refuses to expire it twice', async () => {
    const created = await stripe.checkout.sessions.create(depositSession());
    const expired = await stripe.checkout.sessions.expire(created.id);
    expect([expired.status, expired.url]).toEqual(['expired', null]);
    const error = await failure(stripe.checkout.sessions.expire(created.id));
    expect([error.statusCode, error.type]).toEqual([400, 'StripeInvalidRequestError']);
    expect(error.message).toContain('This Checkout Session has a status of `expired`');
  });

  it('expires a session by itself once its expires_at has passed on the stand-in clock', async () => {
    // Thirty seconds over Stripe's 30-minute least: the stand-in's clock runs on with the wall clock between the
    // read, the create and the checks (a second was too little on a loaded machine).
    const created = await stripe.checkout.sessions.create(
      depositSession({ expires_at: (await control('clock')).json.now + 1830 }),
    );
    expect((await control('clock/advance', { seconds: 1800 })).status).toBe(200);
    expect((await stripe.checkout.sessions.retrieve(created.id)).status).toBe('open');
    await control('clock/advance', { seconds: 30 });
    expect((await stripe.checkout.sessions.retrieve(created.id)).status).toBe('expired');
    expect((await control(`checkout/${created.id}/pay`, {})).status).toBe(400);
  });
});

describe('PaymentIntents: manual capture and cancel', () => {
  it('authorises on payment, captures part, releases the rest, and refuses a second capture', async () => {
    const created = await stripe.checkout.sessions.create(
      depositSession({ payment_intent_data: { capture_method: 'manual' } }),
    );
    const paid = await pay(created.id);
    expect([paid.status, paid.payment_status]).toEqual(['complete', 'unpaid']);
    const authorised = await stripe.paymentIntents.retrieve(paid.payment_intent);
    expect([authorised.status, authorised.amount_capturable]).toEqual(['requires_capture', 12_500]);
    const tooMuch = await failure(
      stripe.paymentIntents.capture(authorised.id, { amount_to_capture: 12_501 }),
    );
    expect([tooMuch.statusCode, tooMuch.code]).toEqual([400, 'amount_too_large']);
    const captured = await stripe.paymentIntents.capture(
      authorised.id,
      { amount_to_capture: 10_000 },
      { idempotencyKey: 'cap-1' },
    );
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0 });
    const charge = await stripe.charges.retrieve(captured.latest_charge as string);
    expect(charge).toMatchObject({
      captured: true,
      amount_captured: 10_000,
      amount_refunded: 2500,
      refunded: false,
    });
    expect((await stripe.checkout.sessions.retrieve(created.id)).payment_status).toBe('paid');
    const again = await failure(stripe.paymentIntents.capture(authorised.id));
    expect([again.statusCode, again.code]).toEqual([400, 'payment_intent_unexpected_state']);
    expect((again.raw as { payment_intent?: { id: string } }).payment_intent?.id).toBe(authorised.id);
  });

  it('cancels an uncaptured authorisation and releases it whole; refuses to cancel a succeeded one', async () => {
    const created = await stripe.checkout.sessions.create(
      depositSession({ payment_intent_data: { capture_method: 'manual' } }),
    );
    const paid = await pay(created.id);
    const canceled = await stripe.paymentIntents.cancel(paid.payment_intent, {
      cancellation_reason: 'requested_by_customer',
    });
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'requested_by_customer' });
    expect((await stripe.charges.retrieve(canceled.latest_charge as string)).refunded).toBe(true);
    const other = await stripe.checkout.sessions.create(depositSession());
    const succeeded = await pay(other.id);
    const refused = await failure(stripe.paymentIntents.cancel(succeeded.payment_intent));
    expect([refused.statusCode, refused.code]).toEqual([400, 'payment_intent_unexpected_state']);
  });

  it('refuses to cancel the PaymentIntent of an open session, and cancels it when the session expires', async () => {
    const created = await stripe.checkout.sessions.create(depositSession());
    const declined = await decline(created.id);
    const refused = await failure(stripe.paymentIntents.cancel(declined.payment_intent));
    expect(refused.message).toContain('Expire the Checkout Session instead');
    await stripe.checkout.sessions.expire(created.id);
    expect(await stripe.paymentIntents.retrieve(declined.payment_intent)).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'abandoned',
    });
  });
});

describe('Refunds', () => {
  it('refunds part, then the rest, lists them by PaymentIntent, and refuses more', async () => {
    const created = await stripe.checkout.sessions.create(depositSession());
    const intentId = (await pay(created.id)).payment_intent as string;
    const first = await stripe.refunds.create({
      payment_intent: intentId,
      amount: 2500,
      metadata: { refund_id: 'r1' },
    });
    expect(first).toMatchObject({
      object: 'refund',
      amount: 2500,
      status: 'succeeded',
      payment_intent: intentId,
      currency: 'cad',
    });
    expect(first.id).toMatch(/^re_/);
    const over = await failure(stripe.refunds.create({ payment_intent: intentId, amount: 10_001 }));
    expect([over.statusCode, over.code, over.param]).toEqual([400, 'amount_too_large', 'amount']);
    expect(over.message).toBe(
      'Refund amount (CA$100.01) is greater than unrefunded amount on charge (CA$100.00)',
    );
    const rest = await stripe.refunds.create({ payment_intent: intentId });
    expect(rest.amount).toBe(10_000);
    expect((await stripe.charges.retrieve(first.charge as string)).refunded).toBe(true);
    const again = await failure(stripe.refunds.create({ payment_intent: intentId }));
    expect([again.statusCode, again.code]).toEqual([400, 'charge_already_refunded']);
    const listed = await stripe.refunds.list({ payment_intent: intentId });
    expect(listed.data.map((refund) => refund.id)).toEqual([rest.id, first.id]);
    expect(plain(await stripe.refunds.retrieve(first.id))).toEqual(plain(first));
  });

  it("refuses a refund without a payment_intent, in Stripe's words", async () => {
    const error = await failure(stripe.refunds.create({}));
    expect([error.statusCode, error.code, error.param]).toEqual([400, 'parameter_missing', 'payment_intent']);
    expect(error.message).toBe(
      'One of the following params should be provided for this request: payment_intent or charge.',
    );
  });

  it('refuses to refund a PaymentIntent that has not succeeded', async () => {
    const created = await stripe.checkout.sessions.create(depositSession());
    const declined = await decline(created.id);
    const error = await failure(stripe.refunds.create({ payment_intent: declined.payment_intent }));
    expect(error.statusCode).toBe(400);
  });
});

describe("Stripe's errors", () => {
  it('answers a wrong key with 401 in the SDK as an authentication error', async () => {
    const wrong = new Stripe('sk_test_wrong', {
      host: '127.0.0.1',
      port: Number(new URL(standIn.url).port),
      protocol: 'http',
    });
    const error = await failure(wrong.paymentIntents.list());
    expect([error.statusCode, error.type]).toEqual([401, 'StripeAuthenticationError']);
    expect(error.message).toMatch(/^Invalid API Key provided: sk_test_\**rong$/);
  });

  it.each([
    [
      'checkout session',
      () => stripe.checkout.sessions.retrieve('cs_test_nope'),
      "No such checkout.session: 'cs_test_nope'",
    ],
    ['payment intent', () => stripe.paymentIntents.retrieve('pi_nope'), "No such payment_intent: 'pi_nope'"],
    ['refund', () => stripe.refunds.retrieve('re_nope'), "No such refund: 're_nope'"],
    ['event', () => stripe.events.retrieve('evt_nope'), "No such event: 'evt_nope'"],
    [
      'refund target',
      () => stripe.refunds.create({ payment_intent: 'pi_nope' }),
      "No such payment_intent: 'pi_nope'",
    ],
  ])('answers an unknown %s with 404 resource_missing', async (_what, call, message) => {
    const error = await failure(call());
    expect([error.statusCode, error.code, error.message]).toEqual([404, 'resource_missing', message]);
  });

  it.each([
    ['a missing line_items', { line_items: undefined }, 'parameter_missing', 'line_items'],
    [
      'a missing quantity',
      { line_items: [{ price_data: { currency: 'cad', product_data: { name: 'x' }, unit_amount: 1 } }] },
      'parameter_missing',
      'line_items[0][quantity]',
    ],
    [
      'an unknown parameter',
      { shipping_options: [] as never[], invoice_creation: { enabled: true } },
      'parameter_unknown',
      'invoice_creation',
    ],
    ['a bad success_url', { success_url: 'not a url' }, 'url_invalid', 'success_url'],
    ['a bad customer_email', { customer_email: 'guest' }, 'email_invalid', 'customer_email'],
  ])('refuses %s with 400 %s', async (_what, overrides, code, param) => {
    const error = await failure(
      stripe.checkout.sessions.create({
        ...depositSession(),
        ...overrides,
      } as Stripe.Checkout.SessionCreateParams),
    );
    expect([error.statusCode, error.type, error.code, error.param]).toEqual([
      400,
      'StripeInvalidRequestError',
      code,
      param,
    ]);
  });

  it('refuses a non-integer amount, and deadlines under 30 minutes or over 24 hours', async () => {
    const raw = await fetch(`${standIn.url}/v1/payment_intents/pi_x/capture`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${standIn.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'amount_to_capture=12.5',
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('parameter_invalid_integer');
    const now = (await control('clock')).json.now as number;
    for (const expiresAt of [now + 1799, now + 86_401]) {
      const error = await failure(stripe.checkout.sessions.create(depositSession({ expires_at: expiresAt })));
      expect([error.statusCode, error.param]).toEqual([400, 'expires_at']);
    }
  });

  it.each([
    ['cad', 50],
    ['gbp', 30],
    ['jpy', 50],
  ] as const)(
    'refuses a %s session under its minimum charge, %d, as Stripe does (amount_too_small), and opens one at it',
    async (currency, least) => {
      const line = (amount: number) => ({ currency, product_data: { name: 'x' }, unit_amount: amount });
      const of = (amount: number) =>
        depositSession({ currency, line_items: [{ price_data: line(amount), quantity: 1 }] });
      const error = await failure(stripe.checkout.sessions.create(of(least - 1)));
      expect([error.statusCode, error.type, error.code]).toEqual([
        400,
        'StripeInvalidRequestError',
        'amount_too_small',
      ]);
      expect(error.message).toMatch(
        /^The Checkout Session's total amount due must add up to at least \S+ [a-z]{3}$/,
      );
      expect((await stripe.checkout.sessions.create(of(least))).amount_total).toBe(least);
    },
  );

  it('refuses to expand a field that cannot be expanded', async () => {
    const created = await stripe.checkout.sessions.create(depositSession());
    const error = await failure(stripe.checkout.sessions.retrieve(created.id, { expand: ['customer'] }));
    expect([error.statusCode, error.message]).toEqual([400, 'This property cannot be expanded (customer).']);
  });
});
