import type Stripe from 'stripe';
import { checkAmount, checkCheckoutInput, checkId } from './checks.ts';
import { PaymentProviderError } from './errors.ts';
import type {
  Checkout,
  CheckoutView,
  Payment,
  PaymentEvent,
  PaymentProvider,
  Refund,
  StartCheckoutInput,
} from './port.ts';
import { type StripeProviderOptions, stripeSettings } from './stripe-config.ts';
import { stripeMinimumCharge } from './stripe-minimums.ts';
import {
  isStripeEvent,
  type StripeErrorClasses,
  toCheckoutView,
  toPayment,
  toPaymentEvent,
  toPortError,
  toRefund,
  toStripeMetadata,
} from './stripe-objects.ts';

// The Stripe adapter of the payment port (issue 43), through the official SDK. The SDK is imported with
// `import()` at the first call, never statically (only its types are), so a function that makes no payment
// call never loads it. Every POST carries an Idempotency-Key derived from our records and the operation.

/** How long a webhook's signature stays good, in seconds, before or after its timestamp. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The guest's return address may name the checkout: our placeholder, Stripe's template. */
const CHECKOUT_ID_PLACEHOLDER = '{checkout_id}';
const STRIPE_CHECKOUT_ID_TEMPLATE = '{CHECKOUT_SESSION_ID}';

interface Sdk {
  stripe: Stripe;
  errors: StripeErrorClasses;
}

/** Whether the provider answered (a 5xx, a refusal) rather than never being reached: worth reading back. */
const answered = (error: unknown): boolean =>
  error instanceof PaymentProviderError &&
  (error.code === 'refused' ||
    (error.code === 'unavailable' &&
      typeof (error.cause as { statusCode?: unknown })?.statusCode === 'number'));

/** The signature timestamp as the SDK reads it (the last `t=`), or undefined. */
const signedAt = (header: string): number | undefined => {
  let timestamp: number | undefined;
  for (const part of header.split(','))
    if (part.startsWith('t=')) timestamp = Number.parseInt(part.slice(2), 10);
  return timestamp;
};

