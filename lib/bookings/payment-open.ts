import { randomUUID } from 'node:crypto';
import { DEFAULT_PAYMENT, type PaymentSettings, type StoredConfig } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { bookingKey, bookingPaymentAttemptKey } from '../kernel/storage/keys.ts';
import { ConditionsFailedError, type TransactItem, transact } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { checkoutExpiresAt, dueNow, type PaymentProvider, PaymentProviderError } from '../payments/index.ts';
import type { BookingContext } from './booking.ts';
import {
  type PaymentOptions,
  putAttemptAction,
  replaceAttemptAction,
  type StoredPaymentAttempt,
} from './payment-records.ts';
import { getBookingRecord, type StoredBooking } from './repository.ts';

// The create's side of a payment (issue 43): the attempt planned into the booking's own transaction, then the
// provider's hosted checkout opened for it once the booking (and its stock) is committed. A provider that fails
// leaves the booking awaiting payment with no checkout; the same create repeated opens one (docs/payments.md).

/** The tenant's payment settings, today's behaviour (none) for a configuration stored before they existed. */
export const paymentSettingsOf = (config: StoredConfig): PaymentSettings =>
  config.settings.payment ?? DEFAULT_PAYMENT;

/**
 * The attempt a new booking starts with when the guest is to pay at booking: a customer's create (staff and
 * partners settle with the business themselves), under `settings.payment`, for what is outstanding.
 */
function planAttempt(
  ctx: BookingContext & { payment?: PaymentOptions },
  booking: StoredBooking,
): StoredPaymentAttempt | undefined {
  if (!ctx.payment || ctx.caller.kind !== 'customer') return undefined;
  const settings = paymentSettingsOf(ctx.config);
  const { currency } = ctx.config.locale;
  const due = dueNow(
    settings,
    booking.totals.total - booking.paid_total,
    ctx.payment.provider?.minimumCharge(currency),
  );
  if (!due) return undefined;
  const nowSeconds = unixSeconds(ctx.now);
  return {
    ...opening(nowSeconds, nowSeconds + settings.pay_within_minutes * 60),
    booking_id: booking.booking_id,
    provider: ctx.payment.provider?.name ?? 'stripe',
    kind: due.kind,
    amount: due.amount,
    currency,
    capture: settings.capture,
    return_url: ctx.payment.returnUrl.replaceAll('{code}', booking.code),
    cancel_url: ctx.payment.cancelUrl.replaceAll('{code}', booking.code),
  };
}

/** What every new attempt starts as: a new id, opening, nothing taken yet, its checkout's closing time. */
const opening = (nowSeconds: number, deadline: number) => ({
  payment_id: `pay_${randomUUID().replaceAll('-', '')}`,
  status: 'opening' as const,
  version: 1,
  deadline,
  checkout_expires_at: checkoutExpiresAt(nowSeconds, deadline),
  captured: 0,
  refunded: 0,
  applied: 0,
  created: nowSeconds,
  updated: nowSeconds,
});

/** A new booking with the attempt it awaits (none when nothing is paid at booking) and its `payment`. */
export function withPayment(
  ctx: BookingContext & { payment?: PaymentOptions },
  made: StoredBooking,
): { booking: StoredBooking; attempt?: StoredPaymentAttempt } {
  const attempt = planAttempt(ctx, made);
  if (!attempt) return { booking: made };
  const { payment_id, amount, deadline } = attempt;
  const kind = attempt.kind as 'deposit' | 'full';
  return { booking: { ...made, payment: { payment_id, kind, amount, deadline } }, attempt };
}

/**
 * Stripe opens a checkout for 30 minutes at least: the first request, repeated under its key, must still ask
 * for that much (with 30 s for the call), or a new attempt is made with a new key.
 */
const REUSABLE_SECONDS = 30 * 60 + 30;

/**
 * A fresh attempt in place of one whose checkout never opened and can no longer open with its first request
 * (its key would be sent with other values), or one the provider closed (given here without its checkout and
 * payment): for the same amount and deadline, written beside it, and made the booking's current one.
 */
export async function renewAttempt(
  db: Db,
  stale: StoredPaymentAttempt,
  nowSeconds: number,
): Promise<StoredPaymentAttempt | undefined> {
  const fresh: StoredPaymentAttempt = { ...stale, ...opening(nowSeconds, stale.deadline) };
  const point: TransactItem = {
    Update: {
      TableName: db.tableName,
      Key: bookingKey(stale.booking_id),
      // The version moves too, so a change that read the booking before cannot put the stale attempt back.
      UpdateExpression: 'SET #payment.payment_id = :fresh, #version = #version + :one',
      ConditionExpression: '#payment.payment_id = :stale',
      ExpressionAttributeNames: { '#payment': 'payment', '#version': 'version' },
      ExpressionAttributeValues: { ':fresh': fresh.payment_id, ':stale': stale.payment_id, ':one': 1 },
    },
  };
  try {
    await transact(db, [putAttemptAction(db, fresh), point]);
    return fresh;
  } catch (error) {
    if (error instanceof ConditionsFailedError) return undefined;
    throw error;
  }
}

