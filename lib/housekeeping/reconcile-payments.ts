import { isInactive } from '../bookings/index.ts';
import type { Payment } from '../payments/index.ts';

// The money audit (issue 43 item 8): the table's payment attempts and transaction rows against their
// bookings, and, when the provider's listing is given, against what the provider holds. It only reports:
// money moves by a person's decision, never by a reconcile.

/** What the money audit reads of the table. */
export interface PaymentSnapshot {
  bookings: {
    booking_id: number;
    code: string;
    status_id: string;
    paid_total: number;
    giftcert?: { amount: number };
  }[];
  attempts: {
    booking_id: number;
    payment_id: string;
    provider: string;
    status: string;
    captured: number;
    refunded: number;
    applied: number;
    provider_payment_id?: string;
    flag?: string;
    /** Unix seconds. */
    created: number;
    /** Staff decided the money stays with the business although the booking was lapsed or cancelled. */
    kept?: { account_id: number; at: number };
  }[];
  /** The booking's transaction rows (`PAYMENT#`): point-of-sale payments and each change a provider payment made. */
  transactions: { booking_id: number; transaction_id: string; amount: number; method: string }[];
}

/** One way the money disagrees with itself or with the provider; `booking` is the booking code when known. */
export type PaymentDiscrepancy =
  | { kind: 'orphan_attempt'; bookingId: number; paymentId: string; captured: number }
  | { kind: 'orphan_transaction'; bookingId: number; transactionId: string; amount: number }
  | { kind: 'paid_total'; booking: string; paidTotal: number; expected: number }
  | { kind: 'not_counted'; booking: string; paymentId: string; held: number; applied: number }
  | { kind: 'rows'; booking: string; paymentId: string; rows: number; applied: number }
  | { kind: 'kept_inactive'; booking: string; paymentId: string; status: string; held: number }
  | {
      kind: 'provider_unknown';
      providerPaymentId: string;
      captured: number;
      refunded: number;
      bookingId?: string;
    }
  | { kind: 'provider_missing'; booking: string; paymentId: string; providerPaymentId: string }
  | {
      kind: 'provider_differs';
      booking: string;
      paymentId: string;
      providerPaymentId: string;
      captured: number;
      refunded: number;
      providerCaptured: number;
      providerRefunded: number;
    };

/** The provider's payments of this tenant made after `since` (Unix seconds), and the provider's name. */
export interface ProviderListing {
  name: string;
  since: number;
  payments: Payment[];
}

/** What the money audit found, and how much it looked at. */
export interface PaymentReport {
  bookings: number;
  attempts: number;
  /** The provider's payments of this tenant that were compared, when a listing was given. */
  providerPayments?: number;
  discrepancies: PaymentDiscrepancy[];
}

/**
 * Checks that every attempt and transaction row belongs to a booking, that each booking's `paid_total` is its
 * rows (plus a gift certificate while it is active), that each attempt counts what its provider took less
 * what it gave back, that no lapsed or cancelled booking holds money staff did not keep, and, given the
 * provider's payments of this tenant from `since`, that each is an attempt of ours with the same amounts.
 */