/** The payment port on Stripe: Checkout for the guest, PaymentIntents and Refunds for staff. */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly #secretKey: string;
  readonly #webhookSecret: string;
  readonly #settings: Stripe.StripeConfig;
  #sdk: Promise<Sdk> | undefined;

  constructor(options: StripeProviderOptions) {
    this.#settings = stripeSettings(options);
    this.#secretKey = options.secretKey;
    this.#webhookSecret = options.webhookSecret;
  }

  /** The SDK and a client, made at the first call; a failed import is tried again at the next. */
  #load(): Promise<Sdk> {
    this.#sdk ??= import('stripe').then(
      ({ default: StripeSdk }) => ({
        stripe: new StripeSdk(this.#secretKey, this.#settings),
        errors: StripeSdk.errors,
      }),
      (error: unknown) => {
        this.#sdk = undefined;
        throw error;
      },
    );
    return this.#sdk;
  }

  async #call<T>(run: (stripe: Stripe) => Promise<T>): Promise<T> {
    const { stripe, errors } = await this.#load();
    try {
      return await run(stripe);
    } catch (error) {
      throw toPortError(error, errors);
    }
  }

  /**
   * Runs a write; when the provider answered with a refusal or a 5xx (which Stripe replays to the same key for
   * 24 hours), reads the object back and answers it if the write's outcome is already there.
   */
  async #settle<T>(write: () => Promise<T>, done: () => Promise<T | undefined>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!answered(error)) throw error;
      const found = await done().catch(() => undefined);
      if (found === undefined) throw error;
      return found;
    }
  }

  minimumCharge(currency: string): number {
    return stripeMinimumCharge(currency);
  }

  async startCheckout(input: StartCheckoutInput): Promise<Checkout> {
    checkCheckoutInput(input);
    const currency = input.currency.toLowerCase();
    const metadata = toStripeMetadata({
      tenantId: input.tenantId,
      bookingId: input.bookingId,
      bookingCode: input.bookingCode,
      paymentId: input.paymentId,
    });
    const lines = input.lines ?? [{ name: input.description, unitAmount: input.amount, quantity: 1 }];
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: 'payment',
      line_items: lines.map((line) => ({
        price_data: {
          currency,
          product_data: { name: line.name, ...(line.description ? { description: line.description } : {}) },
          unit_amount: line.unitAmount,
        },
        quantity: line.quantity,
      })),
      currency,
      metadata,
      client_reference_id: input.bookingCode,
      expires_at: input.expiresAt,
      payment_intent_data: { capture_method: input.capture, metadata, description: input.description },
      success_url: input.returnUrl.replaceAll(CHECKOUT_ID_PLACEHOLDER, STRIPE_CHECKOUT_ID_TEMPLATE),
      cancel_url: input.cancelUrl,
      ...(input.customerEmail ? { customer_email: input.customerEmail } : {}),
    };
    const session = await this.#call((stripe) =>
      stripe.checkout.sessions.create(params, { idempotencyKey: `${input.paymentId}:checkout` }),
    );
    if (!session.url)
      throw new PaymentProviderError('refused', {
        reason: 'invalid_request',
        detail: 'The checkout has no page address.',
      });
    return { checkoutId: session.id, url: session.url, expiresAt: session.expires_at };
  }

  async readCheckout(checkoutId: string): Promise<CheckoutView> {
    checkId(checkoutId, 'checkoutId');
    const session = await this.#call((stripe) =>
      stripe.checkout.sessions.retrieve(checkoutId, { expand: ['payment_intent.latest_charge'] }),
    );
    return toCheckoutView(session);
  }

  async expireCheckout(checkoutId: string, input: { paymentId: string }): Promise<CheckoutView> {
    checkId(checkoutId, 'checkoutId');
    checkId(input.paymentId, 'paymentId');
    return this.#settle(
      async () =>
        toCheckoutView(
          await this.#call((stripe) =>
            stripe.checkout.sessions.expire(
              checkoutId,
              { expand: ['payment_intent.latest_charge'] },
              { idempotencyKey: `${input.paymentId}:expire` },
            ),
          ),
        ),
      async () => {
        const view = await this.readCheckout(checkoutId);
        return view.state === 'open' ? undefined : view;
      },
    );
  }

  async readPayment(providerPaymentId: string): Promise<Payment> {
    checkId(providerPaymentId, 'providerPaymentId');
    const intent = await this.#call((stripe) =>
      stripe.paymentIntents.retrieve(providerPaymentId, { expand: ['latest_charge'] }),
    );
    return toPayment(intent);
  }

  /** The payment read back, if it is already in `state`. */
  async #readIf(providerPaymentId: string, state: Payment['state']): Promise<Payment | undefined> {
    const payment = await this.readPayment(providerPaymentId);
    return payment.state === state ? payment : undefined;
  }

  async capture(providerPaymentId: string, input: { paymentId: string; amount?: number }): Promise<Payment> {
    checkId(providerPaymentId, 'providerPaymentId');
    checkId(input.paymentId, 'paymentId');
    if (input.amount !== undefined) checkAmount(input.amount);
    const params: Stripe.PaymentIntentCaptureParams = {
      expand: ['latest_charge'],
      ...(input.amount !== undefined ? { amount_to_capture: input.amount } : {}),
    };
    return this.#settle(
      async () =>
        toPayment(
          await this.#call((stripe) =>
            stripe.paymentIntents.capture(providerPaymentId, params, {
              idempotencyKey: `${input.paymentId}:capture`,
            }),
          ),
        ),
      () => this.#readIf(providerPaymentId, 'captured'),
    );
  }

  async cancel(providerPaymentId: string, input: { paymentId: string }): Promise<Payment> {
    checkId(providerPaymentId, 'providerPaymentId');
    checkId(input.paymentId, 'paymentId');
    return this.#settle(
      async () =>
        toPayment(
          await this.#call((stripe) =>
            stripe.paymentIntents.cancel(
              providerPaymentId,
              { expand: ['latest_charge'] },
              { idempotencyKey: `${input.paymentId}:cancel` },
            ),
          ),
        ),
      () => this.#readIf(providerPaymentId, 'cancelled'),
    );
  }

  /** The refund made for our `refundId`, found by its metadata (which, unlike a key, never expires). */
  async #findRefund(providerPaymentId: string, refundId: string): Promise<Refund | undefined> {
    return this.#call(async (stripe) => {
      for await (const refund of stripe.refunds.list({ payment_intent: providerPaymentId, limit: 100 }))
        if (refund.metadata?.refund_id === refundId) return toRefund(refund);
      return undefined;
    });
  }

  async refund(
    providerPaymentId: string,
    input: { paymentId: string; refundId: string; amount: number },
  ): Promise<Refund> {
    checkId(providerPaymentId, 'providerPaymentId');
    checkId(input.paymentId, 'paymentId');
    checkId(input.refundId, 'refundId');
    checkAmount(input.amount);
    // Stripe keeps a key for 24 hours; a retry later than that must not refund twice.
    const earlier = await this.#findRefund(providerPaymentId, input.refundId);
    if (earlier) return earlier;
    return this.#settle(
      async () =>
        toRefund(
          await this.#call((stripe) =>
            stripe.refunds.create(
              {
                payment_intent: providerPaymentId,
                amount: input.amount,
                metadata: toStripeMetadata({ paymentId: input.paymentId, refundId: input.refundId }),
              },
              { idempotencyKey: `${input.refundId}:refund` },
            ),
          ),
        ),
      () => this.#findRefund(providerPaymentId, input.refundId),
    );
  }

  async *listPayments(options: { createdAfter?: number; limit?: number } = {}): AsyncIterable<Payment> {
    const { createdAfter, limit } = options;
    if (limit !== undefined) checkAmount(limit, 'limit');
    if (createdAfter !== undefined && !Number.isSafeInteger(createdAfter))
      throw new PaymentProviderError('refused', {
        reason: 'invalid_request',
        detail: 'createdAfter must be Unix seconds.',
      });
    const { stripe, errors } = await this.#load();
    const pages = stripe.paymentIntents.list({
      limit: Math.min(limit ?? 100, 100),
      expand: ['data.latest_charge'],
    });
    let count = 0;
    try {
      // Stripe lists newest first: the first one at or before `createdAfter` ends the walk.
      for await (const intent of pages) {
        if (createdAfter !== undefined && intent.created <= createdAfter) return;
        yield toPayment(intent);
        count += 1;
        if (limit !== undefined && count >= limit) return;
      }
    } catch (error) {
      throw toPortError(error, errors);
    }
  }

  async readEvent(
    rawBody: string | Uint8Array,
    signatureHeader: string,
    nowSeconds = Math.floor(Date.now() / 1000),
  ): Promise<PaymentEvent> {
    const { stripe } = await this.#load();
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(
        rawBody,
        signatureHeader,
        this.#webhookSecret,
        SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        nowSeconds * 1000,
      );
    } catch {
      // Whatever failed (signature, timestamp, a body that is not an event), the cause quotes the body.
      throw new PaymentProviderError('invalid_signature');
    }
    // The SDK refuses only old timestamps; one from the far future is refused too (a tolerance both ways).
    const timestamp = signedAt(signatureHeader) ?? Number.NaN;
    if (!(timestamp - nowSeconds <= SIGNATURE_TOLERANCE_SECONDS))
      throw new PaymentProviderError('invalid_signature');
    if (!isStripeEvent(event)) throw new PaymentProviderError('invalid_signature');
    return toPaymentEvent(event);
  }
}

/** The payment port on Stripe, configured once (per tenant); the SDK loads at its first call. */
export function stripeProvider(options: StripeProviderOptions): PaymentProvider {
  return new StripePaymentProvider(options);
}
