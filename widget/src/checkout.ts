import type { ReactiveControllerHost } from 'lit';
import { CallError, type WidgetApi } from './api.ts';
import type { Calls } from './calls.ts';
import { checkForm, serverProblems } from './form-rules.ts';
import { bookingCalendar, type StayLine } from './ics.ts';
import { type PaymentSummary, summarisePayment } from './payment.ts';
import type { CheckoutForm, Confirmation, Locale, PaymentTerms, Session } from './types.ts';

/** What the widget shows: the shop (search, results and cart), the booking form, or the booking made. */
export type WidgetView = 'shop' | 'checkout' | 'done';

/** What the booking form needs of the element that shows it. */
export interface CheckoutHost extends ReactiveControllerHost {
  readonly client: WidgetApi | undefined;
  readonly cart: Session | undefined;
  view: WidgetView;
  run: Calls['run'];
  /** The cart became a booking: nothing is held any more. */
  forgetCart(): void;
  /** The cart's lines as a calendar file shows them. */
  stayLines(cart: Session): StayLine[];
  readonly locale: Locale | undefined;
  announce(text: string): void;
  focusPart(id: string): void;
  /** Takes the guest to another page (the provider's checkout). */
  leaveFor(url: string): void;
}

/** The form's field for the guest's country. */
const COUNTRY_FIELD = 'customer_country';

/** A random Idempotency-Key (crypto.randomUUID needs a secure context; a business's page may not be one). */
const randomKey = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join(
    '',
  );

/**
 * The booking form and its outcome: the fields `booking/form` defines, what the guest typed, the problems
 * found here or by the server, and the confirmed booking.
 */
export class Checkout {
  form: CheckoutForm | undefined;
  values: Record<string, string> = {};
  problems: Record<string, string> = {};
  /** Server problems with no field on the form to show them beside. */
  other: string[] = [];
  confirmation: Confirmation | undefined;
  /** The booking's calendar file ("Add to your calendar"), as a blob URL of this page. */
  calendarUrl: string | undefined;
  /** How the business takes payment at booking (`company.payment`); unknown if `GET company` failed. */
  terms: PaymentTerms | undefined;
  /** The digits of the business's currency. */
  decimals = 2;
  /** The cart booked, kept while its payment could not be started (to ask again for the checkout). */
  private booked: { sessionId: string; values: Record<string, string> } | undefined;
  private key = '';
  private keyFor = '';

  constructor(private readonly host: CheckoutHost) {}

  /** Opens the form ("Book now"), loading it once. */
  async open(): Promise<void> {
    const client = this.host.client;
    if (!client || !this.host.cart) return;
    await this.host.run(async () => {
      if (!this.form) {
        // The business's country preselects the guest's when the form gives none (most guests are local).
        const [form, company] = await Promise.all([client.form(), client.company().catch(() => undefined)]);
        const country = company?.country;
        this.terms = company?.payment;
        this.decimals = company?.decimals ?? this.decimals;
        this.form = form;
        for (const [id, field] of form.fields) this.values[id] ??= field.value ?? '';
        const options = form.fields.find(([id]) => id === COUNTRY_FIELD)?.[1].define.layout.options;
        if (country && options && country in options && !this.values[COUNTRY_FIELD])
          this.values[COUNTRY_FIELD] = country;
      }
      this.problems = {};
      this.other = [];
      this.host.view = 'checkout';
      await this.host.updateComplete;
      this.host.focusPart('checkout-heading');
    }, 'checkout');
  }

  set(id: string, value: string): void {
    this.values[id] = value;
  }

  /** Checks the form as the server would, then books ("Confirm booking"). */
  async submit(): Promise<void> {
    const form = this.form;
    const cart = this.host.cart;
    const client = this.host.client;
    if (!form || !client) return;
    if (!cart) {
      this.host.view = 'shop';
      return;
    }
    this.problems = checkForm(form.fields, this.values);
    this.other = [];
    if (Object.keys(this.problems).length) return this.showProblems();
    const body = JSON.stringify(this.values);
    // The same answers keep their key, so a retry after a lost answer replays the booking, not a second one.
    if (body !== this.keyFor) {
      this.key = randomKey();
      this.keyFor = body;
    }
    let refused = false;
    await this.host.run(async () => {
      try {
        this.confirmation = await client.book(cart.id, { ...this.values }, this.key);
      } catch (error) {
        if (!(error instanceof CallError) || error.code !== 'validation_error') throw error;
        const found = serverProblems(form.fields, error.fields, error.message.startsWith('Missing'));
        this.problems = found.byField;
        this.other = found.other.length || Object.keys(found.byField).length ? found.other : [error.message];
        refused = true;
        return;
      }
      const file = bookingCalendar(this.confirmation.code, this.host.stayLines(cart));
      this.calendarUrl = URL.createObjectURL(new Blob([file], { type: 'text/calendar' }));
      this.host.forgetCart();
      this.booked = { sessionId: cart.id, values: { ...this.values } };
      await this.showBooked();
    }, 'book');
    if (refused) await this.showProblems();
  }

  /**
   * What is paid now and what later, for the cart, before the guest confirms; undefined when nothing is paid
   * at booking (or the terms are unknown).
   */
  paymentSummary(): PaymentSummary | undefined {
    const cart = this.host.cart;
    if (!cart) return undefined;
    // The booking starts on its first line's date (YYYYMMDD), as the service dates its balance.
    const start = Object.values(cart.item)
      .flatMap((line) => (!line.parent && line.date?.start_date ? [line.date.start_date] : []))
      .sort()[0];
    return summarisePayment(
      this.terms,
      { total: cart.total, start },
      { decimals: this.decimals, locale: this.host.locale, today: new Date() },
    );
  }

  /** The booking made: confirmed, on its way to the payment, or waiting for a payment page that did not open. */
  private async showBooked(): Promise<void> {
    const done = this.confirmation;
    if (!done) return;
    this.host.view = 'done';
    if (!done.deposit) this.host.announce(`Booking ${done.code} confirmed.`);
    else if (done.paymentUrl)
      this.host.announce(`Booking ${done.code} is held. Taking you to the payment page.`);
    else this.host.announce(`Booking ${done.code} is held, but the payment page could not be opened.`);
    await this.host.updateComplete;
    this.host.focusPart('done-heading');
    if (done.paymentUrl) {
      this.booked = undefined;
      this.host.leaveFor(done.paymentUrl);
    }
  }

  /**
   * Asks again for the payment page of the booking made (its create repeated, with a new key so it is not
   * replayed): the service opens the checkout then, afresh when the first request can no longer be repeated.
   */
  async retryPayment(): Promise<void> {
    const client = this.host.client;
    const booked = this.booked;
    if (!client || !booked) return;
    await this.host.run(async () => {
      this.confirmation = await client.book(booked.sessionId, booked.values, randomKey());
      await this.showBooked();
    }, 'pay');
  }

  private async showProblems(): Promise<void> {
    this.host.requestUpdate();
    await this.host.updateComplete;
    this.host.focusPart('error-summary');
  }

  /** Back to an empty form for the next booking (answers kept for the same guest). */
  reset(): void {
    this.problems = {};
    this.other = [];
    this.confirmation = undefined;
    this.booked = undefined;
    if (this.calendarUrl) URL.revokeObjectURL(this.calendarUrl);
    this.calendarUrl = undefined;
  }
}
