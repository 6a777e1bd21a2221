import { StripeParamError } from './errors.ts';
import { formatMoney } from './objects.ts';

// The least amount Stripe charges per presentment currency, in minor units, as its documentation publishes them
// (docs.stripe.com/currencies, "Minimum and maximum charge amounts"). The stand-in keeps its own copy, apart from
// the adapter's (lib/payments/stripe-minimums.ts), so a mistake in either is seen by the other's tests. Stripe
// checks other currencies after converting them into the account's settlement currency; the stand-in has none,
// so it refuses nothing in them.

const MINIMUM_CHARGE: Readonly<Record<string, number>> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
};

/**
 * Refuses a Checkout Session whose total is under the currency's minimum charge, as Stripe does: 400
 * `invalid_request_error`, code `amount_too_small` (nothing saved under the request's idempotency key).
 */
export function checkMinimumCharge(amountTotal: number, currency: string): void {
  const least = MINIMUM_CHARGE[currency.toLowerCase()];
  if (least === undefined || amountTotal >= least) return;
  throw new StripeParamError({
    code: 'amount_too_small',
    message: `The Checkout Session's total amount due must add up to at least ${formatMoney(least, currency)} ${currency.toLowerCase()}`,
  });
}
