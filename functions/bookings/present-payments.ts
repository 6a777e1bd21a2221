import type { StoredPaymentAttempt } from '#lib/bookings/index.ts';

// A file of its own: the payments function presents payments too, without the rest of the booking's record.

/**
 * A booking's payments as staff see them (issue 43): each attempt at a provider or at the point of sale, as
 * recorded, oldest first, with its amounts as money and each refund staff made.
 */
export const presentPayments = (attempts: StoredPaymentAttempt[] = [], money: (minor: number) => string) =>
  [...attempts]
    .sort((a, b) => a.created - b.created)
    .map((attempt) => ({
      ...attempt,
      id: attempt.payment_id,
      amount: money(attempt.amount),
      captured: money(attempt.captured),
      refunded: money(attempt.refunded),
      applied: money(attempt.applied),
      refunds: (attempt.refunds ?? []).map((refund) => ({ ...refund, amount: money(refund.amount) })),
    }));
