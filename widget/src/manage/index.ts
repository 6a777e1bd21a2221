import { type Answer, type Calls, type Cancellation, createCalls, type GuestBooking } from './calls.ts';

// The guest's page of a booking (`/manage?booking=CODE&token=T`, issue 44): the booking as its view
// answers it, and its cancellation: the server's quote, a confirm, the outcome. Every text from the API is
// set as text, never as HTML. The page's HTML (functions/meta/manage-page.ts) gives the API's base, the
// currency, the language and the time zone on `#manage`.

const root = document.getElementById('manage') as HTMLElement;
const { api = '/api/3.0', currency = 'USD', locale = 'en', timezone = 'UTC' } = root.dataset;

/** An element with attributes and children (strings become text). */
function el(tag: string, attributes: Record<string, string> = {}, ...children: Array<Node | string>) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const moneyFormat = (() => {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency });
  } catch {
    return undefined;
  }
})();
const money = (amount: string) =>
  moneyFormat ? moneyFormat.format(Number(amount)) : `${amount} ${currency}`;
const when = (seconds: number) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone }).format(
    seconds * 1000,
  );

/**
 * Replaces what the page shows; after the guest did something, focus goes to its heading so a screen reader
 * reads the change (not on opening: the guest starts at the page's top).
 */
function show(focus: boolean, ...children: Node[]) {
  root.replaceChildren(...children);
  if (focus) root.querySelector<HTMLElement>('h2[tabindex]')?.focus();
}

/** A note in the server's words (or ours, when there was no answer). */
const problem = (words: string) => el('p', { class: 'problem', role: 'alert' }, words);

/** The page for an answer that is not the booking: the link, the budget of tries, or the service. */
function refusal(answer: Answer<unknown>): Node {
  if (answer.status === 404 || answer.status === 401)
    return el(
      'section',
      { 'aria-labelledby': 'state' },
      el('h2', { id: 'state', tabindex: '-1' }, 'This link is not valid'),
      el(
        'p',
        {},
        'The link may be incomplete, or a newer link may have replaced it. Use the link in your latest confirmation email, or contact us below.',
      ),
    );
  if (answer.status === 429)
    return el(
      'section',
      { 'aria-labelledby': 'state' },
      el('h2', { id: 'state', tabindex: '-1' }, 'Too many tries'),
      el('p', {}, 'Please try again later (in an hour at most), or contact us below.'),
    );
  return el(
    'section',
    { 'aria-labelledby': 'state' },
    el('h2', { id: 'state', tabindex: '-1' }, 'Your booking could not be loaded'),
    el('p', {}, answer.error?.details || 'Please try again in a few minutes.'),
  );
}

const INACTIVE = new Set(['CANCELLED', 'VOID']);

/** Label and value rows. */
const facts = (rows: Array<[string, string | Node]>) =>
  el(
    'dl',
    { class: 'facts' },
    ...rows.flatMap(([label, value]) => [el('dt', {}, label), el('dd', {}, value)]),
  );

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
      ...lines.map((line) =>
        el(
          'li',
          {},
          `${line.qty > 1 ? `${line.qty} × ` : ''}${line.name}, ${line.date_desc}: ${money(line.total)}`,
        ),
      ),
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
  if (booking.payment)
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

/** The page's state: the booking shown, and below it the cancellation at its current step. */
class ManagePage {
  private readonly cancelArea = el('section', { 'aria-labelledby': 'cancel-title', class: 'cancel' });

  constructor(private readonly calls: Calls) {}

  async load(note?: Node, focus = true) {
    const answer = await this.calls.view();
    if (!answer.body) return show(focus, refusal(answer));
    const { booking } = answer.body;
    const active = !INACTIVE.has(booking.status_id);
    this.cancelArea.replaceChildren(
      el('h2', { id: 'cancel-title' }, 'Cancel your booking'),
      ...(active
        ? [
            el('p', {}, 'See first what you would get back; nothing changes until you confirm.'),
            this.button('Cancel booking', () => this.quote()),
          ]
        : [el('p', {}, 'This booking is no longer active.')]),
    );
    show(focus, ...(note ? [note] : []), ...bookingView(booking), this.cancelArea);
  }

  private button(words: string, action: () => Promise<void>, kind = '') {
    const button = el('button', { type: 'button', class: kind }, words) as HTMLButtonElement;
    button.addEventListener('click', async () => {
      button.disabled = true;
      await action();
      button.disabled = false;
    });
    return button;
  }

  /** Steps of the cancellation replace each other below the booking; focus goes to each one's heading. */
  private step(...children: Node[]) {
    this.cancelArea.replaceChildren(...children);
    this.cancelArea.querySelector<HTMLElement>('[tabindex]')?.focus();
  }

  private async quote(before?: string) {
    const answer = await this.calls.quote();
    if (answer.status === 404 || answer.status === 401 || answer.status === 429)
      return show(true, refusal(answer));
    if (!answer.body)
      return this.step(
        el('h2', { id: 'cancel-title', tabindex: '-1' }, 'This booking cannot be cancelled here'),
        problem(answer.error?.details || 'Please try again in a few minutes.'),
      );
    this.offer(answer.body.cancellation, before);
  }

  private offer(quote: Cancellation, before?: string) {
    this.step(
      el(
        'h2',
        { id: 'cancel-title', tabindex: '-1' },
        `You get back ${money(quote.refund)} of ${money(quote.paid)}`,
      ),
      ...(before ? [problem(before)] : []),
      el('p', {}, quote.text),
      el(
        'p',
        { class: 'actions' },
        this.button('Yes, cancel my booking', () => this.confirm(quote), 'danger'),
        this.button('Keep my booking', () => this.load()),
      ),
    );
  }

  private async confirm(quote: Cancellation) {
    const answer = await this.calls.cancel(quote.quote);
    if (answer.body) {
      const done = answer.body.cancellation;
      const owed = Number(done.owed ?? 0) > 0;
      const note = el(
        'section',
        { class: 'done', role: 'status', 'aria-labelledby': 'done-title' },
        el('h2', { id: 'done-title', tabindex: '-1' }, 'Your booking is cancelled'),
        el('p', {}, `Refund: ${money(done.refund)}. ${done.text}`),
        ...(Number(done.through_provider ?? 0) > 0
          ? [el('p', {}, `${money(done.through_provider ?? '0')} goes back to the card you paid with.`)]
          : []),
        ...(owed
          ? [el('p', {}, `${money(done.owed ?? '0')} is owed to you: we will pay it back to you ourselves.`)]
          : []),
      );
      return this.load(note);
    }
    const { error } = answer;
    if (answer.status === 404 || answer.status === 401 || answer.status === 429)
      return show(true, refusal(answer));
    if (error?.data.reason === 'quote_changed') return this.quote(error.details);
    if (answer.status === 503 || answer.status === 0)
      return this.offer(quote, error?.details || 'The service could not be reached: please send it again.');
    return this.step(
      el('h2', { id: 'cancel-title', tabindex: '-1' }, 'This booking cannot be cancelled here'),
      problem(error?.details || 'Please try again in a few minutes.'),
    );
  }
}

const link = new URLSearchParams(location.search);
const code = link.get('booking') ?? '';
const token = link.get('token') ?? '';
if (!code || !token) show(false, refusal({ status: 404, body: undefined, error: undefined }));
else void new ManagePage(createCalls(api, code, token)).load(undefined, false);
