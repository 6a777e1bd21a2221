import { addDays, type Ymd } from '#lib/kernel/dates.ts';
import { makeTenant, makeTenantJson } from '#test/support/tenant.ts';

/** The item the contention scenario races for: private, so it never shows in lists. */
export const CONTENDED_ITEM = 9_999;
/** How many units the contention scenario races for. */
export const CONTENDED_STOCK = 10;
/** The item whose channel feed the feed scenario reads: a year ahead, closed on Sundays. */
export const FEED_ITEM = 9_998;
/** How far ahead the feed item sells, so its feed lists 365 days. */
export const FEED_DAYS = 365;

/**
 * A generated tenant of `size` nightly items with two parameters (adults, children), a season of rates
 * and a weekend rate over the benchmark's dates, and stock large enough never to run out; plus one
 * private item with 10 units for the contention run. With `payment`, the tenant takes it at booking
 * (`settings.payment`, issue 43); without, it takes none.
 */
export function benchTenant(size: number, firstDate: Ymd, payment?: Record<string, unknown>) {
  const season = {
    name: 'Season',
    start_date: firstDate,
    end_date: addDays(firstDate, 120),
    price: { param: { adults: '90.00', children: '40.00' } },
  };
  const weekend = { name: 'Weekend', dow: [5, 6], price: { param: { adults: '110.00' } } };
  const item = (id: number, stock: number, visibility = '*') => ({
    item_id: id,
    sku: `item-${id}`,
    name: `Cabin ${id}`,
    unit: 'N',
    category_id: 1,
    pos: id,
    visibility,
    stock,
    params: {
      adults: { price: '80.00', def: 2, req: true, min: 1, max: 6 },
      children: { price: '30.00', def: 0, max: 4 },
    },
    rates: [season, weekend],
  });
  return makeTenant(
    makeTenantJson({
      tenant: `bench-${size}`,
      params: { adults: { lbl: 'Adults' }, children: { lbl: 'Children' } },
      // The load comes from one address: limits high enough never to refuse it, but still counted.
      settings: {
        booking_code_prefix: 'BENCH',
        hold_minutes: 60,
        max_session_minutes: 120,
        limits: {
          requests_per_minute: 100_000,
          writes_per_minute: 100_000,
          staff_requests_per_minute: 100_000,
          client_hold_share: 1,
          open_sessions_per_client: 100,
          unpaid_bookings_per_client: 1_000_000,
        },
        ...(payment ? { payment } : {}),
      },
      items: [
        ...Array.from({ length: size }, (_, index) => item(index + 1, 100_000)),
        item(CONTENDED_ITEM, CONTENDED_STOCK, 'P'),
        { ...item(FEED_ITEM, 1, 'P'), rules: { closed_dow: [0], advance_days: FEED_DAYS } },
      ],
      taxes: [{ tax_id: 'vat', name: 'VAT', rate: 13 }],
    }),
  );
}
