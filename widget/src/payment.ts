import { dateOf, formatDate, formatMoney } from './format.ts';
import type { Locale, PaymentTerms } from './types.ts';

// What a guest pays at booking (issue 43), worked out before the guest confirms from the business's terms
// (`GET company`, `company.payment`) and the cart: the same arithmetic as the service's (lib/payments/due.ts,
// which a property test holds this to), in minor units.

/** What is paid at booking: the kind and the amount in minor units. */
export interface DueNow {
  kind: 'deposit' | 'full';
  amount: number;
}

/** A percent (a number, `12.5` allowed) of an amount in minor units, rounded half-up, in integers. */
export function percentOf(minor: number, percent: number): number {
  const [whole = '0', fraction = ''] = String(percent).split('.');
  const scale = 10 ** fraction.length;
  const points = Number(whole) * scale + Number(fraction || '0');
  return Math.floor((2 * minor * points + 100 * scale) / (2 * 100 * scale));
}

/** An API amount (`"130.00"`) in minor units of a currency with `decimals` digits. */
export const toMinor = (amount: string | undefined, decimals: number): number =>
  Math.round(Number(amount ?? 0) * 10 ** decimals);

/**
 * What is paid at booking for `outstanding` minor units: nothing when the business takes none; a deposit never
 * more than what is outstanding (one that covers it is the full amount).
 */
export function dueNow(terms: PaymentTerms, outstanding: number, decimals: number): DueNow | undefined {
  if (terms.take === 'none' || outstanding <= 0) return undefined;
  const deposit =
    terms.take !== 'deposit'
      ? undefined
      : terms.deposit_percent !== undefined
        ? percentOf(outstanding, terms.deposit_percent)
        : terms.deposit_amount !== undefined
          ? toMinor(terms.deposit_amount, decimals)
          : undefined;
  if (deposit === undefined) return { kind: 'full', amount: outstanding };
  const amount = Math.min(Math.max(deposit, 1), outstanding);
  return { kind: amount >= outstanding ? 'full' : 'deposit', amount };
}

/** The payment a cart asks at booking, in words: now, and the rest later (by a date when the terms set one). */
export interface PaymentSummary {
  /** "$100.00 deposit now", "$50.85 now". */
  now: string;
  /** "$397.20 by June 20, 2027", "$397.20 later"; none when all is paid now. */
  later?: string;
  /** The card is only authorised at booking (the business charges it later). */
  authorised: boolean;
  /** How long the booking waits for the payment. */
  minutes: number;
}

/**
 * The summary a guest reads before confirming: what is paid now and what later, for a cart's `total` whose
 * first date is `start` (YYYY-MM-DD or YYYYMMDD); the rest's date only when it is still ahead of `today`.
 */
export function summarisePayment(
  terms: PaymentTerms | undefined,
  cart: { total: string; start: string | undefined },
  context: { decimals: number; locale: Locale | undefined; today: Date },
): PaymentSummary | undefined {
  if (!terms) return undefined;
  const total = toMinor(cart.total, context.decimals);
  const due = dueNow(terms, total, context.decimals);
  if (!due) return undefined;
  const money = (minor: number) =>
    formatMoney((minor / 10 ** context.decimals).toFixed(context.decimals), context.locale);
  const rest = total - due.amount;
  const days = terms.balance_due_days_before_start;
  const by = cart.start && days !== undefined ? dateOf(cart.start) : undefined;
  by?.setDate(by.getDate() - (days ?? 0));
  const when =
    by && by > context.today
      ? `by ${formatDate(by, context.locale, { year: 'numeric', month: 'long', day: 'numeric' })}`
      : 'later';
  return {
    now: `${money(due.amount)} ${due.kind === 'deposit' ? 'deposit ' : ''}now`,
    ...(rest > 0 ? { later: `${money(rest)} ${when}` } : {}),
    authorised: terms.capture === 'manual',
    minutes: terms.pay_within_minutes ?? 30,
  };
}
