import { html, nothing } from 'lit';
import type { Checkout } from '../checkout.ts';
import { formatDates, formatMoney, formatStay, formatTime } from '../format.ts';
import type { HoldClock } from '../hold-clock.ts';
import type { Locale, Session, SessionLine } from '../types.ts';

/** What the cart needs of the element: the cart held, its countdown, its changes and "Book now". */
export interface CartHost {
  readonly cart: Session | undefined;
  readonly expired: boolean;
  readonly locale: Locale | undefined;
  readonly hold: Pick<HoldClock, 'display'>;
  readonly checkout: Pick<Checkout, 'open'>;
  /** Changes a cart line: a quantity, `remove`, or a package part's `optin` / `optout`. */
  alter(lineId: string, change: string | number, what: string): Promise<void>;
  /** The hours the guest chose for an hourly line, by its SLIP. */
  hoursOf(slip: string | undefined): { start: string; end: string } | undefined;
}

/** A line's dates in the widget's words: "Mon, Jan 4 – Thu, Jan 7 · 3 nights", or a date and its hours. */
function lineDates(host: CartHost, line: SessionLine): string {
  const start = line.date?.start_date;
  const end = line.date?.end_date;
  if (!start || !end) return '';
  const unit = (line as { unit?: 'N' | 'D' | 'H' }).unit ?? 'D';
  if (unit !== 'H') return formatStay(unit, { start, end }, host.locale);
  const hours = host.hoursOf(line.slip);
  const day = formatDates(start, start, host.locale);
  return hours
    ? `${day} · ${formatTime(hours.start.slice(11, 16), host.locale)} – ${formatTime(hours.end.slice(11, 16), host.locale)}`
    : day;
}

function renderPart(host: CartHost, partId: string, part: SessionLine) {
  if (!part.optional) return html`<li class="part">Includes ${part.name}</li>`;
  const id = `optin-${partId.replace('.', '-')}`;
  const opted = part.opt === 'in';
  return html`<li class="part">
    <input
      type="checkbox"
      class="optin"
      id=${id}
      .checked=${opted}
      @change=${(event: Event) => {
        const on = (event.target as HTMLInputElement).checked;
        void host.alter(
          partId,
          on ? 'optin' : 'optout',
          on ? `${part.name} added.` : `${part.name} removed.`,
        );
      }}
    />
    <label for=${id}>Add ${part.name}</label>
  </li>`;
}

function renderLine(host: CartHost, cart: Session, lineId: string, line: SessionLine) {
  const qty = line.qty ?? 1;
  const parts = Object.entries(cart.item).filter(([, part]) => part.parent === lineId);
  const inputId = `qty-${lineId}`;
  const setQty = (next: number) =>
    next < 1
      ? host.alter(lineId, 'remove', `${line.name} removed from your cart.`)
      : host.alter(lineId, next, `Quantity of ${line.name} is now ${next}.`);
  return html`<li part="cart-line" class="line">
    <p class="line-name">${line.name}</p>
    ${lineDates(host, line) ? html`<p class="muted">${lineDates(host, line)}</p>` : nothing}
    ${parts.length ? html`<ul class="parts" role="list">${parts.map(([partId, part]) => renderPart(host, partId, part))}</ul>` : nothing}
    <div class="line-controls">
      <div class="stepper">
        <button type="button" part="button" aria-label="Decrease quantity of ${line.name}" @click=${() => setQty(qty - 1)}>−</button>
        <label class="visually-hidden" for=${inputId}>Quantity of ${line.name}</label>
        <input
          id=${inputId}
          type="number"
          inputmode="numeric"
          min="1"
          .value=${String(qty)}
          @change=${async (event: Event) => {
            const field = event.target as HTMLInputElement;
            const next = Number(field.value);
            if (Number.isInteger(next) && next !== qty) await setQty(next);
            // Refused, or not a whole number: the field shows what the API holds again. (Only here: a
            // re-render, such as the countdown's every second, must not undo what the guest is typing.)
            field.value = String(host.cart?.item[lineId]?.qty ?? qty);
          }}
        />
        <button type="button" part="button" aria-label="Increase quantity of ${line.name}" @click=${() => setQty(qty + 1)}>+</button>
      </div>
      <span class="line-total">${formatMoney(line.rate?.total, host.locale)}</span>
    </div>
    <button
      type="button"
      part="button"
      class="link"
      aria-label="Remove ${line.name}"
      @click=${() => host.alter(lineId, 'remove', `${line.name} removed from your cart.`)}
    >
      Remove
    </button>
  </li>`;
}

/** The cart ("Cart" region): lines, quantities, package opt-ins, totals, the hold's countdown, "Book now". */
export function renderCart(host: CartHost) {
  const cart = host.cart;
  // The cart's lines are keyed by their line id (`1`, and `1.2` for a package's part).
  const lines = cart ? Object.entries(cart.item).filter(([, line]) => !line.parent) : [];
  return html`<section part="cart" class="cart" aria-labelledby="cart-heading">
    <h2 id="cart-heading" tabindex="-1">Cart</h2>
    ${host.expired ? html`<p class="expired" part="expired">Your hold expired, so the items in your cart were released. Search again to start afresh.</p>` : nothing}
    ${
      cart
        ? html`<ul class="lines" role="list">${lines.map(([lineId, line]) => renderLine(host, cart, lineId, line))}</ul>
            <dl class="totals">
              <div><dt>Subtotal</dt><dd>${formatMoney(cart.sub_total, host.locale)}</dd></div>
              ${Number(cart.tax_total ?? 0) ? html`<div><dt>Taxes</dt><dd>${formatMoney(cart.tax_total, host.locale)}</dd></div>` : nothing}
              <div class="total"><dt>Total</dt><dd>${formatMoney(cart.total, host.locale)}</dd></div>
            </dl>
            <p class="countdown" part="countdown">
              Held for you for <span role="timer" aria-label="Time left on your hold">${host.hold.display}</span>
            </p>
            <button type="button" part="button primary-button" class="primary" @click=${() => host.checkout.open()}>
              Book now
            </button>`
        : host.expired
          ? nothing
          : html`<p class="muted">Your cart is empty.</p>`
    }
  </section>`;
}
