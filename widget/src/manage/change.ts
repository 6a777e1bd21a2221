import type { Answer, Calls, ChangeQuote, GuestBooking } from './calls.ts';
import {
  aboutTheLink,
  button,
  day,
  el,
  facts,
  heading,
  isoDay,
  money,
  problem,
  refunded,
  refusal,
  show,
  step,
  when,
} from './dom.ts';

// The change of dates and party on the guest's page (issue 44): a form with the booking's dates and party,
// the server's quote of it (more to pay, less, the same; what comes back and what is kept), and the confirm.
// A change that costs more on a booking paid online waits for its payment: the page then says so at its top
// (`waiting`) with the checkout's link. The server decides what can be changed; its refusals are shown in its
// words.

const DAY = 86_400_000;
/** A date field's value moved by `days`. */
const shift = (iso: string, days: number) =>
  new Date(Date.parse(iso) + days * DAY).toISOString().slice(0, 10);

/** A change of a booking waiting for its payment, at the page's top: what it makes, and where to pay. */
export function waiting(booking: GuestBooking): Node[] {
  const { change, payment } = booking;
  if (!change) return [];
  const dates = [
    day(change.start_date),
    ...(change.end_date > change.start_date ? [day(change.end_date)] : []),
  ];
  return [
    el(
      'section',
      { class: 'done', role: 'status', 'aria-labelledby': 'waits' },
      heading('waits', 'Your change waits for its payment'),
      el(
        'p',
        {},
        `New dates: ${dates.join(' – ')}, new total ${money(change.total)}. Until it is paid, by ${when(change.deadline)}, your booking stays as it is.`,
      ),
      payment
        ? el(
            'a',
            { class: 'button', href: payment.url },
            `Pay ${money(payment.amount)} to confirm the change`,
          )
        : el(
            'p',
            {},
            'The payment page could not be opened: after that time you can change your booking again, or contact us below.',
          ),
    ),
  ];
}

/** The change's part of the page, below the booking; `reload` shows the booking again, with a note on top. */
export class ChangeArea {
  readonly area = el('section', { 'aria-labelledby': 'change-title', class: 'cancel' });
  private form = el('form') as HTMLFormElement;
  /** The query of the change last asked for. */
  private asked = '';

  constructor(
    private readonly calls: Calls,
    private readonly reload: (note?: Node) => Promise<void>,
  ) {}

  /** The area for an active booking as loaded: a button to open the form, or the change that waits. */
  render(booking: GuestBooking) {
    const party = Object.values(booking.items).some((line) => Object.keys(line.param).length);
    this.area.replaceChildren(
      el('h2', { id: 'change-title' }, 'Change your booking'),
      ...(booking.change
        ? [el('p', {}, 'A change of this booking waits for its payment (above).')]
        : [
            el('p', {}, 'See the price first; nothing changes until you confirm.'),
            button(party ? 'Change dates or party' : 'Change dates', () => this.open(booking)),
          ]),
    );
  }

