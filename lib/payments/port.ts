// The payment port: what the booking domain asks of a payment provider, in the domain's words (issue 43).
// Nothing here names a provider's objects, fields or statuses; an adapter (stripe-adapter.ts) translates.
// Amounts are integer minor units and currencies ISO 4217 upper case, as everywhere in the service.

/** Whether a payment is taken at once or only authorised, to be captured (or cancelled) by staff later. */
export type CaptureMode = 'automatic' | 'manual';

/** Where a hosted checkout stands: the guest may still pay, has paid (or authorised), or ran out of time. */
export type CheckoutState = 'open' | 'complete' | 'expired';

/**
 * Where a payment at the provider stands. `failed` is the last attempt declined: the guest may still pay on
 * the same checkout, so it is not final; `captured` stays `captured` when money is refunded (see `refunded`).
 */
export type PaymentState = 'pending' | 'authorised' | 'captured' | 'cancelled' | 'failed';

/** Where a refund stands: most are `succeeded` at once; some methods settle later or fail. */
export type RefundState = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** Our ids, written on the provider's objects when they are made and read back from them. */
export interface PaymentMetadata {
  tenantId?: string;
  bookingId?: string;
  bookingCode?: string;
  paymentId?: string;
  refundId?: string;
}

/** One line the guest sees on the checkout page. */
export interface CheckoutLine {
  name: string;
  description?: string;
  /** Per unit, in minor units. */
  unitAmount: number;
  quantity: number;
}

/** What a hosted checkout for one payment attempt needs. */
export interface StartCheckoutInput {
  /** Our payment record: one per attempt; the idempotency key is derived from it. */
  paymentId: string;
  bookingId: string;
  bookingCode: string;
  tenantId: string;
  /** What the guest pays, in minor units (at least `minimumCharge(currency)`). */
  amount: number;
  /** ISO 4217, upper case (`CAD`). */
  currency: string;
  /** The one line shown when `lines` is not given. */
  description: string;
  /** The lines shown instead; their total must equal `amount`. */
  lines?: CheckoutLine[];
  customerEmail?: string;
  /** The payment deadline, Unix seconds; the checkout expires then. */
  expiresAt: number;
  capture: CaptureMode;
  /** Where the guest lands after paying; `{checkout_id}` in it is replaced by the checkout's id. */
  returnUrl: string;
  /** Where the guest lands on giving up. */
  cancelUrl: string;
}

/** A checkout made: where to send the guest, and until when it is open. */
export interface Checkout {
  checkoutId: string;
  url: string;
  expiresAt: number;
}

/** A payment as the provider holds it, with the amounts that make `captured − refunded = paid`. */
export interface Payment {
  providerPaymentId: string;
  state: PaymentState;
  capture: CaptureMode;
  /** What was asked for. */
  amount: number;
  /** What may still be captured (an authorisation not yet captured). */
  capturable: number;
  captured: number;
  refunded: number;
  currency: string;
  /** Unix seconds. */
  created: number;
  metadata: PaymentMetadata;
  /** Why the last attempt failed: the provider's decline reason (`card_declined`, `insufficient_funds`). */
  failure?: { code: string };
}

/** A checkout read back: its state, and the payment it made, if the guest got that far. */
export interface CheckoutView {
  checkoutId: string;
  state: CheckoutState;
  /** Money was taken (not merely authorised). */
  paid: boolean;
  amount: number;
  currency: string;
  expiresAt: number;
  providerPaymentId?: string;
  payment?: Payment;
  metadata: PaymentMetadata;
}

/** A refund as the provider holds it. */
export interface Refund {
  providerRefundId: string;
  providerPaymentId: string;
  amount: number;
  currency: string;
  state: RefundState;
  metadata: PaymentMetadata;
}

/** The provider events the domain acts on, by the port's own names; anything else is `ignored`. */
export type PaymentEventType =
  | 'checkout.completed'
  | 'checkout.expired'
  | 'payment.succeeded'
  | 'payment.authorised'
  | 'payment.failed'
  | 'payment.cancelled'
  | 'payment.refunded'
  | 'ignored';

/**
 * A verified provider event: a trigger, not a truth. The caller records `eventId` once, then reads the
 * object back (`readCheckout` or `readPayment` by `objectId`) and applies only forward transitions.
 */
export interface PaymentEvent {
  eventId: string;
  type: PaymentEventType;
  /** What `objectId` names: a checkout, a payment (refunds name their payment), or something ignored. */
  object: 'checkout' | 'payment' | 'other';
  objectId: string;
  /** Unix seconds, when the provider made the event (not when it arrived). */
  created: number;
  /** Our ids as the event's object carried them (a refund event may carry none: read the payment). */
  metadata: PaymentMetadata;
}

/** The outside payment service, as the domain sees it: every write is idempotent by our own records. */
export interface PaymentProvider {
  /** A short stable name (`stripe`), for records and logs. */
  readonly name: string;
  /**
   * The least amount the provider charges in `currency` (ISO 4217), in minor units: a checkout for less is
   * refused, so nothing less is ever asked of a guest. 1 where the provider publishes none.
   */
  minimumCharge(currency: string): number;
  /** Opens a hosted checkout for one payment attempt (key: `<paymentId>:checkout`). */
  startCheckout(input: StartCheckoutInput): Promise<Checkout>;
  readCheckout(checkoutId: string): Promise<CheckoutView>;
  /** Closes an open checkout (key: `<paymentId>:expire`); one already expired or complete answers its state. */
  expireCheckout(checkoutId: string, input: { paymentId: string }): Promise<CheckoutView>;
  readPayment(providerPaymentId: string): Promise<Payment>;
  /** Captures an authorisation, all or `amount` of it (key: `<paymentId>:capture`); already captured answers. */
  capture(providerPaymentId: string, input: { paymentId: string; amount?: number }): Promise<Payment>;
  /** Releases an authorisation (key: `<paymentId>:cancel`); already cancelled answers its state. */
  cancel(providerPaymentId: string, input: { paymentId: string }): Promise<Payment>;
  /** Gives back `amount` of a captured payment (key: `<refundId>:refund`); a refund already made answers. */
  refund(
    providerPaymentId: string,
    input: { paymentId: string; refundId: string; amount: number },
  ): Promise<Refund>;
  /** The provider's payments, newest first, down to `createdAfter` (exclusive), at most `limit` of them. */
  listPayments(options?: { createdAfter?: number; limit?: number }): AsyncIterable<Payment>;
  /** Verifies a webhook's signature on the exact bytes received (300 s tolerance) and reads its event. */
  readEvent(
    rawBody: string | Uint8Array,
    signatureHeader: string,
    nowSeconds?: number,
  ): Promise<PaymentEvent>;
}
