import type { Tenant } from '#lib/config/index.ts';
import { ERRORS, type ErrorId } from '#lib/http/errors.ts';
import { IGNORED_HEADER_BUDGET } from '#lib/http/ignored.ts';
import type { Route } from '#lib/http/routes.ts';
import { docsOf, type Need } from './route-docs.ts';

// The vocabulary of the OpenAPI document that is ours to write rather than generated from a schema:
// which errors each route may answer, the headers, the summaries and tag descriptions, who may call a
// route, and the parameter examples (taken from the demo tenant).

/** The error ids every route may answer, besides its own. */
const COMMON_ERRORS: ErrorId[] = [
  'validation_error',
  'forbidden',
  // Bodies are read before routing, whatever the method.
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
];

/** Every error id a route may answer, in the order of the error table. */
export function errorIdsOf(route: Route): ErrorId[] {
  const own = new Set<ErrorId>([
    ...COMMON_ERRORS,
    ...(docsOf(route.name).errors ?? []),
    ...(route.path.includes('{') ? (['not_found'] as ErrorId[]) : []),
  ]);
  return (Object.keys(ERRORS) as ErrorId[]).filter((id) => own.has(id));
}

/** The response headers of the API, as the document's components. */
export const HEADERS = {
  'X-Request-Id': {
    description: 'The correlation id of this request: in every log line and in the details of a 500.',
    schema: { type: 'string' },
  },
  'X-Ignored-Parameters': {
    description:
      'Parameters sent that the endpoint does not read (`request.ignored` has them as sent), comma-separated. ' +
      'Each name is its UTF-8 bytes with every byte outside visible ASCII, and `%`, `,` and `+`, ' +
      'percent-encoded (`form[имя]` is `form[%D0%B8%D0%BC%D1%8F]`), so `decodeURIComponent` gives the name ' +
      `back. At most ${IGNORED_HEADER_BUDGET} characters: when names do not fit, the list stops at a whole name and ends ` +
      'with `+N`, the number left out (every name is still in `request.ignored`).',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
};

/** The headers every response carries. */
export const commonHeaders = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'X-Ignored-Parameters': { $ref: '#/components/headers/X-Ignored-Parameters' },
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
};

/** What each resource (tag) of the API is. */
export const TAGS: Record<string, string> = {
  account: 'Staff accounts of the tenant.',
  booking: 'The session cart, bookings, their form, invoices, actions and notes.',
  category: 'Item categories with their item counts.',
  channel:
    'Channel sync: imported iCalendar feeds (Airbnb, Booking.com, Vrbo), their blocks and conflicts (staff).',
  company: 'The business behind the API: name, address, currency, time zone.',
  customer: 'Customers with their bookings (staff).',
  docs: 'This reference page and its files.',
  event: 'Rate events: seasonal rates, discounts and closed days (staff).',
  help: 'The resources of the API and where this documentation is.',
  item: 'Items, rated for dates with a SLIP, and their availability calendars.',
  openapi: 'This OpenAPI description.',
  ping: 'A health check that echoes the caller and the time.',
  webhook: 'Webhook endpoints, their deliveries, replays (staff).',
};

/** Who may call a route, by its access: the security requirements of its operation. */
export const SECURITY = {
  staff: [{ basicAuth: [] }, { bearerAuth: [] }, { accessToken: [] }],
  public: [{}, { basicAuth: [] }, { bearerAuth: [] }, { accessToken: [] }],
  token: [{ bookingToken: [] }, { basicAuth: [] }, { bearerAuth: [] }, { accessToken: [] }],
  feed: [{ feedToken: [] }],
};

/**
 * Parameter examples from a tenant file (the demo's), by parameter name as the document names it. Each
 * operation runs with them against that tenant (test/integration/openapi-examples.test.ts), given what
 * its `x-needs` asks for. The dates are fixed, so the document stays the same from day to day: they are
 * a stay the demo sells from a year before it.
 */
