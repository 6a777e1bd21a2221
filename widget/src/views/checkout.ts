import { html, nothing } from 'lit';
import type { Checkout } from '../checkout.ts';
import { AUTOCOMPLETE } from '../form-rules.ts';
import { formatDate, formatMoney, linkUrl, plural } from '../format.ts';
import type { HoldClock } from '../hold-clock.ts';
import type { PaymentSummary } from '../payment.ts';
import type { Confirmation, FormField, Locale, Session } from '../types.ts';

/** What the booking form and the confirmation need of the element. */
export interface CheckoutViewHost {
  readonly checkout: Checkout;
  readonly cart: Session | undefined;
  readonly locale: Locale | undefined;
  readonly hold: Pick<HoldClock, 'display'>;
  focusPart(id: string): void;
  /** Back to the search and the cart, the focus on `focusId`. */
  startOver(focusId?: string): Promise<void>;
}

const fieldId = (id: string) => `field-${id}`;

function renderControl(host: CheckoutViewHost, id: string, field: FormField, describedBy: string) {
  const { checkout } = host;
  const { layout, required, mask, max_length } = field.define;
  const value = checkout.values[id] ?? '';
  const invalid = id in checkout.problems ? 'true' : 'false';
  const described = describedBy || nothing;
  const update = (event: Event) =>
    checkout.set(id, (event.target as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement).value);
  switch (layout.type) {
    case 'textarea':
      return html`<textarea id=${fieldId(id)} rows="3" ?required=${Boolean(required)} aria-invalid=${invalid}
        aria-describedby=${described} .value=${value} @input=${update}></textarea>`;
    case 'select':
      return html`<select id=${fieldId(id)} ?required=${Boolean(required)} aria-invalid=${invalid}
        aria-describedby=${described} @change=${update}>
        <option value="" ?selected=${value === ''}>Choose…</option>
        ${Object.entries(layout.options ?? {}).map(
          ([code, label]) => html`<option value=${code} ?selected=${value === code}>${label}</option>`,
        )}
      </select>`;
    case 'checkbox':
      return html`<input id=${fieldId(id)} type="checkbox" ?required=${Boolean(required)} aria-invalid=${invalid}
        aria-describedby=${described} .checked=${value === '1'}
        @change=${(event: Event) => checkout.set(id, (event.target as HTMLInputElement).checked ? '1' : '')} />`;
    default:
      return html`<input id=${fieldId(id)} type=${mask === 'email' ? 'email' : id === 'customer_phone' ? 'tel' : 'text'}
        autocomplete=${AUTOCOMPLETE[id] ?? nothing} ?required=${Boolean(required)} aria-invalid=${invalid}
        aria-describedby=${described} maxlength=${max_length ?? nothing} .value=${value} @input=${update} />`;
  }
}

function renderField(host: CheckoutViewHost, id: string, field: FormField) {
  const { layout, required } = field.define;
  if (layout.type === 'p') return html`<p>${layout.lbl}</p>`;
  const problem = host.checkout.problems[id];
  const errorId = `${fieldId(id)}-error`;
  const label = html`<label for=${fieldId(id)}>${layout.lbl}${required ? html` <span class="required">(required)</span>` : nothing}</label>`;
  const error = problem
    ? html`<span class="field-error" id=${errorId}><span class="visually-hidden">Error:</span> ${problem}</span>`
    : nothing;
  if (layout.type === 'radio') {
    return html`<fieldset class="field" part="field" aria-describedby=${problem ? errorId : nothing}>
      <legend>${layout.lbl}${required ? ' (required)' : ''}</legend>${error}
      ${Object.entries(layout.options ?? {}).map(
        ([code, text]) => html`<label class="choice"><input type="radio" name=${id} value=${code}
          .checked=${host.checkout.values[id] === code} @change=${() => host.checkout.set(id, code)} /> ${text}</label>`,
      )}
    </fieldset>`;
  }
  if (layout.type === 'checkbox')
    return html`<div class="field choice" part="field">${error} ${renderControl(host, id, field, problem ? errorId : '')} ${label}</div>`;
  return html`<div class="field" part="field">${label} ${error} ${renderControl(host, id, field, problem ? errorId : '')}</div>`;
}

/** The problems at the top of the form, each a link to its field (GOV.UK error summary). */
function renderSummary(host: CheckoutViewHost) {
  const { problems, other } = host.checkout;
  if (!Object.keys(problems).length && !other.length) return nothing;
  return html`<div id="error-summary" class="error-summary" part="error-summary" role="alert" tabindex="-1"
    aria-labelledby="error-summary-title">
    <h3 id="error-summary-title">There is a problem</h3>
    <ul>
      ${Object.entries(problems).map(
        ([id, message]) =>
          html`<li><a href="#${fieldId(id)}" @click=${(event: Event) => {
            event.preventDefault();
            host.focusPart(fieldId(id));
          }}>${message}</a></li>`,
      )}
      ${other.map((message) => html`<li>${message}</li>`)}
    </ul>
  </div>`;
}

