import type { StoredConfig } from '#lib/config/index.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { formatAmount } from '#lib/kernel/money.ts';
import { utcOffsetHours } from '#lib/kernel/time.ts';

/**
 * How the business takes payment at booking (`settings.payment`, issue 43), so a client can say before the
 * guest confirms what is paid now and what later: the deposit (a percent of what is due, or an amount), the
 * minutes the booking waits for it, whether the card is charged or only authorised, and when the rest is due.
 */
export function paymentTerms({ settings, locale }: Pick<StoredConfig, 'settings' | 'locale'>) {
  const payment = settings.payment;
  if (!payment || payment.take === 'none') return { take: 'none' as const };
  const deposit = payment.take === 'deposit' ? payment.deposit : undefined;
  return {
    take: payment.take,
    ...(deposit && 'percent' in deposit ? { deposit_percent: deposit.percent } : {}),
    ...(deposit && 'amount' in deposit
      ? { deposit_amount: formatAmount(deposit.amount, locale.decimals) }
      : {}),
    pay_within_minutes: payment.pay_within_minutes,
    capture: payment.capture,
    ...(payment.balance_due_days_before_start === undefined
      ? {}
      : { balance_due_days_before_start: payment.balance_due_days_before_start }),
  };
}

/** GET company: the company fields of reference §2.7 plus phone, utc_offset, currency and payment terms. */
export const getCompany: RouteHandler = async ({ input, config, now }) => {
  parseInput(noParameters, input);
  const { company, locale } = config;
  return {
    body: {
      company: {
        url: company.url,
        name: company.name,
        plan_id: company.plan_id,
        email: company.email,
        phone: company.phone,
        address: company.address,
        city: company.city,
        postal_zip: company.postal_zip,
        region: company.region,
        region_id: company.region_id,
        country_id: company.country_id,
        currency_id: locale.currency,
        currency: { symbol: locale.currency_symbol, decimals: locale.decimals },
        timezone: company.timezone,
        utc_offset: utcOffsetHours(company.timezone, now),
        locale_id: locale.id,
        lang_id: locale.lang,
        date_format: company.date_format,
        time_format: company.time_format,
        payment: paymentTerms(config),
      },
    },
    request: { records: 1 },
  };
};
