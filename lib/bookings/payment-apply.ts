import type { StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { ConditionsFailedError, transact } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { type Payment, type PaymentProvider, PaymentProviderError } from '../payments/index.ts';
import { type BookingContext, isInactive } from './booking.ts';
import { type BookingChange, plainWrites } from './change.ts';
import { makePaidChange } from './change-settle.ts';
import {
  advanceAttempt,
  applyChange,
  covered,
  NoChange,
  paymentChange,
  serviceContext,
} from './payment-change.ts';
import { ensureCheckout, renewAttempt } from './payment-open.ts';
import { putAttemptAction, replaceAttemptAction, type StoredPaymentAttempt } from './payment-records.ts';
import { getBookingRecord } from './repository.ts';
import { changeStatus } from './status.ts';
import { firstActiveStatus } from './unpaid.ts';

// A provider's payment applied to its booking (issue 43): the provider's object, read back, is the truth; the
// attempt's version makes each step apply once and only forward. Paid, the booking goes to PART or PAID with
// its `paid_total`; paid after it lapsed, it takes its stock back in one transaction or the money goes back.

/** What applying a provider's payment did. */
export type ApplyOutcome =
  /** The booking and its attempt moved on. */
  | 'applied'
  /** Nothing new: a duplicate, a stale event, or a state already recorded. */
  | 'unchanged'
  /** No such booking or attempt here (yet): the provider should retry. */
  | 'unknown'
  /** Paid after the booking lapsed and its stock could not be had again: refunded or released in full. */
  | 'given_back';

/** A provider's payment and the attempt its metadata names. */
interface ApplyInput {
  bookingId: number;
  paymentId: string;
  payment: Payment;
  /** The checkout the payment came through, when the event named one. */
  checkoutId?: string | undefined;
}

/**
 * Whether a payment naming an attempt is the attempt's own: in its currency, and the payment its checkout
 * made. A payment another checkout made with a copy of our metadata (a Payment Link, a second checkout) is
 * not. Where the attempt recorded neither its checkout nor its payment yet, nothing tells them apart.
 */
async function isOwnPayment(
  provider: PaymentProvider,
  attempt: StoredPaymentAttempt,
  input: ApplyInput,
): Promise<boolean> {
  const { payment } = input;
  if (payment.currency !== attempt.currency) return false;
  if (attempt.provider_payment_id) return attempt.provider_payment_id === payment.providerPaymentId;
  if (!attempt.checkout_id) return true;
  if (input.checkoutId) return input.checkoutId === attempt.checkout_id;
  // A payment event names no checkout: the attempt's own checkout says which payment it made.
  return (await provider.readCheckout(attempt.checkout_id)).providerPaymentId === payment.providerPaymentId;
}

/**
 * A payment that named an attempt but is not its own: recorded as an attempt of its own (flagged `stray`, its
 * id derived from the provider's, so each delivery finds the same record) and given back in full at once;
 * the booking's `paid_total` and status do not move.
 */
async function giveBackStray(
  ctx: BookingContext,
  provider: PaymentProvider,
  attempt: StoredPaymentAttempt,
  input: ApplyInput,
): Promise<ApplyOutcome> {
  const { payment } = input;
  const nowSeconds = unixSeconds(ctx.now);
  const stray: StoredPaymentAttempt = {
    ...attempt,
    payment_id: `stray_${payment.providerPaymentId}`,
    amount: payment.amount,
    currency: payment.currency,
    capture: payment.capture,
    status: 'pending',
    version: 1,
    provider_payment_id: payment.providerPaymentId,
    captured: 0,
    refunded: 0,
    applied: 0,
    flag: 'stray',
    created: nowSeconds,
    updated: nowSeconds,
  };
  delete stray.checkout_id;
  delete stray.checkout_url;
  delete stray.failure;
  if (input.checkoutId) stray.checkout_id = input.checkoutId;
  await transact(ctx.db, [putAttemptAction(ctx.db, stray)]).catch((error: unknown) => {
    // Recorded by an earlier delivery: given back from where that one left it.
    if (!(error instanceof ConditionsFailedError)) throw error;
  });
  return giveBack(ctx, provider, { ...input, paymentId: stray.payment_id, reason: 'stray' });
}

/**
 * Gives back a payment its booking cannot keep: refunds what was captured and is not yet refunded, releases an
 * authorisation (keys derived from the attempt, so a retry never pays back twice), and records it.
 */
async function giveBack(
  ctx: BookingContext,
  provider: PaymentProvider,
  input: ApplyInput & { reason?: 'lapsed' | 'stray' | 'booking_cancelled' | 'change_lapsed' },
): Promise<ApplyOutcome> {
  const reason = input.reason ?? 'lapsed';
  const { payment } = input;
  let after = payment;
  if (payment.state === 'authorised')
    after = await provider.cancel(payment.providerPaymentId, { paymentId: input.paymentId });
  else if (payment.state === 'captured' && payment.captured > payment.refunded) {
    await provider.refund(payment.providerPaymentId, {
      paymentId: input.paymentId,
      refundId: `${input.paymentId}_${reason}`,
      amount: payment.captured - payment.refunded,
    });
    after = await provider.readPayment(payment.providerPaymentId);
  }
  const outcome = await applyChange(
    ctx,
    input.bookingId,
    paymentChange(ctx, { ...input, payment: after, keep: false, reason }),
  );
  return outcome === 'unknown' ? 'unknown' : 'given_back';
}

/**
 * Opens a new checkout for a booking whose own attempt the provider cancelled before its deadline (its checkout
 * closed early, its authorisation let go) with nothing paid: a fresh attempt for the same amount and deadline,
 * so the guest still has a way to pay and a repeated create answers it. Any other booking is left as it is.
 */
async function reopenCheckout(ctx: BookingContext, provider: PaymentProvider, bookingId: number) {
  const record = await getBookingRecord(ctx.db, bookingId);
  const current = record?.attempts?.find((one) => one.payment_id === record.booking.payment?.payment_id);
  const nowSeconds = unixSeconds(ctx.now);
  if (
    !record ||
    !current ||
    isInactive(record.booking.status_id) ||
    covered(record.booking) ||
    nowSeconds >= current.deadline
  )
    return;
  // Renewed already by an earlier delivery whose provider failed as it opened the checkout: opened now.
  let fresh: StoredPaymentAttempt | undefined = current;
  if (current.status === 'cancelled') {
    // Nothing the provider did with the cancelled attempt carries over to the fresh one.
    const {
      checkout_id: _id,
      checkout_url: _url,
      provider_payment_id: _pi,
      failure: _failure,
      ...kept
    } = current;
    fresh = await renewAttempt(ctx.db, kept, nowSeconds);
  } else if (current.status !== 'opening') return;
  // Renewed meanwhile by another delivery: that one opens its checkout.
  if (!fresh) return;
  const payment = { provider, returnUrl: fresh.return_url, cancelUrl: fresh.cancel_url };
  const opened = await ensureCheckout({ ...ctx, payment }, record.booking, fresh);
  // The provider failed or hung as it opened it: the event is given back (503), and its next delivery opens it,
  // rather than the guest being left with no way to pay (adversarial pass of issue 43).
  if (opened?.status === 'opening') throw new PaymentProviderError('unavailable');
}

/**
 * A checkout the provider closed before the attempt's deadline with no money taken (expired in its dashboard
 * or by its API): the attempt is `cancelled`, so it is no longer offered as the way to pay, and a new one is
 * opened in its place; the booking keeps its stock until its own deadline. One closed at or after the
 * deadline is the sweeper's to settle, and one whose attempt names another checkout changes nothing.
 */
export async function closeProviderCheckout(
  options: { db: Db; config: StoredConfig; now: number; provider: PaymentProvider },
  input: { bookingId: number; paymentId: string; checkoutId: string },
): Promise<ApplyOutcome> {
  const ctx = serviceContext(options);
  const nowSeconds = unixSeconds(options.now);
  const outcome = await applyChange(ctx, input.bookingId, ({ booking, attempts }) => {
    const attempt = attempts?.find((one) => one.payment_id === input.paymentId);
    if (!attempt) throw new NoChange('unknown');
    const open = attempt.status === 'opening' || attempt.status === 'pending' || attempt.status === 'failed';
    if (
      !open ||
      attempt.checkout_id !== input.checkoutId ||
      isInactive(booking.status_id) ||
      nowSeconds >= attempt.deadline
    )
      throw new NoChange('unchanged');
    const next = {
      ...attempt,
      status: 'cancelled' as const,
      version: attempt.version + 1,
      updated: nowSeconds,
    };
    const { payment_id, provider, kind } = next;
    return {
      next: booking,
      writes: plainWrites([replaceAttemptAction(ctx.db, next, attempt.version)]),
      event: {
        type: 'payment.cancelled',
        data: { payment_id, provider, kind, status: next.status, reason: 'checkout_expired', amount: 0 },
      },
    };
  });
  if (outcome === 'applied' || outcome === 'unchanged')
    await reopenCheckout(ctx, options.provider, input.bookingId);
  return outcome === 'inactive' ? 'unchanged' : outcome;
}

/**
 * Applies a provider's payment (read back from the provider) to the booking and attempt its metadata names.
 * A booking that lapsed unpaid takes its stock back first (one transaction, or not at all), then keeps the
 * money; one that cannot, or that staff cancelled, gives the money back in full at once.
 */
export async function applyProviderPayment(
  options: { db: Db; config: StoredConfig; now: number; provider: PaymentProvider },
  input: ApplyInput,
): Promise<ApplyOutcome> {
  const ctx = serviceContext(options);
  const named = await getBookingRecord(options.db, input.bookingId);
  const own = named?.attempts?.find((one) => one.payment_id === input.paymentId);
  if (!own) return 'unknown';
  // Counted only if it is the attempt's own: another payment naming it is neither counted nor kept.
  if (!(await isOwnPayment(options.provider, own, input)))
    return giveBackStray(ctx, options.provider, own, input);
  // A change's difference, until the change it pays for is made (after, it is a payment like any other).
  if (own.kind === 'change' && own.applied === 0) return applyChangePayment(options, ctx, input);
  const outcome = await applyChange(ctx, input.bookingId, paymentChange(ctx, { ...input, keep: true }));
  // The booking's own attempt cancelled at the provider (its authorisation let go): a new way to pay.
  if (input.payment.state === 'cancelled' && (outcome === 'applied' || outcome === 'unchanged'))
    await reopenCheckout(ctx, options.provider, input.bookingId);
  if (outcome !== 'inactive') return outcome;
  const holdsMoney = input.payment.state === 'captured' || input.payment.state === 'authorised';
  if (!holdsMoney) {
    const recorded = await applyChange(ctx, input.bookingId, paymentChange(ctx, { ...input, keep: false }));
    return recorded === 'inactive' ? 'unchanged' : recorded;
  }
  const record = await getBookingRecord(options.db, input.bookingId);
  const attempt = record?.attempts?.find((one) => one.payment_id === input.paymentId);
  if (!record || !attempt) return 'unknown';
  // Money staff kept when they cancelled, part of it given back since (by them, or in the provider's
  // dashboard): recorded as given back, and the rest stays where staff left it.
  const { payment } = input;
  if (
    attempt.kept &&
    payment.state === 'captured' &&
    payment.captured - payment.refunded <= attempt.applied
  ) {
    const recorded = await applyChange(
      ctx,
      input.bookingId,
      paymentChange(ctx, { ...input, keep: false, reason: 'booking_cancelled' }),
    );
    return recorded === 'inactive' ? 'unchanged' : recorded;
  }
  // Only a booking its deadline let go of is revived; one staff cancelled stays as they left it.
  if (attempt.status === 'lapsed') {
    try {
      await changeStatus(ctx, {
        reference: String(input.bookingId),
        statusId: firstActiveStatus(options.config),
        reason: 'payment_late',
        notify: true,
        // A second delivery of the same payment may have revived it meanwhile: then there is nothing to revive.
        also: (read) => {
          if (!isInactive(read.booking.status_id))
            throw new DomainError('invalid_status', 'The booking was revived meanwhile');
          return [];
        },
      });
      const kept = await applyChange(ctx, input.bookingId, paymentChange(ctx, { ...input, keep: true }));
      return kept === 'inactive' ? 'unchanged' : kept;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_status') {
        const kept = await applyChange(ctx, input.bookingId, paymentChange(ctx, { ...input, keep: true }));
        return kept === 'inactive' ? 'unchanged' : kept;
      }
      if (!(error instanceof DomainError && error.code === 'unavailable')) throw error;
    }
  }
  // Its deadline let it go, or staff (or the service) cancelled it: the event says which.
  const reason = attempt.status === 'lapsed' ? 'lapsed' : 'booking_cancelled';
  return giveBack(ctx, options.provider, { ...input, reason });
}

