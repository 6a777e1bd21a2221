import { invalidParam, invalidRequest, StripeApiError } from './errors.ts';
import { AUTOMATIC, type Cause, type Ledger } from './ledger.ts';
import { checkMinimumCharge } from './minimums.ts';
import { formatMoney as money } from './objects.ts';
import {
  type ChargeRecord,
  type IntentRecord,
  type LineItemRecord,
  newId,
  type SessionRecord,
} from './state.ts';

/** A validated `POST /v1/checkout/sessions`. */
export interface SessionInput {
  currency: string;
  lineItems: Omit<LineItemRecord, 'id'>[];
  expiresAt: number | undefined;
  metadata: Record<string, string>;
  captureMethod: 'automatic' | 'manual';
  intentMetadata: Record<string, string>;
  intentDescription: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
}

/** Stripe's limits on a session's deadline: at least 30 minutes and at most 24 hours after creation. */
export const EXPIRY_BOUNDS = { min: 30 * 60, max: 24 * 60 * 60 } as const;

/** Stripe's ceiling on one payment's amount (99,999,999 minor units). */
const MAX_AMOUNT = 99_999_999;

/** Creates an open Checkout Session; its PaymentIntent waits until the guest first tries to pay. */
export function createSession(ledger: Ledger, input: SessionInput): SessionRecord {
  const now = ledger.store.now();
  const amountTotal = input.lineItems.reduce((sum, line) => sum + line.unitAmount * line.quantity, 0);
  if (amountTotal > MAX_AMOUNT)
    throw invalidParam(
      'line_items',
      `Amount must be no more than ${money(MAX_AMOUNT, input.currency)}`,
      'amount_too_large',
    );
  checkMinimumCharge(amountTotal, input.currency);
  const expiresAt = input.expiresAt ?? now + EXPIRY_BOUNDS.max;
  if (expiresAt < now + EXPIRY_BOUNDS.min)
    throw invalidParam(
      'expires_at',
      'The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.',
    );
  if (expiresAt > now + EXPIRY_BOUNDS.max)
    throw invalidParam(
      'expires_at',
      'The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.',
    );
  const record: SessionRecord = {
    id: newId('cs_test_a1', 56),
    seq: ledger.store.nextSeq(),
    created: now,
    expiresAt,
    currency: input.currency,
    amountTotal,
    lineItems: input.lineItems.map((line) => ({ id: newId('li_'), ...line })),
    metadata: input.metadata,
    captureMethod: input.captureMethod,
    intentMetadata: input.intentMetadata,
    intentDescription: input.intentDescription,
    successUrl: input.successUrl,
    cancelUrl: input.cancelUrl,
    customerEmail: input.customerEmail,
    clientReferenceId: input.clientReferenceId,
    status: 'open',
    paymentStatus: 'unpaid',
    paymentIntentId: null,
  };
  ledger.state.sessions[record.id] = record;
  // The stored record, not the literal: changes to it are what the journal sees.
  return ledger.session(record.id);
}

/**
 * Closes an open session: its PaymentIntent, if a declined attempt made one, is canceled as abandoned
 * (a decision: docs/payments-stand-in.md), then `checkout.session.expired`.
 */
function closeSession(ledger: Ledger, session: SessionRecord, cause: Cause): void {
  session.status = 'expired';
  const intent = session.paymentIntentId ? ledger.state.intents[session.paymentIntentId] : undefined;
  if (intent?.status === 'requires_payment_method') {
    intent.status = 'canceled';
    intent.canceledAt = ledger.store.now();
    intent.cancellationReason = 'abandoned';
    ledger.emit('payment_intent.canceled', ledger.viewIntent(intent), cause);
  }
  ledger.emit('checkout.session.expired', ledger.viewSession(session), cause);
}

/**
 * Expires every open session whose `expires_at` has come; returns how many. Deadlines are whole seconds, so
 * one sweep a second of the stand-in's clock sees every one as it passes (every request calls this).
 */
export function sweepExpired(ledger: Ledger): number {
  const now = ledger.store.now();
  if (ledger.sweptAt === now) return 0;
  ledger.sweptAt = now;
  let expired = 0;
  for (const session of Object.values(ledger.state.sessions)) {
    if (session.status !== 'open' || session.expiresAt > now) continue;
    closeSession(ledger, session, AUTOMATIC);
    expired += 1;
  }
  return expired;
}

