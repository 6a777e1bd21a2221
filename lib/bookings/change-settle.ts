import { type BookingContext, isInactive } from './booking.ts';
import { type BookingChange, plainWrites } from './change.ts';
import { holdsDelta, releaseActions } from './change-stock.ts';
import { NoChange } from './payment-change.ts';
import { awaitsMoney, deletePaymentDueAction, replaceAttemptAction } from './payment-records.ts';
import type { BookingRecord, PendingChange, StoredBooking } from './repository.ts';

// How a change that waits for its payment ends (issue 44, item 4): made when the difference is paid, or let
// go at its deadline. Either way the booking stops holding the larger of its old and new stock: what the
// outcome does not need is released in the same transaction.

/** Releases what `holds` has beyond `keep`, per counter. */
const releaseBeyond = (
  ctx: Pick<BookingContext, 'db'>,
  holds: Record<string, number>,
  keep: Record<string, number>,
) => releaseActions(ctx, holdsDelta(keep, holds).take);

/** A booking without its waiting change. */
const withoutChange = (booking: StoredBooking): StoredBooking => {
  const { change: _done, ...rest } = booking;
  return rest;
};

/** The waiting change of a record, if it waits on `paymentId` and the booking is still active. */
function waitingOn(record: BookingRecord, paymentId: string): PendingChange {
  const { change } = record.booking;
  if (!change || change.payment_id !== paymentId || isInactive(record.booking.status_id))
    throw new NoChange('unchanged');
  return change;
}

/**
 * The change made once its difference is paid (or authorised): the booking takes its new lines, money and
 * dates, keeps the new stock and releases the old stock it no longer needs; the sweeper's mark goes.
 */
export const makePaidChange =
  (ctx: BookingContext, paymentId: string) =>
  (record: BookingRecord): BookingChange => {
    const change = waitingOn(record, paymentId);
    const attempt = record.attempts?.find((one) => one.payment_id === paymentId);
    if (attempt?.status !== 'captured' && attempt?.status !== 'authorised') throw new NoChange('unchanged');
    const { booking } = record;
    return {
      next: { ...withoutChange(booking), ...change.to },
      writes: [
        ...releaseBeyond(ctx, booking.holds, change.to.holds),
        ...plainWrites([
          deletePaymentDueAction(ctx.db, { bookingId: booking.booking_id, deadline: change.deadline }),
        ]),
      ],
      event: {
        type: 'booking.changed',
        data: {
          guest_change: {
            ...(record.events.findLast((one) => one.type === 'booking.change_pending')?.data.guest_change ??
              {}),
            through_provider: 0,
            owed: 0,
            charged: attempt.captured || attempt.amount,
          },
        },
      },
    };
  };

/**
 * The change let go at its deadline, unpaid: the booking keeps what it held before, the new stock is
 * released, the attempt is marked lapsed (a payment that still arrives is given back) and the mark goes.
 */
export const lapseChange =
  (ctx: BookingContext, paymentId: string) =>
  (record: BookingRecord): BookingChange => {
    const change = waitingOn(record, paymentId);
    const attempt = record.attempts?.find((one) => one.payment_id === paymentId);
    if (!attempt || !awaitsMoney(attempt.status)) throw new NoChange('unchanged');
    const { booking } = record;
    const nowSeconds = Math.floor(ctx.now / 1000);
    const lapsed = {
      ...attempt,
      status: 'lapsed' as const,
      version: attempt.version + 1,
      updated: nowSeconds,
    };
    return {
      next: { ...withoutChange(booking), holds: change.from_holds },
      writes: [
        ...releaseBeyond(ctx, booking.holds, change.from_holds),
        ...plainWrites([
          replaceAttemptAction(ctx.db, lapsed, attempt.version),
          deletePaymentDueAction(ctx.db, { bookingId: booking.booking_id, deadline: change.deadline }),
        ]),
      ],
      event: {
        type: 'booking.change_lapsed',
        data: { payment_id: paymentId, quote: change.quote, reason: 'payment_lapsed' },
      },
    };
  };

/**
 * Each change and each guest's cancel of the booking that gave money back through the provider: the suffix of
 * its refund ids, what it gave back that way, and what of that the provider has not made yet. A cancel's
 * counts too once staff revived the booking: a refund it decided is the guest's, made or not (its answer
 * lost, the next cancel must not share it out again).
 */
export function guestRefunds(record: BookingRecord): { suffix: string; through: number; due: number }[] {
  const made = (suffix: string) =>
    (record.attempts ?? []).reduce(
      (sum, attempt) =>
        sum +
        (attempt.refunds ?? [])
          .filter((refund) => refund.refund_id === `${attempt.payment_id}_${suffix}`)
          .reduce((total, refund) => total + refund.amount, 0),
      0,
    );
  const of = (events: BookingRecord['events'], key: string, suffixOf: (nth: number) => string) =>
    events.flatMap((event, index) => {
      const through = (event.data[key] as { through_provider?: number } | undefined)?.through_provider;
      const suffix = suffixOf(index + 1);
      return through ? [{ suffix, through, due: Math.max(0, through - made(suffix)) }] : [];
    });
  return [
    // The booking's nth change refunds under `<payment_id>_c<nth>`, its nth guest's cancel `_g`, `_g2`…
    ...of(
      record.events.filter((event) => event.type === 'booking.changed'),
      'guest_change',
      (nth) => `c${nth}`,
    ),
    ...of(
      record.events.filter(
        (event) => event.type === 'booking.status_changed' && event.data.reason === 'guest_cancelled',
      ),
      'guest_cancel',
      (nth) => `g${nth > 1 ? nth : ''}`,
    ),
  ];
}

/**
 * What the booking's changes and cancels gave back that the provider has not made yet (confirmed while it was
 * down, or its answer lost): the guest's no longer, though the provider still holds it, so neither the next
 * change nor a cancel shares it out again.
 */
export const guestRefundsDue = (record: BookingRecord): number =>
  guestRefunds(record).reduce((sum, refund) => sum + refund.due, 0);
