import type { StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import type { Payment, PaymentProvider } from '../payments/index.ts';
import { type BookingContext, isInactive } from './booking.ts';
import { applyChange, paymentChange, serviceContext } from './payment-change.ts';
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

/**
 * Gives back a payment its booking cannot keep: refunds what was captured and is not yet refunded, releases an
 * authorisation (keys derived from the attempt, so a retry never pays back twice), and records it.
 */
async function giveBack(
  ctx: BookingContext,
  provider: PaymentProvider,
  input: { bookingId: number; paymentId: string; payment: Payment; checkoutId?: string | undefined },
): Promise<ApplyOutcome> {
  const { payment } = input;
  let after = payment;
  if (payment.state === 'authorised')
    after = await provider.cancel(payment.providerPaymentId, { paymentId: input.paymentId });
  else if (payment.state === 'captured' && payment.captured > payment.refunded) {
    await provider.refund(payment.providerPaymentId, {
      paymentId: input.paymentId,
      refundId: `${input.paymentId}_lapsed`,
      amount: payment.captured - payment.refunded,
    });
    after = await provider.readPayment(payment.providerPaymentId);
  }
  const outcome = await applyChange(
    ctx,
    input.bookingId,
    paymentChange(ctx, { ...input, payment: after, keep: false }),
  );
  return outcome === 'unknown' ? 'unknown' : 'given_back';
}

/**
 * Applies a provider's payment (read back from the provider) to the booking and attempt its metadata names.
 * A booking that lapsed unpaid takes its stock back first (one transaction, or not at all), then keeps the
 * money; one that cannot, or that staff cancelled, gives the money back in full at once.
 */
export async function applyProviderPayment(
  options: { db: Db; config: StoredConfig; now: number; provider: PaymentProvider },
  input: { bookingId: number; paymentId: string; payment: Payment; checkoutId?: string | undefined },
): Promise<ApplyOutcome> {
  const ctx = serviceContext(options);
  const outcome = await applyChange(ctx, input.bookingId, paymentChange(ctx, { ...input, keep: true }));
  if (outcome !== 'inactive') return outcome;
  const holdsMoney = input.payment.state === 'captured' || input.payment.state === 'authorised';
  if (!holdsMoney) {
    const recorded = await applyChange(ctx, input.bookingId, paymentChange(ctx, { ...input, keep: false }));
    return recorded === 'inactive' ? 'unchanged' : recorded;
  }
  const record = await getBookingRecord(options.db, input.bookingId);
  const attempt = record?.attempts?.find((one) => one.payment_id === input.paymentId);
  if (!record || !attempt) return 'unknown';
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
  return giveBack(ctx, options.provider, input);
}
