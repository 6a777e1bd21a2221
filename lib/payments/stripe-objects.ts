import type Stripe from 'stripe';
import { PaymentProviderError, type RefusalReason } from './errors.ts';
import type {
  CheckoutState,
  CheckoutView,
  Payment,
  PaymentEvent,
  PaymentEventType,
  PaymentMetadata,
  PaymentState,
  Refund,
  RefundState,
} from './port.ts';

// Part of the Stripe adapter: Stripe's objects, statuses, event types and errors translated into the port's
// words, as pure functions (no SDK value is imported here, only its types). docs/payments.md has the tables.

/** Our ids as they are written into Stripe's `metadata` (snake case, Stripe's convention). */
const METADATA_KEYS = {
  tenantId: 'tenant_id',
  bookingId: 'booking_id',
  bookingCode: 'booking_code',
  paymentId: 'payment_id',
  refundId: 'refund_id',
} as const satisfies Record<keyof PaymentMetadata, string>;

/** Writes our ids as Stripe metadata, leaving out those not given. */
export function toStripeMetadata(metadata: PaymentMetadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [ours, theirs] of Object.entries(METADATA_KEYS)) {
    const value = metadata[ours as keyof PaymentMetadata];
    if (value !== undefined) out[theirs] = value;
  }
  return out;
}

/** Reads our ids back from Stripe metadata; anything else in it is not ours and is left out. */
export function fromStripeMetadata(metadata: Stripe.Metadata | null | undefined): PaymentMetadata {
  const out: PaymentMetadata = {};
  for (const [ours, theirs] of Object.entries(METADATA_KEYS)) {
    const value = metadata?.[theirs];
    if (typeof value === 'string') out[ours as keyof PaymentMetadata] = value;
  }
  return out;
}

/** The PaymentIntent state table (docs/payments.md): a decline leaves `requires_payment_method` with an error. */
export function paymentState(
  intent: Pick<Stripe.PaymentIntent, 'status' | 'last_payment_error'>,
): PaymentState {
  switch (intent.status) {
    case 'requires_payment_method':
      return intent.last_payment_error ? 'failed' : 'pending';
    case 'requires_capture':
      return 'authorised';
    case 'succeeded':
      return 'captured';
    case 'canceled':
      return 'cancelled';
    default:
      // requires_confirmation, requires_action, processing: the guest or the network is still at it.
      return 'pending';
  }
}

const idOf = (value: string | { id: string } | null | undefined): string | undefined =>
  typeof value === 'string' ? value : (value?.id ?? undefined);

/**
 * What was given back of a charge. Stripe counts the part of an authorisation a partial capture released in
 * `amount_refunded` too, though no refund was made: that part (amount − amount_captured) is left out.
 */
const refundedOf = (charge: Pick<Stripe.Charge, 'amount' | 'amount_captured' | 'amount_refunded'>): number =>
  Math.max(0, charge.amount_refunded - (charge.amount - charge.amount_captured));

/** A PaymentIntent (its `latest_charge` expanded, for the refunded amount) as the port's payment. */
export function toPayment(intent: Stripe.PaymentIntent): Payment {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const error = intent.last_payment_error;
  const state = paymentState(intent);
  const payment: Payment = {
    providerPaymentId: intent.id,
    state,
    capture: intent.capture_method === 'manual' ? 'manual' : 'automatic',
    amount: intent.amount,
    capturable: intent.amount_capturable,
    captured: intent.amount_received,
    refunded: state === 'captured' && charge ? refundedOf(charge) : 0,
    currency: intent.currency.toUpperCase(),
    created: intent.created,
    metadata: fromStripeMetadata(intent.metadata),
  };
  if (state === 'failed' && error) payment.failure = { code: error.decline_code ?? error.code ?? 'declined' };
  return payment;
}

/** A Checkout Session (its `payment_intent` expanded when there is one) as the port's checkout. */
export function toCheckoutView(session: Stripe.Checkout.Session): CheckoutView {
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  const state: CheckoutState =
    session.status === 'complete' ? 'complete' : session.status === 'expired' ? 'expired' : 'open';
  const view: CheckoutView = {
    checkoutId: session.id,
    state,
    paid: session.payment_status === 'paid',
    amount: session.amount_total ?? 0,
    currency: (session.currency ?? '').toUpperCase(),
    expiresAt: session.expires_at,
    metadata: fromStripeMetadata(session.metadata),
  };
  const providerPaymentId = idOf(session.payment_intent);
  if (providerPaymentId) view.providerPaymentId = providerPaymentId;
  if (intent) view.payment = toPayment(intent);
  return view;
}

