import type { StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { unixSeconds } from '../kernel/time.ts';
import type { Payment } from '../payments/index.ts';
import { type BookingContext, isInactive, knownStatuses } from './booking.ts';
import { type BookingChange, changeBooking, plainWrites, settleBudget } from './change.ts';
import { deleteCaptureMarkAction, putCaptureMarkAction, scheduledCaptureAt } from './payment-capture-mark.ts';
import {
  type AttemptStatus,
  deletePaymentDueAction,
  manualRefunded,
  putPaymentDueAction,
  replaceAttemptAction,
  type StoredPaymentAttempt,
  type StoredRefund,
} from './payment-records.ts';
import { type getBookingRecord, putPaymentAction, type StoredBooking } from './repository.ts';
import { firstActiveStatus, SERVICE } from './unpaid.ts';

// One provider payment's change to its booking and attempt (issue 43): the attempt's next state, taken only
// forward (its version), and what the money does to the booking, in one transaction with its event. The flow
// around it (a lapsed booking revived, money given back) is payment-apply.ts.

/**
 * Whether a booking awaiting payment was paid otherwise: in full, or moved to a paid status (staff's set_paid,
 * a payment on a checkout an earlier attempt left open); review of issue 43.
 */
export const covered = (booking: StoredBooking): boolean =>
  booking.paid_total >= booking.totals.total || booking.status_id === 'PAID' || booking.status_id === 'PART';

/** How far along an attempt is: a write applies only to go further (or to record more money moving). */
const RANK: Record<AttemptStatus, number> = {
  opening: 0,
  pending: 1,
  failed: 1,
  lapsed: 1,
  authorised: 2,
  captured: 3,
  cancelled: 4,
};

/**
 * The attempt as the provider's payment says it is now (with `refund`, a refund staff made), or undefined when
 * that is not a step forward.
 */
export function advanceAttempt(
  attempt: StoredPaymentAttempt,
  payment: Payment,
  options: { nowSeconds: number; checkoutId?: string | undefined; refund?: StoredRefund | undefined },
): StoredPaymentAttempt | undefined {
  // A decline of an attempt still open is recorded (the guest may still pay); nothing else goes sideways.
  const declined =
    payment.state === 'failed' && (attempt.status === 'opening' || attempt.status === 'pending');
  const refunds = options.refund ? [...(attempt.refunds ?? []), options.refund] : attempt.refunds;
  // The provider never hears of what staff paid back by hand: that is added to what it says it refunded.
  const refunded = Math.max(attempt.refunded, payment.refunded + manualRefunded({ refunds }));
  const forward =
    declined ||
    options.refund !== undefined ||
    RANK[payment.state] > RANK[attempt.status] ||
    payment.captured > attempt.captured ||
    refunded > attempt.refunded;
  if (!forward) return undefined;
  // A later lapse is kept: the booking let go of its stock, whatever the provider did after.
  const status =
    attempt.status === 'lapsed' && RANK[payment.state] <= RANK.lapsed ? attempt.status : payment.state;
  return {
    ...attempt,
    status,
    version: attempt.version + 1,
    provider_payment_id: payment.providerPaymentId,
    ...(options.checkoutId && !attempt.checkout_id ? { checkout_id: options.checkoutId } : {}),
    captured: Math.max(attempt.captured, payment.captured),
    refunded,
    ...(refunds ? { refunds } : {}),
    ...(payment.captured > attempt.amount ? { flag: 'overpaid' as const } : {}),
    ...(payment.failure ? { failure: payment.failure.code } : {}),
    updated: options.nowSeconds,
  };
}

/** The sweeper's capture mark of an attempt captured at `captureAt`. */
const markOf = (attempt: StoredPaymentAttempt, captureAt: number) => ({
  booking_id: attempt.booking_id,
  payment_id: attempt.payment_id,
  capture_at: captureAt,
});

/** Thrown inside a change to leave the booking as it is. */
export class NoChange extends Error {
  constructor(readonly outcome: 'unchanged' | 'unknown' | 'inactive') {
    super(outcome);
  }
}

/** The service acting on a booking at `now`. */
export const serviceContext = (options: { db: Db; config: StoredConfig; now: number }): BookingContext => ({
  db: options.db,
  config: options.config,
  keys: [],
  caller: SERVICE,
  requester: '',
  now: options.now,
});

/**
 * The status money moving leaves an active booking in: PAID when it is all paid, PART when some is. Money given
 * back at the provider (a refund in its dashboard, a dispute) moves a PAID or PART booking the other way, to
 * PART or, with nothing left paid, to the status it awaited payment in; any other status is staff's and stays.
 */
function statusAfter(config: StoredConfig, booking: StoredBooking, paid: number, delta: number): string {
  const from = booking.status_id;
  if (delta === 0 || (delta > 0 && paid <= 0) || (delta < 0 && from !== 'PAID' && from !== 'PART'))
    return from;
  const to = paid >= booking.totals.total ? 'PAID' : paid > 0 ? 'PART' : firstActiveStatus(config);
  return knownStatuses(config).has(to) ? to : from;
}

/**
 * The change a payment makes to its booking: the attempt's next state, `paid_total` by what the provider took
 * less what it gave back, the status, a transaction row, the sweeper's mark and the client's budget gone once
 * the booking is paid or authorised, and the event. With `keep` false (a lapsed or cancelled booking) money taken
 * is recorded on the attempt only, and money given back leaves `paid_total` (issue 43 item 8).
 */
export function paymentChange(
  ctx: BookingContext,
  input: {
    paymentId: string;
    payment: Payment;
    checkoutId?: string | undefined;
    keep: boolean;
    /**
     * Why money is not kept (`keep` false): the booking lapsed, or the payment is not its attempt's own; or why
     * it was captured (`scheduled_capture`: the sweeper, `capture_days_before_start`).
     */
    reason?: 'lapsed' | 'stray' | 'booking_cancelled' | 'change_lapsed' | 'scheduled_capture';
    /** A refund staff made, recorded on the attempt (once: a refund id already there changes nothing). */
    refund?: StoredRefund;
  },
): (record: Awaited<ReturnType<typeof getBookingRecord>> & object) => BookingChange {
  return (record) => {
    const { booking } = record;
    const attempt = record.attempts?.find((one) => one.payment_id === input.paymentId);
    if (!attempt) throw new NoChange('unknown');
    // Staff give money back whatever the booking's status (a cancelled booking's most of all).
    if (input.keep && !input.refund && isInactive(booking.status_id)) throw new NoChange('inactive');
    const nowSeconds = unixSeconds(ctx.now);
    const refund = attempt.refunds?.some((one) => one.refund_id === input.refund?.refund_id)
      ? undefined
      : input.refund;
    const next = advanceAttempt(attempt, input.payment, {
      nowSeconds,
      checkoutId: input.checkoutId,
      refund,
    });
    if (!next) throw new NoChange('unchanged');
    if (input.keep && !input.refund && next.status === 'authorised' && attempt.status !== 'authorised') {
      // The provider's time of the payment, not this event's: a late event must not push the capture past
      // the authorisation's end.
      const captureAt = scheduledCaptureAt(
        ctx.config,
        booking,
        Math.min(input.payment.created || nowSeconds, nowSeconds),
      );
      if (captureAt !== undefined) next.capture_at = captureAt;
    }
    // Not kept, money still moves down: what was counted and is now given back leaves paid_total.
    const held = next.captured - next.refunded - attempt.applied;
    const delta = input.keep ? held : Math.min(0, held);
    next.applied = attempt.applied + delta;
    const paid = booking.paid_total + delta;
    const from = booking.status_id;
    const to = statusAfter(ctx.config, booking, paid, delta);
    let after: StoredBooking = { ...booking, status_id: to, paid_total: paid };
    const writes = plainWrites([replaceAttemptAction(ctx.db, next, attempt.version)]);
    let settle: BookingChange['settle'] = [];
    const current = booking.payment?.payment_id === attempt.payment_id ? booking.payment : undefined;
    if (input.keep && !input.refund && (next.status === 'authorised' || next.status === 'captured')) {
      if (current)
        writes.push(
          ...plainWrites([
            deletePaymentDueAction(ctx.db, { bookingId: booking.booking_id, deadline: current.deadline }),
          ]),
        );
      ({ next: after, settle } = settleBudget(ctx, { booking, next: after, releasesStock: false }));
    }
    // An authorisation the sweeper is to capture goes on its list, and off it once it is captured or let go.
    if (next.capture_at !== undefined && attempt.status !== 'authorised')
      writes.push(...plainWrites([putCaptureMarkAction(ctx.db, markOf(next, next.capture_at))]));
    if (attempt.status === 'authorised' && attempt.capture_at !== undefined && next.status !== 'authorised')
      writes.push(...plainWrites([deleteCaptureMarkAction(ctx.db, markOf(attempt, attempt.capture_at))]));
    // The booking's own attempt cancelled at the provider (an authorisation let go, a checkout closed early):
    // nothing holds the stock but its deadline, so the sweeper's mark is put back (review of issue 43).
    if (input.keep && next.status === 'cancelled' && current && !covered(after))
      writes.push(
        ...plainWrites([
          putPaymentDueAction(ctx.db, { bookingId: booking.booking_id, deadline: current.deadline }),
        ]),
      );
    const payments = [];
    if (delta !== 0) {
      const row = {
        transaction_id: `${next.payment_id}-${next.version}`,
        amount: delta,
        method: refund?.method === 'manual' ? 'manual' : next.provider,
        account_id: 0,
        date: nowSeconds,
      };
      payments.push(row);
      writes.push(...plainWrites([putPaymentAction(ctx.db, booking.booking_id, row)]));
    }
    const data = {
      payment_id: next.payment_id,
      provider: next.provider,
      kind: next.kind,
      status: next.status,
      ...(next.flag ? { flag: next.flag } : {}),
      ...(refund ? { refund_id: refund.refund_id, method: refund.method } : {}),
      ...(input.keep && !input.reason ? {} : { reason: input.reason ?? 'lapsed' }),
    };
    const type =
      delta > 0
        ? 'payment.created'
        : delta < 0 || next.refunded > attempt.refunded || refund
          ? 'payment.refunded'
          : `payment.${next.status}`;
    const moved = { from, to, notify: true, reason: delta < 0 ? 'payment_refunded' : 'payment' };
    return {
      next: after,
      writes,
      settle,
      event: {
        type,
        data: { ...moved, ...data, amount: Math.abs(delta || next.refunded - attempt.refunded) },
      },
      ...(from !== to
        ? {
            preceding: {
              type: 'booking.status_changed',
              data: moved,
              booking: { ...after, paid_total: booking.paid_total },
            },
          }
        : {}),
      added: { payments },
    };
  };
}

/** Applies one change, answering what it did instead of throwing for a change with nothing to do. */
export async function applyChange(
  ctx: BookingContext,
  bookingId: number,
  change: ReturnType<typeof paymentChange>,
) {
  try {
    await changeBooking(ctx, String(bookingId), change);
    return 'applied' as const;
  } catch (error) {
    if (error instanceof NoChange) return error.outcome;
    if (error instanceof DomainError && error.code === 'not_found') return 'unknown' as const;
    throw error;
  }
}
