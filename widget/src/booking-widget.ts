import { html, LitElement, type PropertyValues } from 'lit';
import {
  CallError,
  createWidgetApi,
  type Filters,
  type SearchQuery,
  sessionStore,
  type WidgetApi,
} from './api.ts';
import { Availability, type AvailabilityHost } from './availability.ts';
import { Calls, type CallsHost, type Notice, type RunOptions } from './calls.ts';
import { Checkout, type CheckoutHost, type WidgetView } from './checkout.ts';
import { formatDates, isoDate, plural } from './format.ts';
import { HoldClock, type HoldClockHost } from './hold-clock.ts';
import { type StayLine, stayLinesOf } from './ics.ts';
import { addToCart, alterLine } from './shop.ts';
import { Slots, type SlotsHost } from './slots.ts';
import { styles } from './styles.ts';
import type { CatalogueItem, Locale, ParamDefinition, ResultItem, Session } from './types.ts';
import { type CalendarHost, renderCalendar } from './views/calendar.ts';
import { type CartHost, renderCart } from './views/cart.ts';
import { type CheckoutViewHost, renderCheckout, renderConfirmation } from './views/checkout.ts';
import { type NoticeHost, renderNotice } from './views/notice.ts';
import { type ResultsHost, renderResults } from './views/results.ts';
import { checkSearch, renderSearch, type SearchHost } from './views/search.ts';

/**
 * `<booking-widget api="https://lodge.example.com/api/3.0">`: a guest sees which dates are open (and the
 * price a night), picks dates, sees prices, holds items in a cart and books, all through the public
 * Booking API 3.0. Attributes: `api` (required), `category` (a category id), `item` (item ids,
 * comma-separated), `start-date` and `end-date` (YYYY-MM-DD: searched at once).
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
    ResultsHost,
    SearchHost
{
  static override properties = {
    api: { type: String },
    category: { type: String },
    item: { type: String },
    startDate: { type: String, attribute: 'start-date' },
    endDate: { type: String, attribute: 'end-date' },
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
  };

  static override styles = styles;

  declare api: string;
  declare category: string | undefined;
  declare item: string | undefined;
  declare startDate: string | undefined;
  declare endDate: string | undefined;

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
    this.query = { start: isoDate(new Date()), end: isoDate(new Date()), params: {} };
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('api') && this.api) void this.start();
  }

  /** The filters the page's attributes set. */
  get filters(): Filters {
    const items = (this.item ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
    return { ...(this.category ? { category: this.category } : {}), ...(items.length ? { items } : {}) };
  }

  /** The booking parameters the offered items use (the first item to use one gives its default). */
  get params(): Array<[string, ParamDefinition]> {
    const seen = new Map<string, ParamDefinition>();
    for (const item of this.catalogue)
      for (const [id, param] of Object.entries(item.param ?? {}))
        if (!param.hide) {
          const known = seen.get(id);
          seen.set(id, known ? { ...known, MAX: Math.max(known.MAX, param.MAX) } : param);
        }
    return [...seen];
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
  }

  private async start(): Promise<void> {
    const base = new URL(this.api, document.baseURI).href.replace(/\/$/, '');
    this.client = createWidgetApi(base);
    this.store = sessionStore(base);
    const preset = this.startDate && this.endDate && this.endDate >= this.startDate;
    if (preset) this.availability.preset(this.startDate as string, this.endDate as string);
    await this.run(async () => {
      const client = this.client as WidgetApi;
      // The first month's two calls bring the catalogue too: the calendar is drawn from the first paint.
      const loaded = await this.availability.load();
      if (loaded) {
        this.catalogue = loaded.items;
        this.locale = loaded.locale;
      }
      this.ready = true;
      for (const [id, param] of this.params) this.query.params[id] ??= param.def;
      const saved = this.store.get();
      if (saved) {
        try {
          this.showCart(await client.readSession(saved));
        } catch (error) {
          if (!(error instanceof CallError) || !['session_expired', 'not_found'].includes(error.code))
            throw error;
          this.store.set(undefined);
        }
      }
      if (preset) {
        this.query.start = this.startDate as string;
        this.query.end = this.endDate as string;
        await this.search({ focus: false });
      }
    }, 'start');
  }

  /** Runs a call of the guest's in turn (see Calls). */
  run(action: () => Promise<void>, key = 'action', options: RunOptions = {}): Promise<boolean> {
    return this.calls.run(action, key, options);
  }

  /** Rates the chosen dates with the quantities, once they are whole numbers in bounds. */
  async searchDates(): Promise<void> {
    this.searchProblems = checkSearch(this);
    const first = Object.keys(this.searchProblems)[0];
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
    const query = { ...this.query, params: { ...this.query.params } };
    const found = await client.search(query, this.filters);
    this.results = found.items;
    this.locale = found.locale;
    this.searched = query;
    await this.slots.load(found.items, query);
    if (options.focus) {
      const shown = this.chosenItem
        ? found.items.filter((item) => String(item.item_id) === this.chosenItem).length
        : found.items.length;
      this.announce(
        `${plural(shown, 'option', 'options')} for ${formatDates(query.start, query.end, this.locale)}.`,
      );
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