const REFUND_STATES: Record<string, RefundState> = {
  pending: 'pending',
  requires_action: 'pending',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'cancelled',
};

/** A Refund as the port's refund. */
export function toRefund(refund: Stripe.Refund): Refund {
  return {
    providerRefundId: refund.id,
    providerPaymentId: idOf(refund.payment_intent) ?? '',
    amount: refund.amount,
    currency: refund.currency.toUpperCase(),
    state: REFUND_STATES[refund.status ?? ''] ?? 'pending',
    metadata: fromStripeMetadata(refund.metadata),
  };
}

/** Stripe's event types the port names, and what their object is. */
const EVENTS: Record<string, { type: PaymentEventType; object: PaymentEvent['object'] }> = {
  'checkout.session.completed': { type: 'checkout.completed', object: 'checkout' },
  'checkout.session.expired': { type: 'checkout.expired', object: 'checkout' },
  'payment_intent.succeeded': { type: 'payment.succeeded', object: 'payment' },
  'payment_intent.amount_capturable_updated': { type: 'payment.authorised', object: 'payment' },
  'payment_intent.payment_failed': { type: 'payment.failed', object: 'payment' },
  'payment_intent.canceled': { type: 'payment.cancelled', object: 'payment' },
  'charge.refunded': { type: 'payment.refunded', object: 'payment' },
};

/**
 * Whether a verified body is an event at all (an id, a type, a time and an object): the signature covers any
 * bytes, and a body that is not one must be refused as one that does not verify, not fail as a bug of ours.
 */
export function isStripeEvent(body: unknown): body is Stripe.Event {
  const event = body as {
    id?: unknown;
    type?: unknown;
    created?: unknown;
    data?: { object?: unknown };
  } | null;
  return (
    typeof event === 'object' &&
    event !== null &&
    typeof event.id === 'string' &&
    typeof event.type === 'string' &&
    typeof event.created === 'number' &&
    typeof event.data?.object === 'object' &&
    event.data.object !== null
  );
}

/** A verified Stripe event as the port's event; a refund names its payment, so the payment is read back. */
export function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const known = EVENTS[event.type];
  const object = event.data.object as {
    id?: string;
    metadata?: Stripe.Metadata | null;
    payment_intent?: unknown;
  };
  const objectId =
    event.type === 'charge.refunded'
      ? (idOf(object.payment_intent as string | { id: string } | null) ?? '')
      : (object.id ?? '');
  return {
    eventId: event.id,
    type: known?.type ?? 'ignored',
    object: known?.object ?? 'other',
    objectId,
    created: event.created,
    metadata: fromStripeMetadata(object.metadata),
  };
}

/** The SDK's error classes (from the lazily loaded module), for `toPortError`. */
export type StripeErrorClasses = typeof Stripe.errors;

const REASONS: Record<string, RefusalReason> = {
  amount_too_large: 'amount_too_large',
  charge_already_refunded: 'nothing_to_refund',
  payment_intent_unexpected_state: 'invalid_state',
};

/**
 * A failed SDK call as the port's error: 5xx, 409, 429, timeouts and lost connections are `unavailable`;
 * 401/403 `misconfigured`; 404 `not_found`; other 4xx `refused` with a reason. Anything else (not a Stripe
 * error, or one the SDK raised before sending) is a bug of ours and is answered as it is.
 */
export function toPortError(error: unknown, errors: StripeErrorClasses): unknown {
  if (!(error instanceof errors.StripeError)) return error;
  const base = { cause: error, ...(error.requestId ? { providerRequestId: error.requestId } : {}) };
  if (error instanceof errors.StripeSignatureVerificationError)
    // Its `header` and `payload` hold the whole webhook body: the cause would carry guest data into logs.
    return new PaymentProviderError('invalid_signature');
  if (error instanceof errors.StripeIdempotencyError)
    return new PaymentProviderError('refused', { ...base, reason: 'key_reused' });
  if (error instanceof errors.StripeAuthenticationError || error instanceof errors.StripePermissionError)
    return new PaymentProviderError('misconfigured', base);
  const status = error.statusCode;
  if (
    error instanceof errors.StripeConnectionError ||
    error instanceof errors.StripeRateLimitError ||
    (status !== undefined && (status >= 500 || status === 409))
  )
    return new PaymentProviderError('unavailable', base);
  // No answer and no connection failure: the SDK refused our own call before sending it, a bug of ours.
  if (status === undefined) return error;
  if (status === 404) return new PaymentProviderError('not_found', base);
  return new PaymentProviderError('refused', {
    ...base,
    reason: REASONS[error.code ?? ''] ?? 'invalid_request',
  });
}
