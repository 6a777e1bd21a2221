// Part of the Stripe adapter: the least amount Stripe charges per presentment currency, in minor units, as its
// documentation publishes them (docs.stripe.com/currencies, "Minimum and maximum charge amounts"). A charge in
// another currency must come to 0.50 USD or so once converted into the account's settlement currency, which
// only Stripe knows: for those, none is known here (1).

const MINIMUM_CHARGE: Readonly<Record<string, number>> = {
  USD: 50,
  AED: 200,
  AUD: 50,
  BGN: 100,
  BRL: 50,
  CAD: 50,
  CHF: 50,
  CZK: 1500,
  DKK: 250,
  EUR: 50,
  GBP: 30,
  HKD: 400,
  HUF: 17500,
  INR: 50,
  JPY: 50,
  MXN: 1000,
  MYR: 200,
  NOK: 300,
  NZD: 50,
  PLN: 200,
  RON: 200,
  SEK: 300,
  SGD: 50,
  THB: 1000,
};

/** The least Stripe charges in `currency` (ISO 4217, any case), in minor units; 1 where it publishes none. */
export const stripeMinimumCharge = (currency: string): number => MINIMUM_CHARGE[currency.toUpperCase()] ?? 1;
