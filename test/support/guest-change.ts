import { freshAddress, invoke } from './events.ts';
import type { PaymentsWorld } from './payments-world.ts';

// The guest's change of issue 44 (item 4) as the tests call it: the quote, then the change holding to it,
// each from an address of its own unless one is given, on a payments world.

/** The change asked for, as query parameters: `date` moves the booking, `qty` the party. */
const changeQuery = (token: string, change: { date?: string; qty?: number }, extra = '') =>
  [
    `token=${encodeURIComponent(token)}`,
    change.date ? `start_date=${change.date}` : '',
    change.qty !== undefined ? `param[qty]=${change.qty}` : '',
    extra,
  ]
    .filter(Boolean)
    .join('&');

/** GET booking/{code}/manage/change: the quote of a change. */
export const changeQuote = (
  on: PaymentsWorld,
  booking: { code: string; token: string },
  change: { date?: string; qty?: number },
  sourceIp = freshAddress(),
) =>
  invoke(on.handlers.payments, {
    path: `booking/${booking.code}/manage/change`,
    query: changeQuery(booking.token, change),
    sourceIp,
  });

/** POST booking/{code}/manage/change holding to `quote`: the change. */
export const changeConfirm = (
  on: PaymentsWorld,
  booking: { code: string; token: string },
  change: { date?: string; qty?: number },
  quote: string,
  sourceIp = freshAddress(),
) =>
  invoke(on.handlers.payments, {
    method: 'POST',
    path: `booking/${booking.code}/manage/change`,
    query: changeQuery(booking.token, change, `quote=${encodeURIComponent(quote)}`),
    sourceIp,
  });
