import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { PaymentProviderError, STRIPE_API_VERSION, stripeProvider } from '#lib/payments/index.ts';
import {
  fromStripeMetadata,
  paymentState,
  toPayment,
  toPaymentEvent,
  toPortError,
  toStripeMetadata,
} from '#lib/payments/stripe-objects.ts';

// The Stripe adapter's translations, without a network: the PaymentIntent state table of docs/payments.md,
// metadata, event types, errors, and the configuration it refuses at cold start.

const declined = { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' };

describe('the PaymentIntent state table', () => {
  it.each([
    ['requires_payment_method', null, 'pending'],
    ['requires_payment_method', declined, 'failed'],
    ['requires_confirmation', null, 'pending'],
    ['requires_action', null, 'pending'],
    ['processing', null, 'pending'],
    ['requires_capture', null, 'authorised'],
    ['succeeded', null, 'captured'],
    ['canceled', null, 'cancelled'],
    ['canceled', declined, 'cancelled'],
  ] as const)('reads %s (last error: %o) as %s', (status, error, state) => {
    expect(
      paymentState({ status, last_payment_error: error as Stripe.PaymentIntent.LastPaymentError | null }),
    ).toBe(state);
  });

  it('reads the amounts, the refunded part from the charge, and the decline reason', () => {
    const intent = {
      id: 'pi_1',
      status: 'succeeded',
      capture_method: 'manual',
      amount: 10_000,
      amount_capturable: 0,
      amount_received: 8_000,
      currency: 'cad',
      created: 1_800_000_000,
      metadata: { tenant_id: 'demo', payment_id: 'pay_1', other: 'not ours' },
      // A partial capture of 8,000: Stripe counts the 2,000 released in amount_refunded, beside 1,500 refunded.
      latest_charge: { id: 'ch_1', amount: 10_000, amount_captured: 8_000, amount_refunded: 3_500 },
      last_payment_error: null,
    } as unknown as Stripe.PaymentIntent;
    expect(toPayment(intent)).toEqual({
      providerPaymentId: 'pi_1',
      state: 'captured',
      capture: 'manual',
      amount: 10_000,
      capturable: 0,
      captured: 8_000,
      refunded: 1_500,
      currency: 'CAD',
      created: 1_800_000_000,
      metadata: { tenantId: 'demo', paymentId: 'pay_1' },
    });
    const failed = {
      ...intent,
      status: 'requires_payment_method',
      amount_received: 0,
      last_payment_error: declined,
    };
    expect(toPayment(failed as unknown as Stripe.PaymentIntent)).toMatchObject({
      state: 'failed',
      refunded: 0,
      failure: { code: 'insufficient_funds' },
    });
  });
});

describe('metadata and events', () => {
  it('writes our ids in snake case and reads back only ours', () => {
    const ours = { tenantId: 't', bookingId: '7', bookingCode: 'LOON-1', paymentId: 'p', refundId: 'r' };
    const written = toStripeMetadata(ours);
    expect(written).toEqual({
      tenant_id: 't',
      booking_id: '7',
      booking_code: 'LOON-1',
      payment_id: 'p',
      refund_id: 'r',
    });
    expect(fromStripeMetadata({ ...written, extra: 'x' })).toEqual(ours);
    expect(fromStripeMetadata(null)).toEqual({});
  });

  it('names an event type it does not act on as ignored', () => {
    const event = {
      id: 'evt_1',
      type: 'customer.created',
      created: 1,
      data: { object: { id: 'cus_1', metadata: {} } },
    } as unknown as Stripe.Event;
    expect(toPaymentEvent(event)).toEqual({
      eventId: 'evt_1',
      type: 'ignored',
      object: 'other',
      objectId: 'cus_1',
      created: 1,
      metadata: {},
    });
  });
});

describe('errors', () => {
  const raw = (statusCode: number, extra: Record<string, unknown> = {}) => ({
    statusCode,
    message: 'Stripe words sk_test_****1234',
    requestId: 'req_1',
    ...extra,
  });
  it.each([
    [new Stripe.errors.StripeAPIError(raw(500)), 'unavailable', undefined],
    [new Stripe.errors.StripeConnectionError({ message: 'socket hang up' }), 'unavailable', undefined],
    [new Stripe.errors.StripeRateLimitError(raw(429)), 'unavailable', undefined],
    [new Stripe.errors.StripeInvalidRequestError(raw(409)), 'unavailable', undefined],
    [new Stripe.errors.StripeAuthenticationError(raw(401)), 'misconfigured', undefined],
    [new Stripe.errors.StripePermissionError(raw(403)), 'misconfigured', undefined],
    [new Stripe.errors.StripeInvalidRequestError(raw(404)), 'not_found', undefined],
    [new Stripe.errors.StripeIdempotencyError(raw(400)), 'refused', 'key_reused'],
    [
      new Stripe.errors.StripeInvalidRequestError(raw(400, { code: 'amount_too_large' })),
      'refused',
      'amount_too_large',
    ],
    [
      new Stripe.errors.StripeInvalidRequestError(raw(400, { code: 'charge_already_refunded' })),
      'refused',
      'nothing_to_refund',
    ],
    [
      new Stripe.errors.StripeInvalidRequestError(raw(400, { code: 'payment_intent_unexpected_state' })),
      'refused',
      'invalid_state',
    ],
    [
      new Stripe.errors.StripeInvalidRequestError(raw(400, { code: 'url_invalid' })),
      'refused',
      'invalid_request',
    ],
  ])('maps %s to %s (%s), in our words only', (error, code, reason) => {
    const mapped = toPortError(error, Stripe.errors) as PaymentProviderError;
    expect(mapped).toBeInstanceOf(PaymentProviderError);
    expect([mapped.code, mapped.reason]).toEqual([code, reason]);
    expect(mapped.message).not.toContain('Stripe words');
    expect(JSON.stringify(mapped)).not.toContain('1234');
  });

  it('lets an error that is not a Stripe answer through as it is (a bug of ours)', () => {
    const bug = new TypeError('x is undefined');
    expect(toPortError(bug, Stripe.errors)).toBe(bug);
  });
});

describe('configuration', () => {
  it('pins the API version stripe 23.1.0 pins', () => {
    expect(STRIPE_API_VERSION).toBe(Stripe.API_VERSION);
  });

  it.each([
    'http://127.0.0.1:12111',
    'http://127.0.0.1:12111/',
    'https://api.stripe.com',
    'http://[::1]:12111',
  ])('takes %s as STRIPE_API_BASE', (apiBase) => {
    expect(() => stripeProvider({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x', apiBase })).not.toThrow();
  });

  it.each([
    'ftp://127.0.0.1:12111',
    'http://127.0.0.1:12111/v1',
    'http://user:pass@127.0.0.1:12111',
    '127.0.0.1:12111',
    'http://127.0.0.1:12111?x=1',
  ])('refuses %s as STRIPE_API_BASE at construction', (apiBase) => {
    expect(() => stripeProvider({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x', apiBase })).toThrow(
      expect.objectContaining({ code: 'misconfigured' }),
    );
  });

  it('refuses a missing key or secret, or a timeout or retry count that is not a whole number', () => {
    const good = { secretKey: 'sk_test_x', webhookSecret: 'whsec_x' };
    for (const options of [
      { ...good, secretKey: '' },
      { ...good, webhookSecret: '' },
      { ...good, timeoutMs: 0 },
      { ...good, timeoutMs: 1.5 },
      { ...good, maxNetworkRetries: -1 },
    ])
      expect(() => stripeProvider(options)).toThrow(expect.objectContaining({ code: 'misconfigured' }));
  });
});