/** `POST /v1/checkout/sessions/{id}/expire`. */
export function expireSession(ledger: Ledger, id: string, cause: Cause): SessionRecord {
  const session = ledger.session(id);
  if (session.status !== 'open')
    throw invalidRequest(
      `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of \`${session.status}\`.`,
    );
  closeSession(ledger, session, cause);
  return session;
}

function startIntent(ledger: Ledger, session: SessionRecord): IntentRecord {
  const existing = session.paymentIntentId ? ledger.state.intents[session.paymentIntentId] : undefined;
  if (existing) return existing;
  const intent: IntentRecord = {
    id: newId('pi_'),
    seq: ledger.store.nextSeq(),
    created: ledger.store.now(),
    amount: session.amountTotal,
    currency: session.currency,
    captureMethod: session.captureMethod,
    metadata: { ...session.intentMetadata },
    description: session.intentDescription,
    receiptEmail: null,
    status: 'requires_payment_method',
    amountCapturable: 0,
    amountReceived: 0,
    latestChargeId: null,
    paymentMethodId: null,
    canceledAt: null,
    cancellationReason: null,
    lastPaymentError: null,
    sessionId: session.id,
  };
  ledger.state.intents[intent.id] = intent;
  session.paymentIntentId = intent.id;
  return ledger.intent(intent.id);
}

/**
 * A guest pays the session with a test card (`success`) or is declined (`decline`). Paying completes the
 * session (PaymentIntent `succeeded`, or `requires_capture` for manual capture); a decline records the
 * failed charge and leaves the session open for another try.
 */