  /** The form: the booking's dates (the end for a booking of more than one day), then each party size. */
  private open(booking: GuestBooking) {
    const lines = Object.values(booking.items);
    const last = lines.find((line) => line.end_date === booking.end_date) ?? lines[0];
    const nights = last?.unit === 'N';
    const start = isoDay(booking.start_date);
    const end = isoDay(booking.end_date);
    const form = el('form', { class: 'change' }) as HTMLFormElement;
    const field = (name: string, label: string, input: Record<string, string>) => {
      const id = `change-${form.children.length}`;
      form.append(
        el('p', {}, el('label', { for: id }, label), el('input', { id, name, required: '', ...input })),
      );
    };
    const single = start === end;
    field('start_date', single ? 'Date' : nights ? 'Check-in date' : 'First day', {
      type: 'date',
      value: start,
    });
    if (!single)
      field('end_date', nights ? 'Check-out date' : 'Last day', { type: 'date', value: end, min: start });
    const party = new Map<string, { qty: number; lbl: string }>();
    for (const line of lines)
      for (const [id, param] of Object.entries(line.param)) if (!party.has(id)) party.set(id, param);
    for (const [id, param] of party)
      field(`param[${id}]`, param.lbl, {
        type: 'number',
        inputmode: 'numeric',
        min: '0',
        max: '999',
        value: String(param.qty),
      });
    const [from, to] = [
      form.elements.namedItem('start_date'),
      form.elements.namedItem('end_date'),
    ] as Array<HTMLInputElement | null>;
    // A new start moves the end with it, so the booking keeps its length unless the guest changes the end too.
    let before = start;
    from?.addEventListener('change', () => {
      if (!to || !from.value) return;
      to.value = shift(to.value, (Date.parse(from.value) - Date.parse(before)) / DAY);
      to.min = before = from.value;
    });
    form.append(el('p', {}, el('button', { type: 'submit' }, 'See the price')));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const inputs = [...form.querySelectorAll('input')];
      const changed = inputs.filter((input) => input.value !== input.defaultValue);
      if (!changed.length) return this.edit(problem('Choose other dates or another party first.'));
      // The dates always (they are the change's frame); a party size only when changed, as it applies to
      // every line that has it, and lines may have had different ones.
      const query = new URLSearchParams();
      for (const input of inputs)
        if (input.type === 'date' || changed.includes(input)) query.set(input.name, input.value);
      this.asked = query.toString();
      return this.quote();
    });
    this.form = form;
    this.edit();
  }

  /** The form again (as the guest left it), with a problem above it when there is one. */
  private edit(note?: Node) {
    step(this.area, heading('change-title', 'Change your booking'), ...(note ? [note] : []), this.form);
  }

  /** A refusal in the server's words, with the way back to the form. */
  private refused(answer: Answer<unknown>) {
    if (aboutTheLink(answer)) return show(true, refusal(answer));
    // A 400 too: the form's own checks (dates required, the end not before the start, whole numbers) leave
    // the server little to refuse.
    step(
      this.area,
      heading('change-title', 'This change cannot be made'),
      problem(answer.error?.details || 'Please try again in a few minutes.'),
      button('Choose other dates', () => this.edit()),
    );
  }

  private async quote(before?: string) {
    const answer = await this.calls.changeQuote(this.asked);
    if (!answer.body) return this.refused(answer);
    this.offer(answer.body.change, before);
  }

  private offer(quote: ChangeQuote, before?: string) {
    const difference = Number(quote.difference);
    const rows: Array<[string, string]> = [
      ['New dates', quote.to.date_desc],
      ['New total', money(quote.to.total)],
    ];
    if (Number(quote.refund) > 0 || Number(quote.kept) > 0) rows.push(['You get back', money(quote.refund)]);
    if (Number(quote.kept) > 0) rows.push(['Kept under the policy', money(quote.kept)]);
    if (quote.mode === 'pay') rows.push(['To pay now', money(quote.charge)]);
    step(
      this.area,
      heading(
        'change-title',
        difference
          ? `The change costs ${money(String(Math.abs(difference)))} ${difference > 0 ? 'more' : 'less'}`
          : 'The change costs the same',
      ),
      ...(before ? [problem(before)] : []),
      facts(rows),
      el('p', {}, quote.text),
      el(
        'p',
        { class: 'actions' },
        button('Confirm change', () => this.confirm(quote)),
        button('Choose other dates', () => this.edit()),
      ),
    );
  }

  private async confirm(quote: ChangeQuote) {
    const answer = await this.calls.change(this.asked, quote.quote);
    const done = answer.body?.change;
    // Waiting for its payment: the booking's page says so at its top, with the checkout's link. A checkout the
    // provider could not open yet is opened by the same confirm sent again.
    if (done && !done.made)
      return done.payment?.url
        ? this.reload()
        : this.offer(quote, 'The payment page could not be opened: please confirm again in a minute.');
    if (done)
      return this.reload(
        el(
          'section',
          { class: 'done', role: 'status', 'aria-labelledby': 'done-title' },
          heading('done-title', 'Your booking is changed'),
          el(
            'p',
            {},
            `New dates: ${quote.to.date_desc}.${Number(done.refund) > 0 ? ` Refund: ${money(done.refund)}.` : ''}`,
          ),
          ...refunded(done),
        ),
      );
    const { error } = answer;
    if (error?.data.reason === 'quote_changed') return this.quote(error.details);
    if (answer.status === 503 || answer.status === 0)
      return this.offer(quote, error?.details || 'The service could not be reached: please send it again.');
    this.refused(answer);
  }
}
