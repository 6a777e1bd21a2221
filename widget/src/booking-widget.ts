import { html, LitElement, type PropertyValues } from 'lit';
import { createWidgetApi, type Filters, type SearchQuery, sessionStore, type WidgetApi } from './api.ts';
import { Availability, type AvailabilityHost } from './availability.ts';
import { Calls, type CallsHost, type Notice } from './calls.ts';
import { Checkout, type CheckoutHost, type WidgetView } from './checkout.ts';
import { isoDate } from './format.ts';
import { HoldClock, type HoldClockHost } from './hold-clock.ts';
import { type StayLine, stayLinesOf } from './ics.ts';
import { filtersOf, type OpeningHost, openWidget, paramsOf } from './opening.ts';
import { addToCart, alterLine } from './shop.ts';
import { Slots, type SlotsHost } from './slots.ts';
import { styles } from './styles.ts';
import type { CatalogueItem, Locale, ParamDefinition, ResultItem, Session } from './types.ts';
import { type CalendarHost, renderCalendar } from './views/calendar.ts';
import { type CartHost, renderCart } from './views/cart.ts';
import { type CheckoutViewHost, renderCheckout, renderConfirmation } from './views/checkout.ts';
import { type NoticeHost, renderNotice } from './views/notice.ts';
import { type ResultsHost, renderResults, summarise } from './views/results.ts';
import { checkSearch, renderSearch, type SearchHost } from './views/search.ts';

/**
 * `<booking-widget api="https://lodge.example.com/api/3.0">`: a guest sees which dates are open (and the
 * price a night), picks dates, sees prices, holds items in a cart and books, all through the public
 * Booking API 3.0. Attributes: `api` (required), `category` (a category id), `item` (item ids,
 * comma-separated), `start-date` and `end-date` (YYYY-MM-DD) or `nights` (a count from the start): searched
 * at once.
 */
