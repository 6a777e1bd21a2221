import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { paymentTerms } from '#functions/meta/company.ts';
import type { PaymentSettings } from '#lib/config/index.ts';
import { settingsSchema } from '#lib/config/settings-schema.ts';
import { dueNow as serviceDueNow } from '#lib/payments/index.ts';
import { dueNow, summarisePayment } from '#widget/src/payment.ts';

// Issue 43, item 7: before the guest confirms, the widget says what is paid now and what later, from the
// business's terms as `GET company` gives them. Its arithmetic is the service's: a property test holds the
// widget's amount to the one the create asks, through the terms as the company route presents them.

const settings = (payment: Record<string, unknown>): PaymentSettings =>
  settingsSchema.parse({ booking_code_prefix: 'TEST', payment }).payment;

const locale = { id: 'en_CA', lang: 'en', currency: 'CAD' };
const termsOf = (payment: Record<string, unknown>, decimals = 2) =>
  paymentTerms({ settings: { payment: settings(payment) }, locale: { decimals } } as never);

describe("the widget's amount due at booking", () => {
  it('is the amount the service asks, for any terms, total and currency digits', () => {
    const deposit = fc.oneof(
      fc.record({
        percent: fc
          .integer({ min: 1, max: 10_000 })
          .map((hundredths) => hundredths / 100)
          .filter((percent) => percent <= 100),
      }),
      fc.record({ amount: fc.integer({ min: 1, max: 100_000_000 }) }),
    );
    const payment = fc.oneof(
      fc.constant({ take: 'none' }),
      fc.constant({ take: 'full' }),
      deposit.map((chosen) => ({ take: 'deposit', deposit: chosen })),
    );
    fc.assert(
      fc.property(
        payment,
        fc.integer({ min: 0, max: 50_000_000 }),
        fc.constantFrom(0, 2, 3),
        (chosen, total, digits) => {
          const service = serviceDueNow(settings(chosen), total);
          expect(dueNow(termsOf(chosen, digits), total, digits)).toEqual(service);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('rounds a percent half-up to the minor unit, and a deposit over the total is the full amount', () => {
    expect(dueNow(termsOf({ take: 'deposit', deposit: { percent: 12.5 } }), 1_004, 2)).toEqual({
      kind: 'deposit',
      amount: 126,
    });
    expect(dueNow(termsOf({ take: 'deposit', deposit: { amount: 10_000 } }), 5_085, 2)).toEqual({
      kind: 'full',
      amount: 5_085,
    });
    expect(dueNow(termsOf({ take: 'none' }), 5_085, 2)).toBeUndefined();
  });
});

describe('the summary before confirming', () => {
  const today = new Date(2027, 4, 1);
  const terms = termsOf({ take: 'deposit', deposit: { percent: 30 }, balance_due_days_before_start: 14 });

  it('says the deposit now and the rest by its date, counted back from the first date booked', () => {
    expect(
      summarisePayment(terms, { total: '300.00', start: '20270715' }, { decimals: 2, locale, today }),
    ).toEqual({
      now: '$90.00 deposit now',
      later: '$210.00 by July 1, 2027',
      authorised: false,
      minutes: 30,
    });
  });

  it('says "later" when that date has passed, and nothing later when all is paid now', () => {
    const soon = summarisePayment(
      terms,
      { total: '300.00', start: '20270510' },
      { decimals: 2, locale, today },
    );
    expect(soon?.later).toBe('$210.00 later');
    const full = termsOf({ take: 'full', capture: 'manual', pay_within_minutes: 45 });
    expect(
      summarisePayment(full, { total: '50.85', start: '20270715' }, { decimals: 2, locale, today }),
    ).toEqual({ now: '$50.85 now', authorised: true, minutes: 45 });
  });

  it('is nothing when the business takes no payment at booking, or its terms are unknown', () => {
    const none = termsOf({ take: 'none' });
    expect(
      summarisePayment(none, { total: '300.00', start: '20270715' }, { decimals: 2, locale, today }),
    ).toBe(undefined);
    expect(
      summarisePayment(undefined, { total: '300.00', start: undefined }, { decimals: 2, locale, today }),
    ).toBe(undefined);
  });
});