/** What is paid now and what later, said before the guest confirms (issue 43). */
function renderPaymentTerms(summary: PaymentSummary) {
  const later = summary.later ? html`, then <strong>${summary.later}</strong>` : nothing;
  const how = summary.authorised
    ? 'Your card is authorised on a secure payment page next, and charged by the business later.'
    : 'You pay on a secure payment page next.';
  return html`<div part="payment-terms" class="payment-terms" id="payment-terms">
    <p>To pay: <strong>${summary.now}</strong>${later}.</p>
    <p>${how} Unpaid after ${plural(summary.minutes, 'minute', 'minutes')}, the booking is released.</p>
  </div>`;
}

/** "Book now": the tenant's booking form, its problems beside each field, and "Confirm booking". */
export function renderCheckout(host: CheckoutViewHost) {
  const form = host.checkout.form;
  if (!form) return nothing;
  const summary = host.checkout.paymentSummary();
  const policy = form.fields.find(([id]) => id === 'customer_tos_agree');
  return html`<form part="checkout" class="checkout" novalidate aria-labelledby="checkout-heading"
    @submit=${(event: Event) => {
      event.preventDefault();
      void host.checkout.submit();
    }}>
    <h2 id="checkout-heading" tabindex="-1">Your details</h2>
    ${host.cart ? html`<p>${summary ? 'Total' : 'Total to pay'}: <strong>${formatMoney(host.cart.total, host.locale)}</strong>. Held for you for <span role="timer" aria-label="Time left on your hold">${host.hold.display}</span>.</p>` : nothing}
    ${renderSummary(host)}
    ${form.fields.filter(([id]) => id !== 'customer_tos_agree').map(([id, field]) => renderField(host, id, field))}
    ${form.policy ? html`<h3>Booking policy</h3><p class="policy">${form.policy}</p>` : nothing}
    ${policy ? renderField(host, policy[0], policy[1]) : nothing}
    ${summary ? renderPaymentTerms(summary) : nothing}
    <div class="actions">
      <button type="submit" part="button primary-button" class="primary"
        aria-describedby=${summary ? 'payment-terms' : nothing}>${summary ? 'Confirm and pay' : 'Confirm booking'}</button>
      <button type="button" part="button" @click=${() => host.startOver('cart-heading')}>Back to cart</button>
    </div>
  </form>`;
}

/** A booking that awaits its payment: never "confirmed"; on its way to the payment page, or asking again. */
function renderAwaitingPayment(host: CheckoutViewHost, done: Confirmation) {
  const pay = linkUrl(done.paymentUrl);
  const until = done.paymentDeadline
    ? html` until <strong>${formatDate(new Date(done.paymentDeadline * 1000), host.locale, { hour: 'numeric', minute: '2-digit' })}</strong>`
    : nothing;
  return html`<section part="confirmation" class="confirmation" aria-labelledby="done-heading">
    <h2 id="done-heading" tabindex="-1">${pay ? 'Now pay to confirm your booking' : 'Your booking is not paid yet'}</h2>
    <p>Booking <strong class="code">${done.code}</strong> is held for you${until}.</p>
    ${
      pay
        ? html`<p>Taking you to the payment page…</p>
            <p><a part="link" class="pay-link" href=${pay}>Pay ${formatMoney(done.deposit, host.locale)} now</a></p>`
        : html`<p>The payment page could not be opened.</p>
            <button type="button" part="button primary-button" class="primary" @click=${() => host.checkout.retryPayment()}>
              Try again
            </button>`
    }
  </section>`;
}

/** The booking made: its code, its total and where its invoice is (or, when it awaits payment, that). */
export function renderConfirmation(host: CheckoutViewHost) {
  const done = host.checkout.confirmation;
  if (!done) return nothing;
  if (done.deposit) return renderAwaitingPayment(host, done);
  const invoice = linkUrl(done.invoiceUrl);
  const manage = linkUrl(done.manageUrl);
  return html`<section part="confirmation" class="confirmation" aria-labelledby="done-heading">
    <h2 id="done-heading" tabindex="-1">Booking confirmed</h2>
    <p>Your booking code is <strong class="code">${done.code}</strong>.</p>
    <p>Total: <strong>${formatMoney(done.total, host.locale)}</strong></p>
    ${invoice ? html`<p><a part="link" href=${invoice} target="_blank" rel="noopener">View your invoice<span class="visually-hidden"> (opens in a new tab)</span></a></p>` : nothing}
    ${manage ? html`<p><a part="link" href=${manage} target="_blank" rel="noopener">Manage your booking<span class="visually-hidden"> (opens in a new tab)</span></a></p>` : nothing}
    ${
      host.checkout.calendarUrl
        ? html`<p><a part="link" class="file-link" href=${host.checkout.calendarUrl} download="booking-${done.code}.ics">Add to your calendar<span class="visually-hidden"> (downloads a calendar file)</span></a></p>`
        : nothing
    }
    <button type="button" part="button" @click=${() => host.startOver()}>Make another booking</button>
  </section>`;
}
