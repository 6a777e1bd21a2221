import { sameSecret } from '#lib/access/index.ts';
import {
  type BookingRecord,
  bookedAmounts,
  findBooking,
  isInactive,
  type StoredPaymentAttempt,
} from '#lib/bookings/index.ts';
import type { StoredConfig } from '#lib/config/index.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { escapeHtml } from '#lib/kernel/text.ts';
import type { SessionLine } from '#lib/sessions/index.ts';
import { BOOK_STYLE, banner, contactSection, footer, linkable, pageStart } from './page-parts.ts';

// Where a guest who went to pay comes back to (issue 43, item 7): `/book?booking=<code>&return_key=<key>`, the
// addresses the create gave the provider. What it says comes from the booking as stored, never from the
// address (a guest back on the success address without paying reads "Not paid yet"), and only to the holder
// of the key those addresses carry. `&pay=1` is the page's own way to the payment: checked when followed,
// it leads to the checkout only while it can still be paid.

/** What happened to a booking that awaited payment, as its records say now. */
export type ReturnOutcome =
  | 'paid'
  | 'authorised'
  | 'unpaid'
  | 'declined'
  | 'closed'
  | 'overdue'
  | 'lapsed'
  | 'cancelled';

/** The return key an address the create gave the provider carries. */
const keyOf = (address: string): string | null =>
  URL.canParse(address) ? new URL(address).searchParams.get('return_key') : null;

/** Whether a return key is the one the booking's return addresses carry. */
function holdsKey(record: BookingRecord, key: string | undefined): boolean {
  return (record.attempts ?? []).some((attempt) => {
    const own = keyOf(attempt.cancel_url);
    return own !== null && sameSecret(key, own);
  });
}

/** The booking's current attempt (the latest made when the booking names none). */
const currentAttempt = (record: BookingRecord): StoredPaymentAttempt | undefined =>
  record.attempts?.find((attempt) => attempt.payment_id === record.booking.payment?.payment_id) ??
  [...(record.attempts ?? [])].sort((a, b) => b.created - a.created)[0];

/** Whether the attempt's checkout is open and may still be paid at `now` (Unix seconds). */
export const payable = (attempt: StoredPaymentAttempt, now: number): boolean =>
  (attempt.status === 'pending' || attempt.status === 'failed') &&
  linkable(attempt.checkout_url) !== '' &&
  attempt.checkout_expires_at > now &&
  attempt.deadline > now;

/** Whether the booking's last change of status was its lapse at the payment deadline. */
const lapsedUnpaid = (record: BookingRecord): boolean =>
  record.events
    .filter((event) => event.type === 'booking.status_changed')
    .sort((a, b) => a.at - b.at)
    .at(-1)?.data.reason === 'payment_lapsed';

/** What happened, from the booking and its attempt as stored at `now` (Unix seconds). */
export function outcomeOf(record: BookingRecord, attempt: StoredPaymentAttempt, now: number): ReturnOutcome {
  const { booking } = record;
  if (isInactive(booking.status_id))
    return attempt.status === 'lapsed' || lapsedUnpaid(record) ? 'lapsed' : 'cancelled';
  const paidOtherwise =
    booking.paid_total > 0 || booking.status_id === 'PAID' || booking.status_id === 'PART';
  if (attempt.status === 'captured' || paidOtherwise) return 'paid';
  if (attempt.status === 'authorised') return 'authorised';
  if (now >= attempt.deadline) return 'overdue';
  if (!payable(attempt, now)) return 'closed';
  return attempt.status === 'failed' ? 'declined' : 'unpaid';
}

/** Formats for the tenant's language, currency and zone. */
function wordsFor(config: StoredConfig) {
  const tag = config.locale.id.replace('_', '-');
  const currency = new Intl.NumberFormat(tag, { style: 'currency', currency: config.locale.currency });
  const day = (ymd: string) => Date.UTC(+ymd.slice(0, 4), +ymd.slice(4, 6) - 1, +ymd.slice(6, 8), 12);
  const dates = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' });
  return {
    money: (minor: number) => currency.format(minor / 10 ** config.locale.decimals),
    date: (ymd: string) =>
      new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeZone: 'UTC' }).format(day(ymd)),
    span: (first: string, last: string) =>
      first === last ? dates.format(day(first)) : dates.formatRange(day(first), day(last)),
    time: (minutes: number) =>
      new Intl.DateTimeFormat(tag, { timeStyle: 'short', timeZone: 'UTC' }).format(minutes * 60_000),
    moment: (seconds: number) =>
      new Intl.DateTimeFormat(tag, {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZone: config.company.timezone,
        timeZoneName: 'short',
      }).format(seconds * 1000),
  };
}

type Words = ReturnType<typeof wordsFor>;

const UNITS = { N: ['night', 'nights'], D: ['day', 'days'], H: ['hour', 'hours'] } as const;