export function examplesFrom(tenant: Tenant): Record<string, unknown> {
  const nightly =
    tenant.items.find((item) => item.unit === 'N' && item.visibility === '*') ?? tenant.items[0];
  const params = Object.keys(nightly?.params ?? {});
  const paid = tenant.statuses.some((status) => status.status_id === 'PAID');
  return {
    item_id: String(nightly?.item_id ?? 1),
    category_id: String(nightly?.category_id ?? 1),
    start_date: '20270705',
    end_date: '20270708',
    date: '20270705',
    param: Object.fromEntries(params.slice(0, 2).map((id, index) => [id, index === 0 ? '2' : '1'])),
    discount_code: tenant.discounts[0]?.code,
    giftcert_code: tenant.giftcerts[0]?.code,
    keyword: nightly?.name.split(' ')[0]?.toLowerCase(),
    booking_id: `${tenant.settings.booking_code_prefix}-7QK2MX`,
    // A number: the booking list's filter takes only that, `customer/{customer_id}` the code too.
    customer_id: '1',
    customer_email: 'ada@example.com',
    // Recording the payment of what is due: the one update every new booking can take.
    status_id: paid ? 'PAID' : tenant.statuses[1]?.status_id,
    ...(paid ? { set_paid: '1' } : {}),
    form: { customer_name: 'Ada Lovelace', customer_email: 'ada@example.com' },
    mark: '1',
    body: 'Arriving by canoe around 6 pm.',
    event_id: '1',
    since: '20270101',
    webhook_id: tenant.webhooks[0]?.id ?? 'accounting',
    payment_id: 'pos_3f9c2a7d41e84b0c9a65d2e1f0b7c834',
    channel_id: tenant.channels[0]?.id ?? 'airbnb',
    // A quote's id as the guest's cancel and change answer it (the examples' run asks for a real one).
    quote: 'v7Ck2QpX9mRf3LzN8bYt1w',
  };
}

/** Parameters left out of a request body's example: a gift certificate's balance is spent by booking. */
export const NOT_IN_BODY_EXAMPLES = new Set(['giftcert_code']);

/** A need in words, for the description of an operation of a route. */
export function needWords(need: Need, route: Route): string {
  switch (need) {
    case 'slip':
      return (
        'Adds a line with the `slip[]` of a rated item: `item.rate.slip` of `GET item/{item_id}` with dates (the ' +
        'examples of that operation give one). Without a SLIP or an `alter`, the call reads the cart.'
      );
    case 'cart':
      return (
        'Needs a cart: `session_id` (the cookie, or the parameter on other sites) of a session holding a line, ' +
        'made by `POST booking/session` with the `slip[]` of a rated `item/{item_id}`' +
        (route.name === 'booking.create' ? '; or `slip[]` itself, to hold and book in one call.' : '.')
      );
    case 'booking':
      return 'Needs a booking: `{booking_id}` is its code or number, as `booking/create` answers it.';
    case 'booking-token':
      return (
        'Needs a booking: `{booking_id}` is its code or number, as `booking/create` answers it. Staff need ' +
        "only their credentials; anyone else sends the booking's `token` (`booking.token` in that answer, " +
        'also in its `invoice_url`).'
      );
    case 'guest-token':
      return (
        'Needs a booking and its `token` (`booking.token` of `booking/create`, also in its `invoice_url`): the ' +
        "guest's own view, for staff too."
      );
    case 'cancellation-policy':
      return "Needs a booking sold under a cancellation policy (the tenant file's `policy.cancellation`).";
    case 'cancel-quote':
      return 'Needs the `quote` (its `cancellation.quote`) that `GET booking/{booking_id}/manage/cancel` answers now.';
    case 'change-dates':
      return (
        "Needs new dates the booking's items can have (`start_date`, `end_date`) or a party (`param[...]`), and a " +
        'booking not awaiting its payment: one paid (`POST booking/{booking_id}/update` with ' +
        '`status_id=PAID&set_paid=1`), or one that asked for none.'
      );
    case 'change-quote':
      return 'Needs the `quote` (its `change.quote`) that `GET booking/{booking_id}/manage/change` answers now for the same change.';
    case 'payment':
      return (
        'Needs a payment: `{payment_id}` is the `id` of one of `payments` of `GET booking/{booking_id}` (a booking ' +
        'from `booking/create`, paid at the point of sale by `POST booking/{booking_id}/update` with ' +
        '`status_id=PAID&set_paid=1`, has one).'
      );
    case 'payment-authorised':
      return (
        'Needs an authorised payment: `{payment_id}` is the `id` of one of `payments` of `GET booking/{booking_id}` ' +
        'whose `status` is `authorised` (a booking from `booking/create` of a tenant whose `settings.payment.capture` ' +
        'is `manual`, once the guest paid).'
      );
    case 'customer':
      return (
        'Needs a customer: `{customer_id}` is the number or code (`C-000001`) of one who has booked, as ' +
        "the booking's record gives it (`customer_id` of `GET booking/{booking_id}`)."
      );
    case 'feed-token':
      return route.name === 'booking.ical'
        ? "Needs the staff feed's token, issued by `npm run channels -- token bookings` and shown once."
        : "Needs the item feed's token, issued by `npm run channels -- token <item_id>` and shown once.";
    case 'channel':
      return (
        "Needs a channel: `{channel_id}` is the `id` of an entry of the tenant file's `channels` whose feed " +
        'answers (the demo tenant has none: add one to try it).'
      );
    case 'webhook':
      return (
        "Needs a webhook endpoint: `{webhook_id}` is the `id` of an entry of the tenant file's `webhooks` " +
        '(the demo tenant has none: add one to try it).'
      );
  }
}
