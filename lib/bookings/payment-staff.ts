import { DomainError } from '../kernel/errors.ts';
import { formatAmount } from '../kernel/money.ts';
import { unixSeconds } from '../kernel/time.ts';
import type { Payment, PaymentProvider, PaymentState } from '../payments/index.ts';
import { type BookingContext, findBooking, isInactive } from './booking.ts';
import { changeBooking } from './change.ts';
import { NoChange, paymentChange } from './payment-change.ts';
import { manualRefunded, type StoredPaymentAttempt, type StoredRefund } from './payment-records.ts';
import type { BookingRecord } from './repository.ts';

// Staff's hand on a booking's payments (issue 43, item 5): capture an authorisation, all or part of it, and
// give back part or all of what was taken, through the provider or recorded as paid back by hand. Each goes
// through the attempt's version like the provider's own events, so two at once count once.

/** Where a staff payment action starts: the caller's booking context and the provider, if one is set up. */
export type StaffPaymentContext = BookingContext & { provider: PaymentProvider | undefined };

/** What a staff payment action names: the booking (code or id) and one of its payments. */
export interface StaffPaymentInput {
  reference: string;
  paymentId: string;
  /** In minor units; left out, all of what may be captured or refunded. */
  amount?: number | undefined;
}

const money = (ctx: BookingContext, minor: number) => formatAmount(minor, ctx.config.locale.decimals);

/** The booking (as the caller may see it) and its payment `paymentId`, or 404. */
async function findAttempt(ctx: BookingContext, input: StaffPaymentInput) {
  const record = await findBooking(ctx.db, input.reference, ctx.caller);
  const attempt = record.attempts?.find((one) => one.payment_id === input.paymentId);
  if (!attempt)
    throw new DomainError('not_found', `Payment ${input.paymentId} not found on this booking`, {
      payment_id: input.paymentId,
    });
  return { record, attempt };
}

/** The provider that holds an attempt's money, or a 409 when that is not the one set up here. */
function providerOf(ctx: StaffPaymentContext, attempt: StoredPaymentAttempt): PaymentProvider {
  if (!ctx.provider || ctx.provider.name !== attempt.provider || !attempt.provider_payment_id)
    throw new DomainError(
      'invalid_status',
      `Payment ${attempt.payment_id} is not held by a payment provider set up here`,
      { payment_id: attempt.payment_id, provider: attempt.provider },
    );
  return ctx.provider;
}

/**
 * Refuses a refund as the attempt stands now (a request racing this one may have changed it since it was read):
 * its id taken by a refund of another amount, or, paid back by hand, more than is left.
 */
function checkRefund(ctx: BookingContext, attempt: StoredPaymentAttempt, refund: StoredRefund): void {
  const same = attempt.refunds?.find((one) => one.refund_id === refund.refund_id);
  if (same && same.amount !== refund.amount)
    throw new DomainError(
      'invalid_status',
      'Another refund of this payment was made meanwhile; read it again',
      {
        payment_id: attempt.payment_id,
        refund_id: refund.refund_id,
      },
    );
  const left = attempt.captured - attempt.refunded;
  if (!same && refund.method === 'manual' && refund.amount > left)
    throw new DomainError('validation_error', 'Invalid parameter: amount', {
      amount: `at most ${money(ctx, left)}, what was taken less what was given back`,
    });
}