export class BookingWidget
  extends LitElement
  implements
    AvailabilityHost,
    CalendarHost,
    SlotsHost,
    CallsHost,
    CheckoutHost,
    HoldClockHost,
    CartHost,
    CheckoutViewHost,
    NoticeHost,
    OpeningHost,
    ResultsHost,
    SearchHost
{
  static override properties = {
    api: { type: String },
    category: { type: String },
    item: { type: String },
    startDate: { type: String, attribute: 'start-date' },
    endDate: { type: String, attribute: 'end-date' },
    nights: { type: String },
    catalogue: { state: true },
    locale: { state: true },
    results: { state: true },
    searched: { state: true },
    cart: { state: true },
    expired: { state: true },
    now: { state: true },
    view: { state: true },
    notice: { state: true },
    announcement: { state: true },
    pending: { state: true },
    searchProblems: { state: true },
    ready: { state: true },
    unmatched: { state: true },
    partyInvalid: { state: true },
  };

  static override styles = styles;

  declare api: string;
  declare category: string | undefined;
  declare item: string | undefined;
  declare startDate: string | undefined;
  declare endDate: string | undefined;
  declare nights: string | undefined;

  declare catalogue: CatalogueItem[];
  declare locale: Locale | undefined;
  declare results: ResultItem[];
  declare searched: SearchQuery | undefined;
  declare cart: Session | undefined;
  declare expired: boolean;
  declare now: number;
  declare view: WidgetView;
  declare notice: Notice | undefined;
  declare announcement: string;
  declare pending: boolean;
  /** The search form's problems found before calling (field id → message). */
  declare searchProblems: Record<string, string>;
  /** Whether the catalogue is loaded (the search form needs its parameters). */
  declare ready: boolean;
  /** The page's `item`/`category` name nothing the guest can book: the whole catalogue is offered. */
  declare unmatched: boolean;
  /** "Who is coming" holds a party the API cannot rate: the results are not bookable until it is fixed. */
  declare partyInvalid: boolean;

  /** The search form's values, kept as the guest types (rendering does not depend on them). */
  query: SearchQuery;
  readonly checkout = new Checkout(this);
  /** The countdown of the cart's hold. */
  readonly hold = new HoldClock(this);
  /** The calendar: the month shown, its open dates and prices, the dates chosen. */
  readonly availability = new Availability(this);
  /** The hours of hourly items in the results. */
  readonly slots = new Slots(this);
  /** The hours chosen for hourly lines, by SLIP (the cart's lines carry only their date). */
  readonly hours = new Map<string, { start: string; end: string }>();
  private readonly calls = new Calls(this);
  /** Its custom states for styles (`:state(done)`: the booking is made, the widget is as tall as what it says). */
  private readonly internals = this.attachInternals();
  client: WidgetApi | undefined;
  private store = sessionStore('');
  /** The quiet refreshes of the results started (only the latest is shown). */
  refreshes = 0;

  constructor() {
    super();
    this.api = '';
    this.catalogue = [];
    this.results = [];
    this.expired = false;
    this.now = Date.now();
    this.view = 'shop';
    this.announcement = '';
    this.pending = false;
    this.searchProblems = {};
    this.ready = false;
    this.unmatched = false;
    this.partyInvalid = false;
    this.query = { start: isoDate(new Date()), end: isoDate(new Date()), params: {} };
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('api') && this.api) void this.start();
    // The height the widget keeps for its search and cart is not kept under a confirmation.
    if (changed.has('view')) {
      if (this.view === 'done') this.internals.states.add('done');
      else this.internals.states.delete('done');
    }
  }

  /** The filters the page's attributes set. */
  get filters(): Filters {
    return this.unmatched ? {} : filtersOf(this);
  }

  /**
   * The booking parameters of the items the calendar is for (all offered, or the one chosen in "Show
   * dates for"); the first item to use one gives its default.
   */
  get params(): Array<[string, ParamDefinition]> {
    return paramsOf(this.availability.items);
  }

  /** The category the page offers, by its name, when the page names one and it is offered. */
  get categoryName(): string | undefined {
    if (!this.category || this.unmatched) return undefined;
    return this.catalogue.find((item) => item.category)?.category;
  }

  /** Whether the calendar has an item open on a date (undefined when it does not know). */
  openFor(itemId: number, date: string): boolean | undefined {
    return this.availability.openFor(itemId, date);
  }

  /** The item the calendar is for ('' for everything offered). */
  get chosenItem(): string {
    return this.availability.chosen;
  }

  /** The calendar is for another item (or everything): the dates and results start afresh. */
  chooseItem(itemId: string): void {
    this.availability.chosen = itemId;
    this.availability.clear();
    this.searched = undefined;
    this.results = [];
    this.searchProblems = {};
    this.partyInvalid = false;
    const name = this.availability.items.length === 1 ? this.availability.items[0]?.name : undefined;
    this.announce(`The calendar shows dates for ${name ?? 'everything'}. Choose your dates.`);
  }

  /** The party was edited: while it is not one the API can rate, the results are not bookable. */
  checkParty(): void {
    this.partyInvalid = Object.keys(checkSearch(this)).length > 0;
  }

  private async start(): Promise<void> {
    const base = new URL(this.api, document.baseURI).href.replace(/\/$/, '');
    this.client = createWidgetApi(base);
    this.store = sessionStore(base);
    const link = { start: this.startDate, end: this.endDate, nights: this.nights };
    await openWidget(this, { client: this.client, store: this.store, link });
  }

  /** Runs a call of the guest's in turn (see Calls). */
  run(action: () => Promise<void>, key = 'action'): Promise<boolean> {
    return this.calls.run(action, key);
  }

  /** Rates the chosen dates with the quantities, once they are whole numbers in bounds. */
  async searchDates(): Promise<void> {
    this.searchProblems = checkSearch(this);
    const first = Object.keys(this.searchProblems)[0];
    this.partyInvalid = first !== undefined;
    if (first) {
      await this.updateComplete;
      this.focusPart(`search-${first}`);
      return;
    }
    await this.run(() => this.search(), 'search');
  }

  /** Rates the offered items for the chosen dates and quantities (and the hours of hourly items). */
  async search(options: { focus: boolean } = { focus: true }): Promise<void> {
    const client = this.client;
    if (!client) return;
    // Only the quantities "Who is coming" shows: the others are the API's defaults.
    const params = Object.fromEntries(
      this.params.map(([id, param]) => [id, this.query.params[id] ?? param.def]),
    );
    const query = { ...this.query, params };
    const found = await client.search(query, this.filters);
    this.results = found.items;
    this.locale = found.locale;
    this.searched = query;
    this.partyInvalid = false;
    await this.slots.load(found.items, query);
    if (options.focus) {
      this.announce(`${summarise(this)}.`);
      await this.updateComplete;
      this.focusPart('results-heading');
    }
  }

  /** Holds an item (an hourly one for its hours): its SLIP goes into the cart (a new one when there is none). */
  add(item: ResultItem, hours?: { start: string; end: string }): Promise<void> {
    return addToCart(this, item, hours);
  }

  /** Changes a cart line: a quantity, `remove`, or a package part's `optin` / `optout`. */
  alter(lineId: string, change: string | number, what: string): Promise<void> {
    return alterLine(this, { lineId, change, what });
  }

  showCart(session: Session): void {
    const lines = Object.keys(session.item).length;
    this.cart = lines ? session : undefined;
    this.store.set(lines ? session.id : undefined);
    this.expired = false;
    this.now = Date.now();
    if (lines) this.hold.start();
    else this.hold.stop();
  }

  /** The cart's lines (not a package's parts) with their dates, and the hours of hourly ones. */
  stayLines(cart: Session): StayLine[] {
    return stayLinesOf(cart, (slip) => this.hoursOf(slip));
  }

  /** The hours the guest chose for an hourly line, by its SLIP. */
  hoursOf(slip: string | undefined): { start: string; end: string } | undefined {
    return slip ? this.hours.get(slip) : undefined;
  }

  /** The cart became a booking: nothing is held any more. */
  forgetCart(): void {
    this.cart = undefined;
    this.store.set(undefined);
    this.hold.stop();
  }

  /** The hold ended: the cart says so, and the next item starts a new one. */
  expire(): void {
    this.forgetCart();
    this.expired = true;
    this.view = this.view === 'done' ? 'done' : 'shop';
    this.announce('Your hold has expired and the items in your cart were released.');
  }

  /** Takes the guest to another page (the provider's checkout): the page itself goes, not a frame or a tab. */
  leaveFor(url: string): void {
    globalThis.location.assign(url);
  }

  /** Says something to screen readers through the polite live region. */
  announce(text: string): void {
    // The same words twice would not be read again: a zero-width change makes them new.
    this.announcement = this.announcement === text ? `${text}\u200b` : text;
  }

  /** Moves focus to an element of the widget by its id. */
  focusPart(id: string): void {
    this.renderRoot.querySelector<HTMLElement>(`#${id}`)?.focus();
  }

  /** Back to the search and the cart ("Back to cart", "Make another booking"), focus on `focusId`. */
  async startOver(focusId = 'search-heading'): Promise<void> {
    this.view = 'shop';
    this.checkout.reset();
    this.expired = false;
    this.notice = undefined;
    await this.updateComplete;
    this.focusPart(focusId);
  }

  override render() {
    const main =
      this.view === 'done'
        ? renderConfirmation(this)
        : this.view === 'checkout'
          ? renderCheckout(this)
          : html`<div class="layout">
              <div class="shop">${renderCalendar(this)} ${renderSearch(this)} ${renderResults(this)}</div>
              ${renderCart(this)}
            </div>`;
    return html`<div part="widget" class="widget" aria-busy=${this.pending ? 'true' : 'false'}>
      ${renderNotice(this)} ${main}
      <div class="visually-hidden" role="status" aria-live="polite">${this.announcement}</div>
    </div>`;
  }
}