export function reconcilePayments(snapshot: PaymentSnapshot, provider?: ProviderListing): PaymentReport {
  const bookings = new Map(snapshot.bookings.map((booking) => [booking.booking_id, booking]));
  const found: PaymentDiscrepancy[] = [];
  const rowsOf = new Map<number, PaymentSnapshot['transactions']>();
  for (const row of snapshot.transactions) {
    if (!bookings.has(row.booking_id)) {
      found.push({
        kind: 'orphan_transaction',
        bookingId: row.booking_id,
        transactionId: row.transaction_id,
        amount: row.amount,
      });
      continue;
    }
    rowsOf.set(row.booking_id, [...(rowsOf.get(row.booking_id) ?? []), row]);
  }
  for (const attempt of snapshot.attempts) {
    const booking = bookings.get(attempt.booking_id);
    if (!booking) {
      found.push({
        kind: 'orphan_attempt',
        bookingId: attempt.booking_id,
        paymentId: attempt.payment_id,
        captured: attempt.captured,
      });
      continue;
    }
    const held = attempt.captured - attempt.refunded;
    const inactive = isInactive(booking.status_id);
    // A payment's change writes a row `<payment_id>-<version>` of what it moved `paid_total` by; a payment
    // at the point of sale (set_paid) is its own row, named as its attempt.
    const rows = (rowsOf.get(booking.booking_id) ?? [])
      .filter(
        (row) =>
          row.transaction_id === attempt.payment_id ||
          row.transaction_id.startsWith(`${attempt.payment_id}-`),
      )
      .reduce((sum, row) => sum + row.amount, 0);
    if (rows !== attempt.applied)
      found.push({
        kind: 'rows',
        booking: booking.code,
        paymentId: attempt.payment_id,
        rows,
        applied: attempt.applied,
      });
    if (inactive && held > 0 && !attempt.kept)
      found.push({
        kind: 'kept_inactive',
        booking: booking.code,
        paymentId: attempt.payment_id,
        status: booking.status_id,
        held,
      });
    // What it counts is what the provider holds of it, on any booking: money given back is counted off too.
    else if (attempt.flag !== 'stray' && held !== attempt.applied)
      found.push({
        kind: 'not_counted',
        booking: booking.code,
        paymentId: attempt.payment_id,
        held,
        applied: attempt.applied,
      });
  }
  for (const booking of snapshot.bookings) {
    // A gift certificate pays while the booking is active; voiding gives it back to the certificate, and
    // writes no row to say so: its row at the create is not counted, the booking's own record of it is.
    const rows = (rowsOf.get(booking.booking_id) ?? [])
      .filter((row) => row.method !== 'giftcert')
      .reduce((sum, row) => sum + row.amount, 0);
    const expected =
      rows + (booking.giftcert && !isInactive(booking.status_id) ? booking.giftcert.amount : 0);
    if (booking.paid_total !== expected)
      found.push({ kind: 'paid_total', booking: booking.code, paidTotal: booking.paid_total, expected });
  }
  if (provider) found.push(...compareProvider(snapshot, bookings, provider));
  return {
    bookings: snapshot.bookings.length,
    attempts: snapshot.attempts.length,
    ...(provider ? { providerPayments: provider.payments.length } : {}),
    discrepancies: found,
  };
}

/** The provider's payments against our attempts: each one ours, each of ours there, the same amounts. */
function compareProvider(
  snapshot: PaymentSnapshot,
  bookings: Map<number, PaymentSnapshot['bookings'][number]>,
  provider: ProviderListing,
): PaymentDiscrepancy[] {
  const found: PaymentDiscrepancy[] = [];
  const ours = new Map(
    snapshot.attempts
      .filter(
        (attempt) =>
          attempt.provider === provider.name &&
          attempt.provider_payment_id &&
          bookings.has(attempt.booking_id),
      )
      .map((attempt) => [attempt.provider_payment_id as string, attempt]),
  );
  const listed = new Set<string>();
  for (const payment of provider.payments) {
    listed.add(payment.providerPaymentId);
    const attempt = ours.get(payment.providerPaymentId);
    if (!attempt) {
      // An open checkout's payment with nothing taken is a guest still on the page, not money astray.
      if (payment.captured === 0 && payment.capturable === 0) continue;
      found.push({
        kind: 'provider_unknown',
        providerPaymentId: payment.providerPaymentId,
        captured: payment.captured,
        refunded: payment.refunded,
        ...(payment.metadata.bookingId ? { bookingId: payment.metadata.bookingId } : {}),
      });
      continue;
    }
    if (payment.captured !== attempt.captured || payment.refunded !== attempt.refunded)
      found.push({
        kind: 'provider_differs',
        booking: bookings.get(attempt.booking_id)?.code ?? String(attempt.booking_id),
        paymentId: attempt.payment_id,
        providerPaymentId: payment.providerPaymentId,
        captured: attempt.captured,
        refunded: attempt.refunded,
        providerCaptured: payment.captured,
        providerRefunded: payment.refunded,
      });
  }
  for (const [providerPaymentId, attempt] of ours) {
    // Older than the listing's window: the provider was not asked about it.
    if (listed.has(providerPaymentId) || attempt.captured === 0 || attempt.created <= provider.since)
      continue;
    found.push({
      kind: 'provider_missing',
      booking: bookings.get(attempt.booking_id)?.code ?? String(attempt.booking_id),
      paymentId: attempt.payment_id,
      providerPaymentId,
    });
  }
  return found;
}