/** A booked line in words: what, when, for whom, and what it costs. */
function lineHtml(line: SessionLine, config: StoredConfig, words: Words): string {
  const [one, many] = UNITS[line.unit];
  const { startTime, endTime } = line.payload;
  const when =
    line.unit === 'H' && startTime !== undefined && endTime !== undefined
      ? `${words.span(line.start_date, line.start_date)} · ${words.time(startTime)} – ${words.time(endTime)}`
      : `${words.span(line.start_date, line.unit === 'N' ? line.end_date : line.last_date)} · ${line.length} ${line.length === 1 ? one : many}`;
  const party = Object.entries(line.payload.params)
    .filter(([, qty]) => qty > 0)
    .map(([id, qty]) => `${config.params[id]?.lbl ?? id}: ${qty}`)
    .join(', ');
  const total = bookedAmounts(line, config.taxes, config.locale.decimals).total;
  return [
    '<li>',
    `<h3>${escapeHtml(line.qty > 1 ? `${line.qty} × ${line.name}` : line.name)}</h3>`,
    `<p>${escapeHtml(when)}</p>`,
    party ? `<p>${escapeHtml(party)}</p>` : '',
    `<p class="amount">${escapeHtml(words.money(total))}</p>`,
    '</li>',
  ].join('');
}

/** When the rest of a deposit falls due (`balance_due_days_before_start`), as a date in words. */
function balanceDue(config: StoredConfig, record: BookingRecord, words: Words): string | undefined {
  const days = config.settings.payment?.balance_due_days_before_start;
  const start = record.booking.start_date;
  return days === undefined || !start ? undefined : words.date(addDays(start, -days));
}

/** The headline, what it means, and what the guest can do, for each outcome. */
function story(
  outcome: ReturnOutcome,
  record: BookingRecord,
  attempt: StoredPaymentAttempt,
  config: StoredConfig,
) {
  const words = wordsFor(config);
  const { booking } = record;
  const due = booking.totals.total - booking.paid_total;
  const by = balanceDue(config, record, words);
  const rest = (left: number) =>
    left > 0 ? ` The rest, ${words.money(left)}, is due${by ? ` by ${by}` : ' later'}.` : '';
  const until = words.moment(attempt.deadline);
  const asked = words.money(attempt.amount);
  const refunded =
    attempt.refunded > 0 ? ` The ${words.money(attempt.refunded)} paid after that was refunded.` : '';
  switch (outcome) {
    case 'paid':
      return {
        title: 'Booking confirmed',
        text: `We have received ${booking.paid_total > 0 ? words.money(booking.paid_total) : 'your payment'}.${due > 0 ? rest(due) : ' Nothing more is due.'}`,
      };
    case 'authorised':
      return {
        title: 'Booking confirmed',
        text: `Your card was authorised for ${asked}; ${config.company.name} takes the payment later.${rest(due - attempt.amount)}`,
      };
    case 'unpaid':
      return {
        title: 'Not paid yet',
        text: `We have not received a payment for this booking. It is held for you until ${until}, then released. If you have just paid, it can take a few seconds to reach us.`,
        pay: `Pay ${asked} now`,
        again: true,
      };
    case 'declined':
      return {
        title: 'Your payment was declined',
        text: `Nothing was charged. Your booking is held for you until ${until}: try again, with this card or another, before then. If you have just paid, it can take a few seconds to reach us.`,
        pay: 'Try again',
        again: true,
      };
    case 'closed':
      return {
        title: 'Not paid yet',
        text: `The payment page for this booking has closed. It is held for you until ${until}, then released: contact us to pay before then.`,
        again: true,
      };
    case 'overdue':
      return {
        title: 'The time to pay has run out',
        text: `This booking was not paid by ${until}, so it is being released. Nothing was charged.`,
        book: true,
      };
    case 'lapsed':
      return {
        title: 'Booking released: not paid in time',
        text: `This booking was not paid by ${until}, so it was released.${refunded || ' Nothing was charged.'} The dates may still be free.`,
        book: true,
      };
    default:
      return {
        title: 'Booking cancelled',
        text: `This booking was cancelled.${attempt.refunded > 0 ? ` The ${words.money(attempt.refunded)} paid for it was refunded.` : ''}`,
        book: true,
      };
  }
}

/** What a return address answers: the page (and its status), or where the page's own payment link leads. */
export type ReturnAnswer = { status: number; html: string } | { location: string };

const RETURN_STYLE = `
.outcome { background: #fff; border: 1px solid #dcd8cc; border-radius: 8px; padding: 1rem 1.25rem;
  margin-top: 1.5rem; }
.outcome .lead { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1rem; }
.button { display: inline-flex; align-items: center; min-height: 2.75rem; padding: .5rem 1.25rem;
  border: 2px solid var(--accent); border-radius: 6px; font-weight: 600; text-decoration: none; }
.button.primary { background: var(--accent); color: #fff; }
.booked ul { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem; }
.booked li { background: #fff; border: 1px solid #dcd8cc; border-radius: 8px; padding: .75rem 1rem; }
.booked h3 { margin: 0; font-size: 1rem; }
.booked p { margin: .25rem 0 0; }
.amount { font-weight: 600; }
.totals { display: grid; grid-template-columns: auto auto; justify-content: start; gap: .25rem 1.5rem; }
.totals dd { margin: 0; font-weight: 600; }
`;