/** The booking's current attempt as stored now. */
async function currentAttempt(db: Db, bookingId: number) {
  const record = await getBookingRecord(db, bookingId);
  const id = record?.booking.payment?.payment_id;
  return { record, attempt: record?.attempts?.find((one) => one.payment_id === id) };
}

/**
 * Opens the provider's checkout for a booking's current attempt if it has none yet and may still be paid:
 * answers the attempt as it stands after (with its `checkout_url` when open). A provider that fails, or none
 * configured, leaves the attempt `opening`: the booking keeps its stock until its deadline, and a repeated
 * create tries again.
 */
export async function ensureCheckout(
  ctx: BookingContext & { payment?: PaymentOptions },
  booking: StoredBooking,
  known?: StoredPaymentAttempt,
): Promise<StoredPaymentAttempt | undefined> {
  let attempt = known ?? (await currentAttempt(ctx.db, booking.booking_id)).attempt;
  const provider = ctx.payment?.provider;
  const nowSeconds = unixSeconds(ctx.now);
  if (attempt?.status !== 'opening' || !provider || nowSeconds >= attempt.deadline) return attempt;
  if (attempt.checkout_expires_at - nowSeconds < REUSABLE_SECONDS) {
    attempt =
      (await renewAttempt(ctx.db, attempt, nowSeconds)) ??
      (await currentAttempt(ctx.db, booking.booking_id)).attempt;
    if (attempt?.status !== 'opening') return attempt;
  }
  return openAttemptCheckout(ctx, booking, attempt);
}

/**
 * Opens the provider's checkout for one attempt of a booking (opening, within its checkout's time) and answers
 * the attempt as it stands after: pending with its checkout, or as it was when the provider failed.
 */
export async function openAttemptCheckout(
  ctx: Pick<BookingContext, 'db' | 'config' | 'now'> & { payment?: PaymentOptions },
  booking: StoredBooking,
  attempt: StoredPaymentAttempt,
  description = `${attempt.kind === 'deposit' ? 'Deposit' : 'Payment'} for booking ${booking.code}`,
): Promise<StoredPaymentAttempt | undefined> {
  const provider = ctx.payment?.provider;
  if (!provider) return attempt;
  const nowSeconds = unixSeconds(ctx.now);
  let checkout: Awaited<ReturnType<PaymentProvider['startCheckout']>>;
  try {
    checkout = await provider.startCheckout({
      paymentId: attempt.payment_id,
      bookingId: String(booking.booking_id),
      bookingCode: booking.code,
      tenantId: ctx.config.tenant,
      amount: attempt.amount,
      currency: attempt.currency,
      description,
      ...(booking.form.customer_email ? { customerEmail: booking.form.customer_email } : {}),
      expiresAt: attempt.checkout_expires_at,
      capture: attempt.capture,
      returnUrl: attempt.return_url,
      cancelUrl: attempt.cancel_url,
    });
  } catch (error) {
    if (error instanceof PaymentProviderError) return attempt;
    throw error;
  }
  const opened: StoredPaymentAttempt = {
    ...attempt,
    status: 'pending',
    version: attempt.version + 1,
    checkout_id: checkout.checkoutId,
    checkout_url: checkout.url,
    updated: nowSeconds,
  };
  try {
    await transact(ctx.db, [replaceAttemptAction(ctx.db, opened, attempt.version)]);
    return opened;
  } catch (error) {
    // The provider's webhook (or a repeated create) got there first: what it wrote is the truth, and the
    // checkout it may not have known is added to it (where the guest was sent), if still missing.
    if (!(error instanceof ConditionsFailedError)) throw error;
    await noteCheckout(ctx.db, attempt, checkout).catch((noted: unknown) => {
      if (!(noted instanceof ConditionsFailedError)) throw noted;
    });
    const record = await getBookingRecord(ctx.db, booking.booking_id);
    return record?.attempts?.find((one) => one.payment_id === attempt.payment_id);
  }
}

/** Records an attempt's checkout on it when nothing recorded one yet (its state is left as it is). */
const noteCheckout = (db: Db, attempt: StoredPaymentAttempt, checkout: { checkoutId: string; url: string }) =>
  transact(db, [
    {
      Update: {
        TableName: db.tableName,
        Key: bookingPaymentAttemptKey(attempt.booking_id, attempt.payment_id),
        UpdateExpression: 'SET checkout_id = :id, checkout_url = :url',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(checkout_url)',
        ExpressionAttributeValues: { ':id': checkout.checkoutId, ':url': checkout.url },
      },
    },
  ]);
