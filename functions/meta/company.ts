import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { utcOffsetHours } from '#lib/kernel/time.ts';

/** GET company: the company fields of reference §2.7 plus phone, utc_offset and currency. */
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
      },
    },
    request: { records: 1 },
  };
};