/** The page for a booking's return key, or for an address that shows nothing (404: no oracle). */
function renderReturn(
  config: StoredConfig,
  found:
    | { record: BookingRecord; attempt: StoredPaymentAttempt; outcome: ReturnOutcome; self: string }
    | undefined,
): string {
  const name = escapeHtml(config.company.name);
  const head = [
    ...pageStart(
      config.locale.lang,
      found ? `Booking ${escapeHtml(found.record.booking.code)}: ${name}` : `Booking: ${name}`,
    ),
    '<meta name="robots" content="noindex">',
    '<link rel="icon" href="data:,">',
    `<style>${BOOK_STYLE}${RETURN_STYLE}</style>`,
    '</head>',
    '<body>',
    ...banner(config, { target: 'outcome', words: 'Skip to your booking' }),
    '<main class="wrap">',
  ];
  const end = [
    '<div class="about">',
    ...contactSection(config),
    '</div>',
    '</main>',
    footer(config),
    '</body>',
    '</html>',
  ];
  if (!found)
    return [
      ...head,
      '<section id="outcome" class="outcome" aria-labelledby="outcome-title">',
      '<h1 id="outcome-title">This link shows no booking</h1>',
      '<p>It may be incomplete. Use the whole link you were given, or contact us with your booking code.</p>',
      '<p class="actions"><a class="button" href="/book">Make a booking</a></p>',
      '</section>',
      ...end,
    ].join('\n');
  const { record, attempt, outcome, self } = found;
  const { booking } = record;
  const words = wordsFor(config);
  const said = story(outcome, record, attempt, config);
  const actions = [
    said.pay
      ? `<a class="button primary" href="${escapeHtml(`${self}&pay=1`)}">${escapeHtml(said.pay)}</a>`
      : '',
    said.again ? `<a class="button" href="${escapeHtml(self)}">Check again</a>` : '',
    said.book ? '<a class="button primary" href="/book">Book again</a>' : '',
  ].filter(Boolean);
  const lines = Object.values(booking.lines).sort(
    (a, b) => a.start_date.localeCompare(b.start_date) || Number(a.line_id) - Number(b.line_id),
  );
  const due = booking.totals.total - booking.paid_total;
  return [
    ...head,
    '<section id="outcome" class="outcome" aria-labelledby="outcome-title">',
    `<h1 id="outcome-title">${escapeHtml(said.title)}</h1>`,
    `<p class="lead">${escapeHtml(said.text)}</p>`,
    actions.length ? `<p class="actions">${actions.join('')}</p>` : '',
    '</section>',
    '<section class="booked" aria-labelledby="booked-title">',
    `<h2 id="booked-title">Booking ${escapeHtml(booking.code)}</h2>`,
    `<ul>${lines.map((line) => lineHtml(line, config, words)).join('')}</ul>`,
    '<dl class="totals">',
    `<dt>Total</dt><dd>${escapeHtml(words.money(booking.totals.total))}</dd>`,
    `<dt>Paid</dt><dd>${escapeHtml(words.money(booking.paid_total))}</dd>`,
    isInactive(booking.status_id) ? '' : `<dt>Still to pay</dt><dd>${escapeHtml(words.money(due))}</dd>`,
    '</dl>',
    '</section>',
    // The guest's own page of it (issue 44): this page proved the key, so it may hand out the token.
    `<p><a href="${escapeHtml(`/manage?booking=${encodeURIComponent(booking.code)}&token=${encodeURIComponent(booking.token)}`)}">Manage your booking</a></p>`,
    '<p><a href="/book">Make another booking</a></p>',
    ...end,
  ].join('\n');
}

/**
 * Answers `/book?booking=<code>&return_key=<key>` (with `&pay=1`: on to the checkout while it can be paid,
 * else back to the page) from the booking as stored at `now` (ms).
 */
export async function answerReturn(
  db: Db,
  config: StoredConfig,
  query: Record<string, string | undefined>,
  now: number,
): Promise<ReturnAnswer> {
  const code = query.booking ?? '';
  const record = await findBooking(db, code, undefined).catch((error: unknown) => {
    if (error instanceof DomainError && error.code === 'not_found') return undefined;
    throw error;
  });
  const attempt = record && holdsKey(record, query.return_key) ? currentAttempt(record) : undefined;
  if (!record || !attempt) return { status: 404, html: renderReturn(config, undefined) };
  const seconds = Math.floor(now / 1000);
  const self = `/book?booking=${encodeURIComponent(record.booking.code)}&return_key=${encodeURIComponent(query.return_key ?? '')}`;
  if (query.pay !== undefined)
    return { location: payable(attempt, seconds) ? (attempt.checkout_url as string) : self };
  const outcome = outcomeOf(record, attempt, seconds);
  return { status: 200, html: renderReturn(config, { record, attempt, outcome, self }) };
}
