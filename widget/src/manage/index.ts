import { type Calls, type Cancellation, createCalls, type GuestBooking } from './calls.ts';
import { ChangeArea, waiting } from './change.ts';
import {
  aboutTheLink,
  api,
  button,
  el,
  facts,
  heading,
  money,
  problem,
  refunded,
  refusal,
  show,
  step,
  when,
} from './dom.ts';

// The guest's page of a booking (`/manage?booking=CODE&token=T`, issue 44): the booking as its view
// answers it, its change of dates and party (change.ts), and its cancellation: the server's quote, a
// confirm, the outcome.

const INACTIVE = new Set(['CANCELLED', 'VOID']);

/** A line's party as booked ("Quantity 3"), the sizes of none left out. */
const partyOf = (param: GuestBooking['items'][string]['param']) =>
  Object.values(param)
    .filter((one) => one.qty > 0)
    .map((one) => `${one.lbl} ${one.qty}`)
    .join(', ');

/** The booking: code, status, dates, lines, money, payments, an open checkout, the invoice and the terms. */
function bookingView(booking: GuestBooking): Node[] {
  const lines = Object.values(booking.items);
  // A cancelled booking owes nothing: what the policy kept is not a balance due.
  const active = !INACTIVE.has(booking.status_id);
  const parts: Node[] = [
    el('h2', { id: 'booking-title', tabindex: '-1' }, `Booking ${booking.code}`),
    facts([
      ['Status', booking.status_name],
      ['Dates', booking.date_desc],
      ['Name', booking.customer_name],
    ]),
    el('h3', {}, 'What you booked'),
    el(
      'ul',
      { class: 'lines' },
      ...lines.map((line) => {
        const party = partyOf(line.param);
        return el(
          'li',
          {},
          `${line.qty > 1 ? `${line.qty} × ` : ''}${line.name}${party ? ` (${party})` : ''}, ${line.date_desc}: ${money(line.total)}`,
        );
      }),
    ),
    facts([
      ['Total', money(booking.total)],
      ['Paid', money(booking.paid_total)],
      ...(active ? [['Due', money(booking.due)] as [string, string]] : []),
    ]),
  ];
  if (booking.payments.length)
    parts.push(
      el('h3', {}, 'Payments'),
      el(
        'ul',
        { class: 'lines' },
        ...booking.payments.map((payment) =>
          el(
            'li',
            {},
            `${when(payment.date)}: ${Number(payment.amount) < 0 ? `refunded ${money(payment.amount.slice(1))}` : money(payment.amount)}`,
          ),
        ),
      ),
    );
  // A change's checkout is offered with the change, at the page's top.
  if (booking.payment && !booking.change)
    parts.push(
      el(
        'p',
        {},
        el('a', { class: 'button', href: booking.payment.url }, `Pay now: ${money(booking.payment.amount)}`),
        ` before ${when(booking.payment.deadline)}`,
      ),
    );
  parts.push(el('p', {}, el('a', { href: booking.invoice_url }, 'View your invoice')));
  parts.push(
    el('h3', {}, 'Cancellation policy'),
    el('p', {}, booking.cancellation_policy?.text ?? 'This booking was made under no cancellation policy.'),
  );
  return parts;
}

/** The page's state: the booking shown, and below it its change and its cancellation at their current steps. */
class ManagePage {
  private readonly cancelArea = el('section', { 'aria-labelledby': 'cancel-title', class: 'cancel' });
  private readonly change: ChangeArea;

  constructor(private readonly calls: Calls) {
    this.change = new ChangeArea(calls, (note) => this.load(note));
  }

  async load(note?: Node, focus = true) {
    const answer = await this.calls.view();
    if (!answer.body) return show(focus, refusal(answer));
    const { booking } = answer.body;
    const active = !INACTIVE.has(booking.status_id);
    if (active) this.change.render(booking);
    this.cancelArea.replaceChildren(
      el('h2', { id: 'cancel-title' }, 'Cancel your booking'),
      ...(active
        ? [
            el('p', {}, 'See first what you would get back; nothing changes until you confirm.'),
            button('Cancel booking', () => this.quote()),
          ]
        : [el('p', {}, 'This booking is no longer active.')]),
    );
    show(
      focus,
      ...(note ? [note] : []),
      ...waiting(booking),
      ...bookingView(booking),
      ...(active ? [this.change.area] : []),
      this.cancelArea,
    );
  }

  private cannot(words?: string) {
    step(
      this.cancelArea,
      heading('cancel-title', 'This booking cannot be cancelled here'),
      problem(words || 'Please try again in a few minutes.'),
    );
  }

  private async quote(before?: string) {
    const answer = await this.calls.quote();
    if (aboutTheLink(answer)) return show(true, refusal(answer));
    if (!answer.body) return this.cannot(answer.error?.details);
    this.offer(answer.body.cancellation, before);
  }

  private offer(quote: Cancellation, before?: string) {
    step(
      this.cancelArea,
      heading('cancel-title', `You get back ${money(quote.refund)} of ${money(quote.paid)}`),
      ...(before ? [problem(before)] : []),
      el('p', {}, quote.text),
      el(
        'p',
        { class: 'actions' },
        button('Yes, cancel my booking', () => this.confirm(quote), 'danger'),
        button('Keep my booking', () => this.load()),
      ),
    );
  }

  private async confirm(quote: Cancellation) {
    const answer = await this.calls.cancel(quote.quote);
    if (answer.body) {
      const done = answer.body.cancellation;
      return this.load(
        el(
          'section',
          { class: 'done', role: 'status', 'aria-labelledby': 'done-title' },
          heading('done-title', 'Your booking is cancelled'),
          el('p', {}, `Refund: ${money(done.refund)}. ${done.text}`),
          ...refunded(done),
        ),
      );
    }
    const { error } = answer;
    if (aboutTheLink(answer)) return show(true, refusal(answer));
    if (error?.data.reason === 'quote_changed') return this.quote(error.details);
    if (answer.status === 503 || answer.status === 0)
      return this.offer(quote, error?.details || 'The service could not be reached: please send it again.');
    this.cannot(error?.details);
  }
}

const link = new URLSearchParams(location.search);
const code = link.get('booking') ?? '';
const token = link.get('token') ?? '';
if (!code || !token) show(false, refusal({ status: 404, body: undefined, error: undefined }));
else void new ManagePage(createCalls(api, code, token)).load(undefined, false);