/** Records a provider's payment (and a refund staff made) on its attempt and booking, once. */
async function record(
  ctx: BookingContext,
  bookingId: number,
  input: {
    paymentId: string;
    payment: (attempt: StoredPaymentAttempt) => Payment;
    refund?: StoredRefund;
    reason?: 'scheduled_capture';
  },
): Promise<BookingRecord> {
  const change = (read: BookingRecord) => {
    const attempt = read.attempts?.find((one) => one.payment_id === input.paymentId);
    if (!attempt) throw new DomainError('not_found', 'Payment not found', { payment_id: input.paymentId });
    if (input.refund) checkRefund(ctx, attempt, input.refund);
    return paymentChange(ctx, {
      paymentId: input.paymentId,
      payment: input.payment(attempt),
      // Money the booking never counted (given back when it lapsed, a stray payment) leaves paid_total as it is.
      keep: !input.refund || attempt.applied > 0,
      ...(input.refund ? { refund: input.refund } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
    })(read);
  };
  try {
    await changeBooking(ctx, String(bookingId), change);
  } catch (error) {
    // Recorded already, by the provider's own event or a request racing this one: nothing more to record.
    if (!(error instanceof NoChange)) throw error;
    if (error.outcome !== 'unchanged')
      throw new DomainError('invalid_status', 'The booking was cancelled meanwhile', {
        payment_id: input.paymentId,
      });
  }
  return findBooking(ctx.db, String(bookingId), ctx.caller);
}

/**
 * Captures an authorised payment at its provider, all of it or `amount` (at most what was authorised): 409
 * `invalid_status` for a payment not authorised (captured already, cancelled, at the point of sale) or a
 * booking cancelled. The provider's key is the payment's own, so two captures at once capture once.
 */
export async function capturePayment(ctx: StaffPaymentContext, input: StaffPaymentInput) {
  const { record: read, attempt } = await findAttempt(ctx, input);
  if (attempt.status !== 'authorised')
    throw new DomainError(
      'invalid_status',
      `Only an authorised payment can be captured; payment ${attempt.payment_id} is ${attempt.status}`,
      { payment_id: attempt.payment_id, status: attempt.status },
    );
  if (isInactive(read.booking.status_id))
    throw new DomainError('invalid_status', 'The booking is cancelled: cancel the authorisation instead', {
      status_id: read.booking.status_id,
    });
  if (input.amount !== undefined && input.amount > attempt.amount)
    throw new DomainError('validation_error', 'Invalid parameter: amount', {
      amount: `at most ${money(ctx, attempt.amount)}, what was authorised`,
    });
  return captureAttempt(ctx, { bookingId: read.booking.booking_id, attempt, amount: input.amount });
}

/**
 * Captures an authorised attempt at its provider (the key `<payment_id>:capture`, so a capture already made
 * answers as made) and records it once, on the attempt's version; the path of staff's capture and the
 * sweeper's scheduled one (`reason`).
 */
export async function captureAttempt(
  ctx: StaffPaymentContext,
  input: {
    bookingId: number;
    attempt: StoredPaymentAttempt;
    amount?: number | undefined;
    reason?: 'scheduled_capture';
  },
): Promise<BookingRecord> {
  const { attempt } = input;
  const provider = providerOf(ctx, attempt);
  const payment = await provider.capture(attempt.provider_payment_id ?? '', {
    paymentId: attempt.payment_id,
    ...(input.amount !== undefined ? { amount: input.amount } : {}),
  });
  return record(ctx, input.bookingId, {
    paymentId: attempt.payment_id,
    payment: () => payment,
    ...(input.reason ? { reason: input.reason } : {}),
  });
}

/** The payment as recorded, as if read from a provider that refunded nothing staff paid back by hand. */
const asRecorded = (attempt: StoredPaymentAttempt): Payment => ({
  providerPaymentId: attempt.provider_payment_id ?? attempt.payment_id,
  state: attempt.status as PaymentState,
  capture: attempt.capture,
  amount: attempt.amount,
  capturable: 0,
  captured: attempt.captured,
  refunded: attempt.refunded - manualRefunded(attempt),
  currency: attempt.currency,
  created: attempt.created,
  metadata: {},
});

/**
 * Gives back `amount` (all that is left, left out) of a captured payment: through its provider (`provider`,
 * the default for a provider's payment; the refund's id, and so the provider's key, is derived from the
 * payment and how many refunds it has) or recorded as paid back by hand (`manual`, the default at the point of
 * sale). More than what was taken less what was given back is a 400 naming the most; nothing is recorded
 * unless the provider made the refund.
 */
export async function refundPayment(
  ctx: StaffPaymentContext,
  input: StaffPaymentInput & {
    method?: 'provider' | 'manual' | undefined;
    /** The refund's id (and so the provider's key) when the caller derives its own: a guest's cancel. */
    refundId?: string;
  },
) {
  const { record: read, attempt } = await findAttempt(ctx, input);
  // A refund under a key the caller derives (a guest's cancel) recorded already, by a request racing this one
  // since the caller read the booking: made, and nothing is left of it to check against.
  if (input.refundId !== undefined && attempt.refunds?.some((one) => one.refund_id === input.refundId))
    return read;
  const method = input.method ?? (attempt.provider === 'pos' ? 'manual' : 'provider');
  const left = attempt.captured - attempt.refunded;
  if (attempt.status !== 'captured' || left <= 0)
    throw new DomainError(
      'invalid_status',
      `Nothing of payment ${attempt.payment_id} is left to refund (it is ${attempt.status})`,
      { payment_id: attempt.payment_id, status: attempt.status, refundable: money(ctx, Math.max(left, 0)) },
    );
  const amount = input.amount ?? left;
  if (amount > left)
    throw new DomainError('validation_error', 'Invalid parameter: amount', {
      amount: `at most ${money(ctx, left)}, what was taken less what was given back`,
    });
  const nowSeconds = unixSeconds(ctx.now);
  const refundId =
    input.refundId ??
    `${attempt.payment_id}_${method === 'manual' ? 'm' : 'r'}${(attempt.refunds?.length ?? 0) + 1}`;
  if (method === 'manual')
    return record(ctx, read.booking.booking_id, {
      paymentId: attempt.payment_id,
      payment: asRecorded,
      refund: { refund_id: refundId, amount, method, created: nowSeconds },
    });
  const provider = providerOf(ctx, attempt);
  const providerPaymentId = attempt.provider_payment_id ?? '';
  const made = await provider.refund(providerPaymentId, { paymentId: attempt.payment_id, refundId, amount });
  // Another request made this refund first, for another amount: it is recorded by that one, not this. Under
  // a key the caller derives (a guest's cancel), it is this very refund, made by an earlier try whose answer
  // was lost (the provider's event may have lowered what is left since): recorded as the provider made it.
  if (
    (made.amount !== amount && input.refundId === undefined) ||
    made.state === 'failed' ||
    made.state === 'cancelled'
  )
    throw new DomainError(
      'invalid_status',
      'Another refund of this payment was made meanwhile; read it again',
      {
        payment_id: attempt.payment_id,
        refund_id: refundId,
      },
    );
  const payment = await provider.readPayment(providerPaymentId);
  return record(ctx, read.booking.booking_id, {
    paymentId: attempt.payment_id,
    payment: () => payment,
    refund: { refund_id: refundId, amount: made.amount, method, created: nowSeconds },
  });
}
