import type { StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { transact } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { type PaymentProvider, PaymentProviderError, withCallLimits } from '../payments/index.ts';
import { type BookingContext, isInactive } from './booking.ts';
import { plainWrites } from './change.ts';
import { lapseChange } from './change-settle.ts';
import { applyProviderPayment } from './payment-apply.ts';
import { applyChange, covered, paymentChange, serviceContext } from './payment-change.ts';
import { paymentSettingsOf } from './payment-open.ts';
import {
  awaitsMoney,
  deletePaymentDueAction,
  listPaymentsDue,
  replaceAttemptAction,
} from './payment-records.ts';
import { getBookingRecord } from './repository.ts';
import { changeStatus } from './status.ts';
import { SERVICE } from './unpaid.ts';

// The sweeper's side of a payment (issue 43): a booking still unpaid at its deadline lapses. Its checkout is
// closed at the provider first, so nobody pays once the stock is gone (a checkout the guest completed meanwhile
// is applied instead); then, in one transaction, its status goes to `settings.payment.lapse_status` with its
// stock released, its attempt marked lapsed and its mark taken off, with the event.

/** An inactive booking's authorisation the provider refused to cancel, read back and applied: whether it was. */
async function settleRefused(
  ctx: BookingContext,
  provider: PaymentProvider,
  record: NonNullable<Awaited<ReturnType<typeof getBookingRecord>>>,
  attempt: { payment_id: string; provider_payment_id?: string | undefined },
): Promise<boolean> {
  try {
    const payment = await provider.readPayment(attempt.provider_payment_id ?? '');
    if (payment.state === 'authorised') return false;
    const options = { db: ctx.db, config: ctx.config, now: ctx.now, provider };
    const input = { bookingId: record.booking.booking_id, paymentId: attempt.payment_id, payment };
    return (await applyProviderPayment(options, input)) !== 'unknown';
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error;
    return false;
  }
}

/**
 * Cancels at the provider each authorisation of an inactive booking, and records it: nobody is charged for a
 * booking that was let go. Answers whether all were, so the mark that asked for it can go (a provider that
 * failed leaves it for the next sweep).
 */
async function releaseAuthorisations(
  ctx: BookingContext,
  provider: PaymentProvider,
  record: NonNullable<Awaited<ReturnType<typeof getBookingRecord>>>,
): Promise<boolean> {
  let all = true;
  for (const attempt of record.attempts ?? []) {
    if (attempt.status !== 'authorised' || attempt.provider !== provider.name || !attempt.provider_payment_id)
      continue;
    try {
      const payment = await provider.cancel(attempt.provider_payment_id, { paymentId: attempt.payment_id });
      await applyChange(
        ctx,
        record.booking.booking_id,
        paymentChange(ctx, {
          paymentId: attempt.payment_id,
          payment,
          keep: false,
          reason: 'booking_cancelled',
        }),
      );
    } catch (error) {
      if (!(error instanceof PaymentProviderError)) throw error;
      // Refused: no longer an authorisation at the provider. Captured as staff cancelled (a capture in flight,
      // the sweeper's or staff's) or let go there, its event late or lost: read back, it is applied as its event
      // would be, which gives captured money back; else every sweep would ask to cancel it again, for ever.
      all = error.code === 'refused' && (await settleRefused(ctx, provider, record, attempt));
    }
  }
  return all;
}

/**
 * The most one provider call of a lapse may take: one of the adapter's 8-second attempts and the start of its
 * retry. A provider that hangs costs a sweep this once (docs/payments.md).
 */
export const LAPSE_PROVIDER_CALL_MS = 10_000;

/** What a sweep's step over payments (the lapse, the scheduled capture) runs with, and its limits. */
export interface SweepPaymentsOptions {
  config: StoredConfig;
  now: number;
  provider: PaymentProvider | undefined;
  /** No booking is begun after it, and no provider call runs past it (on `clock`). */
  endBy?: number;
  clock?: () => number;
  /** The most one provider call may take. */
  providerCallMs?: number;
}

/**
 * Lets lapse every booking awaiting payment whose deadline has passed, each on its own; answers how many
 * lapsed. A provider that cannot be reached does not keep the stock held: the booking lapses, and a payment
 * that still arrives is kept only if the stock can be had again (`applyProviderPayment`). With `endBy` (on
 * `clock`), no booking is begun after it and no provider call runs past it (each at most `providerCallMs`;
 * after one that found no answer, the provider is not asked again in this run): the rest keep their marks
 * for the next sweep.
 */
export async function lapseUnpaidPayments(db: Db, options: SweepPaymentsOptions): Promise<number> {
  const { config, now } = options;
  const clock = options.clock ?? Date.now;
  const endBy = options.endBy ?? Number.POSITIVE_INFINITY;
  const callMs = options.providerCallMs ?? LAPSE_PROVIDER_CALL_MS;
  const provider = options.provider && withCallLimits(options.provider, { callMs, endBy, clock });
  const ctx = { db, config, keys: [], caller: SERVICE, requester: '', now };
  let lapsed = 0;
  for (const due of await listPaymentsDue(db, unixSeconds(now))) {
    if (clock() >= endBy) break;
    const done = () =>
      transact(db, [deletePaymentDueAction(db, { bookingId: due.booking_id, deadline: due.deadline })]);
    const record = await getBookingRecord(db, due.booking_id);
    // Cancelled or voided by staff while authorised: the authorisation is let go (its mark kept until it is).
    if (record && isInactive(record.booking.status_id) && provider) {
      if (await releaseAuthorisations(ctx, provider, record)) await done();
      continue;
    }
    // A change of dates that waits for its difference (issue 44): its own deadline, its own lapse.
    const waiting = record?.booking.change;
    if (record && waiting?.deadline === due.deadline) {
      await lapseWaitingChange({ db, config, now, provider }, record, waiting.payment_id);
      await done();
      continue;
    }
    const current = record?.booking.payment;
    const attempt = record?.attempts?.find((one) => one.payment_id === current?.payment_id);
    if (
      !record ||
      !current ||
      !attempt ||
      isInactive(record.booking.status_id) ||
      !awaitsMoney(attempt.status)
    ) {
      await done();
      continue;
    }
    // Paid otherwise meanwhile (at the desk, or on a checkout an earlier attempt left open): kept, its checkout
    // closed so nobody pays twice.
    if (covered(record.booking)) {
      if (attempt.checkout_id && provider)
        await provider
          .expireCheckout(attempt.checkout_id, { paymentId: attempt.payment_id })
          .catch((error: unknown) => {
            if (!(error instanceof PaymentProviderError)) throw error;
          });
      await done();
      continue;
    }
    // A cancelled attempt's checkout is complete or expired: there is nothing left to close or apply.
    if (attempt.checkout_id && provider && attempt.status !== 'cancelled') {
      try {
        const view = await provider.expireCheckout(attempt.checkout_id, { paymentId: attempt.payment_id });
        if (view.payment && (view.payment.state === 'captured' || view.payment.state === 'authorised')) {
          await applyProviderPayment(
            { db, config, now, provider },
            {
              bookingId: due.booking_id,
              paymentId: attempt.payment_id,
              payment: view.payment,
              checkoutId: view.checkoutId,
            },
          );
          continue;
        }
      } catch (error) {
        if (!(error instanceof PaymentProviderError)) throw error;
      }
    }
    try {
      await changeStatus(ctx, {
        reference: String(due.booking_id),
        statusId: paymentSettingsOf(config).lapse_status,
        reason: 'payment_lapsed',
        notify: true,
        also: (read) => {
          const now = read.attempts?.find((one) => one.payment_id === attempt.payment_id);
          if (!now || !awaitsMoney(now.status) || isInactive(read.booking.status_id) || covered(read.booking))
            throw new DomainError('invalid_status', 'The booking was paid or changed meanwhile');
          const marked = {
            ...now,
            status: 'lapsed' as const,
            version: now.version + 1,
            updated: unixSeconds(options.now),
          };
          return plainWrites([
            replaceAttemptAction(db, marked, now.version),
            deletePaymentDueAction(db, { bookingId: due.booking_id, deadline: due.deadline }),
          ]);
        },
      });
      lapsed += 1;
    } catch (error) {
      if (!(error instanceof DomainError && ['invalid_status', 'not_found'].includes(error.code)))
        throw error;
    }
  }
  return lapsed;
}

/**
 * A waiting change at its deadline: its checkout closed first (a payment made meanwhile makes the change
 * instead), then the change let go with its new stock. A provider that cannot be reached does not keep the
 * stock held: a payment that still arrives is given back (`applyProviderPayment`).
 */
async function lapseWaitingChange(
  options: { db: Db; config: StoredConfig; now: number; provider: PaymentProvider | undefined },
  record: NonNullable<Awaited<ReturnType<typeof getBookingRecord>>>,
  paymentId: string,
): Promise<void> {
  const { provider } = options;
  const bookingId = record.booking.booking_id;
  const attempt = record.attempts?.find((one) => one.payment_id === paymentId);
  if (attempt?.checkout_id && provider && attempt.status !== 'cancelled') {
    try {
      const view = await provider.expireCheckout(attempt.checkout_id, { paymentId });
      if (view.payment && (view.payment.state === 'captured' || view.payment.state === 'authorised')) {
        const input = { bookingId, paymentId, payment: view.payment, checkoutId: view.checkoutId };
        await applyProviderPayment({ ...options, provider }, input);
        return;
      }
    } catch (error) {
      if (!(error instanceof PaymentProviderError)) throw error;
    }
  }
  await applyChange(serviceContext(options), bookingId, lapseChange(serviceContext(options), paymentId));
}