export function attemptPayment(ledger: Ledger, id: string, outcome: 'success' | 'decline'): SessionRecord {
  const session = ledger.session(id);
  if (session.status !== 'open')
    throw invalidRequest(`This Checkout Session is no longer open: its status is \`${session.status}\`.`);
  const intent = startIntent(ledger, session);
  const manual = intent.captureMethod === 'manual';
  const charge: ChargeRecord = {
    id: newId('ch_'),
    seq: ledger.store.nextSeq(),
    created: ledger.store.now(),
    amount: intent.amount,
    currency: intent.currency,
    paymentIntentId: intent.id,
    paymentMethodId: newId('pm_'),
    status: outcome === 'success' ? 'succeeded' : 'failed',
    captured: outcome === 'success' && !manual,
    amountCaptured: outcome === 'success' && !manual ? intent.amount : 0,
    released: 0,
    refundedByRefunds: 0,
    failure:
      outcome === 'decline'
        ? { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' }
        : null,
    metadata: {},
    billingEmail: session.customerEmail,
  };
  ledger.state.charges[charge.id] = charge;
  intent.latestChargeId = charge.id;
  if (charge.failure) {
    intent.lastPaymentError = {
      chargeId: charge.id,
      code: charge.failure.code,
      declineCode: charge.failure.declineCode,
      message: charge.failure.message,
      paymentMethodId: charge.paymentMethodId,
    };
    ledger.emit('payment_intent.payment_failed', ledger.viewIntent(intent), AUTOMATIC);
    return session;
  }
  intent.lastPaymentError = null;
  intent.paymentMethodId = charge.paymentMethodId;
  session.status = 'complete';
  if (manual) {
    intent.status = 'requires_capture';
    intent.amountCapturable = intent.amount;
    session.paymentStatus = 'unpaid';
    ledger.emit('payment_intent.amount_capturable_updated', ledger.viewIntent(intent), AUTOMATIC);
  } else {
    intent.status = 'succeeded';
    intent.amountReceived = intent.amount;
    session.paymentStatus = 'paid';
    ledger.emit('payment_intent.succeeded', ledger.viewIntent(intent), AUTOMATIC);
  }
  ledger.emit('checkout.session.completed', ledger.viewSession(session), AUTOMATIC);
  return session;
}

const unexpectedState = (ledger: Ledger, intent: IntentRecord, message: string) =>
  new StripeApiError(400, {
    type: 'invalid_request_error',
    code: 'payment_intent_unexpected_state',
    message,
    payment_intent: ledger.viewIntent(intent),
  });

/** `POST /v1/payment_intents/{id}/capture`: all or part of an authorisation; the rest is released. */
export function captureIntent(ledger: Ledger, id: string, amountToCapture: number | undefined, cause: Cause) {
  const intent = ledger.intent(id);
  if (intent.status !== 'requires_capture')
    throw unexpectedState(
      ledger,
      intent,
      `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
    );
  const amount = amountToCapture ?? intent.amountCapturable;
  if (amount > intent.amountCapturable)
    throw invalidRequest(
      `The amount to capture (${amount}) must be less than or equal to the amount capturable (${intent.amountCapturable}).`,
      { code: 'amount_too_large', param: 'amount_to_capture' },
    );
  const charge = ledger.charge(intent.latestChargeId ?? '');
  charge.captured = true;
  charge.amountCaptured = amount;
  charge.released = charge.amount - amount;
  intent.status = 'succeeded';
  intent.amountReceived = amount;
  intent.amountCapturable = 0;
  const session = intent.sessionId ? ledger.state.sessions[intent.sessionId] : undefined;
  if (session) session.paymentStatus = 'paid';
  ledger.emit('payment_intent.succeeded', ledger.viewIntent(intent), cause);
  return intent;
}

const CANCELABLE = ['requires_payment_method', 'requires_capture'];

/** `POST /v1/payment_intents/{id}/cancel`: an uncaptured authorisation is released whole. */
export function cancelIntent(
  ledger: Ledger,
  id: string,
  reason: IntentRecord['cancellationReason'],
  cause: Cause,
): IntentRecord {
  const intent = ledger.intent(id);
  const session = intent.sessionId ? ledger.state.sessions[intent.sessionId] : undefined;
  if (session?.status === 'open')
    throw invalidRequest(
      'You cannot cancel the PaymentIntent for a Checkout Session. Expire the Checkout Session instead.',
    );
  if (!CANCELABLE.includes(intent.status))
    throw unexpectedState(
      ledger,
      intent,
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
    );
  if (intent.status === 'requires_capture') {
    const charge = ledger.charge(intent.latestChargeId ?? '');
    charge.released = charge.amount;
  }
  intent.status = 'canceled';
  intent.canceledAt = ledger.store.now();
  intent.cancellationReason = reason;
  intent.amountCapturable = 0;
  ledger.emit('payment_intent.canceled', ledger.viewIntent(intent), cause);
  return intent;
}

/** `POST /v1/refunds` by `payment_intent`: up to what was captured and not yet refunded. */
export function createRefund(
  ledger: Ledger,
  input: {
    paymentIntent: string;
    amount: number | undefined;
    metadata: Record<string, string>;
    reason: 'duplicate' | 'fraudulent' | 'requested_by_customer' | null;
  },
  cause: Cause,
) {
  const intent = ledger.intent(input.paymentIntent, 'payment_intent');
  const charge =
    intent.status === 'succeeded' && intent.latestChargeId
      ? ledger.state.charges[intent.latestChargeId]
      : undefined;
  if (!charge)
    throw invalidRequest(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, {
      param: 'payment_intent',
    });
  const refundable = charge.amountCaptured - charge.refundedByRefunds;
  if (refundable === 0)
    throw invalidRequest(`Charge ${charge.id} has already been refunded.`, {
      code: 'charge_already_refunded',
    });
  const amount = input.amount ?? refundable;
  if (amount > refundable)
    throw invalidRequest(
      `Refund amount (${money(amount, charge.currency)}) is greater than unrefunded amount on charge (${money(refundable, charge.currency)})`,
      { code: 'amount_too_large', param: 'amount' },
    );
  const refund = {
    id: newId('re_'),
    seq: ledger.store.nextSeq(),
    created: ledger.store.now(),
    amount,
    currency: charge.currency,
    chargeId: charge.id,
    paymentIntentId: intent.id,
    metadata: input.metadata,
    reason: input.reason,
  };
  ledger.state.refunds[refund.id] = refund;
  charge.refundedByRefunds += amount;
  ledger.emit('charge.refunded', ledger.viewCharge(charge), cause);
  return refund;
}
