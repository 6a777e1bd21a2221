import { html, LitElement, type PropertyValues } from 'lit';
import {
  CallError,
  createWidgetApi,
  type Filters,
  type SearchQuery,
  sessionStore,
  type WidgetApi,
} from './api.ts';
import { Calls, type CallsHost, type Notice, type RunOptions } from './calls.ts';
import { Checkout, type CheckoutHost, type WidgetView } from './checkout.ts';
import { isoDate } from './format.ts';
import { HoldClock, type HoldClockHost } from './hold-clock.ts';
import { styles } from './styles.ts';
import type { CatalogueItem, Locale, ParamDefinition, ResultItem, Session } from './types.ts';
import type { CalendarView } from './views/calendar.ts';
import { type CartHost, renderCart } from './views/cart.ts';
import { type CheckoutViewHost, renderCheckout, renderConfirmation } from './views/checkout.ts';
import { type NoticeHost, renderNotice } from './views/notice.ts';
import { type ResultsHost, renderResults } from './views/results.ts';
import { type DateMode, renderSearch, type SearchHost } from './views/search.ts';

/**
 * `<booking-widget api="https://lodge.example.com/api/3.0">`: a guest picks dates, sees prices and
 * availability, holds items in a cart and books, all through the public Booking API 3.0.
 * Attributes: `api` (required), `category` (a category id), `item` (item ids, comma-separated),
 * `start-date` and `end-date` (YYYY-MM-DD: searched at once).
 */
export class BookingWidget
  extends LitElement
  implements
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
    calendars: { state: true },
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
  declare calendars: Map<number, CalendarView>;
  /** The search form's problems found before calling (field id → message). */
  declare searchProblems: Record<string, string>;
  /** Whether the catalogue is loaded (the search form needs its parameters). */
  declare ready: boolean;

  /** The search form's values, kept as the guest types (rendering does not depend on them). */
  query: SearchQuery;
  readonly checkout = new Checkout(this);
  /** The countdown of the cart's hold. */
  readonly hold = new HoldClock(this);
  private readonly calls = new Calls(this);
  client: WidgetApi | undefined;
  private store = sessionStore('');
  private refreshes = 0;

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
    this.calendars = new Map();
    this.searchProblems = {};
    this.ready = false;
    this.query = { start: isoDate(new Date(), 1), end: isoDate(new Date(), 2), params: {} };
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

  /** Which kinds of dates the search asks for: start and end, and times when items are hourly. */
  get dateMode(): DateMode {
    const hourly = this.catalogue.filter((item) => item.unit === 'H').length;
    return { hourlyOnly: hourly > 0 && hourly === this.catalogue.length, hasHourly: hourly > 0 };
  }

  private async start(): Promise<void> {
    const base = new URL(this.api, document.baseURI).href.replace(/\/$/, '');
    this.client = createWidgetApi(base);
    this.store = sessionStore(base);
    await this.run(async () => {
      const client = this.client as WidgetApi;
      const catalogue = await client.catalogue(this.filters);
      this.catalogue = catalogue.items;
      this.locale = catalogue.locale;
      this.ready = true;
      for (const [id, param] of this.params) this.query.params[id] ??= param.def;
      if (this.startDate) this.query.start = this.startDate;
      if (this.endDate) this.query.end = this.endDate;
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
      if (this.startDate && this.endDate) await this.search({ focus: false });
    }, 'start');
  }

  /** Runs a call of the guest's in turn (see Calls). */
  run(action: () => Promise<void>, key = 'action', options: RunOptions = {}): Promise<boolean> {
    return this.calls.run(action, key, options);
  }

  /** Rates the offered items for the search form's dates and quantities. */
  async search(options: { focus: boolean } = { focus: true }): Promise<void> {
    const client = this.client;
    if (!client) return;
    const query = { ...this.query, params: { ...this.query.params } };
    if (this.dateMode.hourlyOnly) query.end = query.start;
    const found = await client.search(query, this.filters);
    this.results = found.items;
    this.locale = found.locale;
    this.searched = query;
    this.calendars = new Map();
    if (options.focus) {
      this.announce(`${found.items.length} results for your dates.`);
      await this.updateComplete;
      this.focusPart('results-heading');
    }
  }

  /** Holds an item: its SLIP goes into the cart (a new one when there is none). */
  async add(item: ResultItem): Promise<void> {
    const slip = item.rate?.slip;
    const client = this.client;
    if (!slip || !client) return;
    const added = await this.run(async () => {
      const session = await client.writeSession({ sessionId: this.cart?.id, slip });
      this.showCart(session);
      this.announce(`${item.name} added to your cart.`);
      await this.updateComplete;
      this.focusPart('cart-heading');
    }, `add:${item.item_id}`);
    if (added) void this.refreshResults();
  }

  /** Changes a cart line: a quantity, `remove`, or a package part's `optin` / `optout`. */
  async alter(lineId: string, change: string | number, what: string): Promise<void> {
    const client = this.client;
    const cart = this.cart;
    if (!client || !cart) return;
    const quantity = typeof change === 'number';
    const altered = await this.run(
      async () => {
        const session = await client.writeSession({ sessionId: cart.id, alter: { [lineId]: change } });
        this.showCart(session);
        this.announce(what);
        if (change === 'remove') {
          await this.updateComplete;
          this.focusPart('cart-heading');
        }
      },
      `alter:${lineId}:${change}`,
      // A quantity refused asks for more than is left now; a retry asks again (others' holds expire).
      quantity
        ? {
            messages: {
              unavailable: `Not enough left for ${change} right now: the quantity stays as it was.`,
            },
          }
        : {},
    );
    // Refused or not, the cart shows what the API holds (a refused quantity goes back in its field).
    this.requestUpdate();
    if (altered) void this.refreshResults();
  }

  /**
   * Re-rates the last search quietly, beside the guest's calls, so what is left matches what the cart now
   * holds; only the latest refresh is shown.
   */
  private async refreshResults(): Promise<void> {
    if (!this.searched || !this.client) return;
    const mine = ++this.refreshes;
    try {
      const found = await this.client.search(this.searched, this.filters);
      if (mine === this.refreshes) this.results = found.items;
    } catch {
      // The cart changed; the list is only a little stale, and the next search refreshes it.
    }
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
          : this.ready
            ? html`<div class="layout">
                <div class="shop">${renderSearch(this)} ${renderResults(this)}</div>
                ${renderCart(this)}
              </div>`
            : html`<p class="muted">${this.notice ? 'The booking service is not available.' : 'Loading…'}</p>`;
    return html`<div part="widget" class="widget" aria-busy=${this.pending ? 'true' : 'false'}>
      ${renderNotice(this)} ${main}
      <div class="visually-hidden" role="status" aria-live="polite">${this.announcement}</div>
    </div>`;
  }
}
