import type { PaymentSettings } from '../config/index.ts';
import { percentOf } from '../kernel/money.ts';

// What a booking asks of the guest at creation under `settings.payment`, and until when: pure, in minor
// units and Unix seconds, so the create and the tests agree on the arithmetic.

/** The kind of a payment attempt: what it pays for. */
export type PaymentKind = 'deposit' | 'full' | 'balance' | 'pos' | 'change';

/** What the guest pays now: the kind of the attempt and its amount (at least the provider's minimum). */
export interface DueNow {
  kind: 'deposit' | 'full';
  amount: number;
}

/**
 * What is to be paid at booking for `outstanding` (the total less what a gift certificate paid): none when the
 * tenant takes no payment, or when what is outstanding is less than the provider's `minimum` charge (it could
 * not be charged); a deposit is at least that minimum and never more than what is outstanding, so a deposit
 * that would cover it all is the full amount.
 */
export function dueNow(settings: PaymentSettings, outstanding: number, minimum = 1): DueNow | undefined {
  const least = Math.max(minimum, 1);
  if (settings.take === 'none' || outstanding < least) return undefined;
  if (settings.take === 'full' || !settings.deposit) return { kind: 'full', amount: outstanding };
  const deposit =
    'percent' in settings.deposit
      ? percentOf(outstanding, settings.deposit.percent)
      : settings.deposit.amount;
  const amount = Math.min(Math.max(deposit, least), outstanding);
  return { kind: amount >= outstanding ? 'full' : 'deposit', amount };
}

/** Stripe opens a Checkout Session for at least 30 minutes and at most 24 hours from its creation. */
const CHECKOUT_MIN_SECONDS = 30 * 60;
const CHECKOUT_MAX_SECONDS = 24 * 3600;
/** Room for the provider's clock and the time the request takes, on either side. */
const CLOCK_MARGIN_SECONDS = 60;

/**
 * When the hosted checkout closes for a payment due by `deadline`: the deadline itself, unless the provider's
 * bounds forbid it. A deadline under 30 minutes away gets a checkout open 31 minutes, which the sweeper closes
 * at the deadline (the booking lets go of its stock then, not when the checkout would have closed).
 */
export function checkoutExpiresAt(nowSeconds: number, deadline: number): number {
  const earliest = nowSeconds + CHECKOUT_MIN_SECONDS + CLOCK_MARGIN_SECONDS;
  const latest = nowSeconds + CHECKOUT_MAX_SECONDS - CLOCK_MARGIN_SECONDS;
  return Math.min(Math.max(deadline, earliest), latest);
}