/**
 * A payment of a change's difference (issue 44): while the change waits on it, the money and the change are
 * made in one transaction (payment.created, then booking.changed); a change let go at its deadline, or a
 * booking cancelled, before the money came gives the money back in full.
 */
async function applyChangePayment(
  options: Parameters<typeof applyProviderPayment>[0],
  ctx: BookingContext,
  input: ApplyInput,
): Promise<ApplyOutcome> {
  const outcome = await applyChange(ctx, input.bookingId, (record) => {
    if (record.booking.change?.payment_id !== input.paymentId || isInactive(record.booking.status_id))
      throw new NoChange('inactive');
    const paid = paymentChange(ctx, { ...input, keep: true })(record);
    const attempt = record.attempts?.find((one) => one.payment_id === input.paymentId);
    const status =
      attempt && advanceAttempt(attempt, input.payment, { nowSeconds: unixSeconds(ctx.now) })?.status;
    if (status !== 'captured' && status !== 'authorised') return paid;
    const made = makePaidChange(
      ctx,
      input.paymentId,
    )({
      ...record,
      booking: paid.next,
      attempts: record.attempts?.map((one) =>
        one.payment_id === input.paymentId ? { ...one, status } : one,
      ),
    });
    const change: BookingChange = {
      next: made.next,
      writes: [...paid.writes, ...made.writes],
      preceding: { type: paid.event.type, data: paid.event.data ?? {}, booking: paid.next },
      event: made.event,
      ...(paid.settle ? { settle: paid.settle } : {}),
      ...(paid.added ? { added: paid.added } : {}),
    };
    return change;
  });
  if (outcome !== 'inactive') return outcome;
  const record = await getBookingRecord(ctx.db, input.bookingId);
  const attempt = record?.attempts?.find((one) => one.payment_id === input.paymentId);
  if (!record || !attempt) return 'unknown';
  // Made by another delivery of the same payment meanwhile: applied as any payment is.
  if (attempt.applied > 0) return applyProviderPayment(options, input);
  if (input.payment.state !== 'captured' && input.payment.state !== 'authorised') {
    const recorded = await applyChange(ctx, input.bookingId, paymentChange(ctx, { ...input, keep: false }));
    return recorded === 'inactive' ? 'unchanged' : recorded;
  }
  const reason = isInactive(record.booking.status_id) ? 'booking_cancelled' : 'change_lapsed';
  return giveBack(ctx, options.provider, { ...input, reason });
}
