import type { ReactiveControllerHost } from 'lit';
import type { Filters, SearchQuery, WidgetApi } from './api.ts';
import { compactDate, dateOf, formatDate, isoDate, monthSpan } from './format.ts';
import type { CatalogueItem, Locale } from './types.ts';

/** What the availability calendar needs of its element: the API, the offered items and the search. */
export interface AvailabilityHost extends ReactiveControllerHost {
  readonly client: WidgetApi | undefined;
  readonly filters: Filters;
  readonly catalogue: CatalogueItem[];
  readonly locale: Locale | undefined;
  readonly query: SearchQuery;
  announce(text: string): void;
  focusPart(id: string): void;
  /** Rates the offered items for the chosen dates and shows them. */
  searchDates(): Promise<void>;
}

/** One month as the calendar shows it: each item's open dates and each nightly item's price per night. */
interface MonthData {
  open: Record<string, Record<string, number>>;
  prices: Record<string, Record<string, string>>;
}

/** What the calendar knows of a day: open or not (undefined until its month is in) and the lowest price a night. */
export interface DayState {
  past: boolean;
  open: boolean | undefined;
  /** Its month could not be loaded: nothing is checking it until the guest tries again. */
  failed: boolean;
  price: string | undefined;
}

/** A month's span as the calls ask it: the first to the last day, and the first of the next. */
const spanOf = (month: string) => {
  const { start, end } = monthSpan(month);
  return { start, end, next: monthSpan(month, 1).start };
};

/**
 * The availability calendar's state: the month shown (with its open dates from `item/cal` and the prices
 * per night of a month-long rated `GET item`, loaded together and kept per month), the focused day, the
 * item the calendar is for, and the dates chosen; the second date chosen runs the search.
 */
export class Availability {
  month: string;
  focused: string;
  /** The item the calendar is for ('' for everything offered). */
  chosen = '';
  start: string | undefined;
  end: string | undefined;
  private readonly months = new Map<string, MonthData | 'loading' | 'failed'>();

  constructor(private readonly host: AvailabilityHost) {
    this.focused = isoDate(new Date());
    this.month = monthSpan(this.focused).start;
  }

  /** How the chosen item counts (N nights, D days, H hours), or undefined for several kinds at once. */
  get unit(): 'N' | 'D' | 'H' | undefined {
    const items = this.items;
    const first = items[0]?.unit;
    return first && items.every((item) => item.unit === first) ? first : undefined;
  }

  /** The items the calendar is for. */
  get items(): CatalogueItem[] {
    const all = this.host.catalogue;
    return this.chosen ? all.filter((item) => String(item.item_id) === this.chosen) : all;
  }

  /** The shown month's state: loaded, loading, failed (or not asked yet). */
  get status(): MonthData | 'loading' | 'failed' | undefined {
    return this.months.get(this.month);
  }

  /**
   * Loads a month: its open dates and its prices in two calls side by side. The first month's rated answer
   * is also the catalogue (returned), so the widget starts with two calls in all.
   */
  async load(month = this.month): Promise<{ items: CatalogueItem[]; locale: Locale } | undefined> {
    const client = this.host.client;
    const known = this.months.get(month);
    if (!client || known === 'loading' || (known && known !== 'failed')) return undefined;
    this.months.set(month, 'loading');
    this.host.requestUpdate();
    const span = spanOf(month);
    try {
      const [rated, open] = await Promise.all([
        // To the next month's first: a nightly item's last night of the month has its price too.
        client.month(this.host.filters, { start: span.start, end: span.next }),
        client.openDates(this.host.filters, { start: span.start, end: span.end }),
      ]);
      const prices: MonthData['prices'] = {};
      for (const item of rated.items) {
        if (item.unit !== 'N') continue;
        const dates = item.rate?.dates ?? {};
        prices[item.item_id] = Object.fromEntries(
          Object.entries(dates).map(([date, day]) => [date, String(day.sub_total ?? '')]),
        );
      }
      this.months.set(month, { open, prices });
      return { items: rated.items, locale: rated.locale };
    } catch (error) {
      this.months.set(month, 'failed');
      throw error;
    } finally {
      this.host.requestUpdate();
    }
  }

  /** Loads the shown month again after a failure ("Try again"). */
  retry(): void {
    void this.load().catch(() => undefined);
  }

  /** Whether a day can be booked for the chosen item(s), and the lowest price a night that day. */
  day(date: string): DayState {
    const past = date < isoDate(new Date());
    const data = this.months.get(monthSpan(date).start);
    if (past || !data || typeof data === 'string')
      return { past, open: past ? false : undefined, failed: !past && data === 'failed', price: undefined };
    const key = compactDate(date);
    let open = false;
    let price: number | undefined;
    for (const item of this.items) {
      if ((data.open[item.item_id]?.[key] ?? 0) <= 0) continue;
      open = true;
      const night = Number(data.prices[item.item_id]?.[key] ?? Number.NaN);
      if (Number.isFinite(night) && night > 0 && (price === undefined || night < price)) price = night;
    }
    return { past, open, failed: false, price: price === undefined ? undefined : price.toFixed(2) };
  }

  /** Whether one item can be booked on a date, as `item/cal` said (undefined when that month is not in). */
  openFor(itemId: number, date: string): boolean | undefined {
    const data = this.months.get(monthSpan(date).start);
    if (!data || typeof data === 'string') return undefined;
    return (data.open[itemId]?.[compactDate(date)] ?? 0) > 0;
  }

  /** Whether the month shown is this month (no earlier one can be booked: "Previous month" is off). */
  get atFirstMonth(): boolean {
    return this.month <= monthSpan(isoDate(new Date())).start;
  }

  /** Shows another month (its data loaded when needed), keeping the focused day in it. */
  showMonth(offset: number): void {
    if (offset < 0 && this.atFirstMonth) return;
    const focused = dateOf(this.focused);
    const target = monthSpan(this.month, offset).first;
    const last = new Date(target.getFullYear(), target.getMonth() + 1, 0).getDate();
    this.moveTo(
      isoDate(new Date(target.getFullYear(), target.getMonth(), Math.min(focused.getDate(), last))),
    );
  }

  /** Moves the calendar's focus to a day (another month's day shows that month), focusing it when asked. */
  moveTo(date: string, focus = false): void {
    const month = monthSpan(date).start;
    if (month < monthSpan(isoDate(new Date())).start) return;
    this.focused = date;
    if (month !== this.month) {
      this.month = month;
      void this.load(month).catch(() => undefined);
    }
    this.host.requestUpdate();
    if (focus) void this.host.updateComplete.then(() => this.host.focusPart(`day-${date}`));
  }

  /**
   * A day tapped or pressed: the first date chosen (an open day), then the last; a nightly stay needs a
   * later check-out, others may end the day they start. An hourly item needs one date. The last date
   * chosen runs the search.
   */
  async pick(date: string): Promise<void> {
    const state = this.day(date);
    const unit = this.unit;
    const choosingEnd = this.start !== undefined && this.end === undefined && date >= this.start;
    this.focused = date;
    if (choosingEnd && this.start !== undefined) {
      if (unit === 'N' && date === this.start) {
        this.host.announce('Choose a check-out date after your check-in.');
        return;
      }
      this.end = date;
    } else {
      if (state.past || state.open === false) {
        this.host.announce('That date is not available. Choose another.');
        return;
      }
      this.start = date;
      this.end = unit === 'H' ? date : undefined;
    }
    this.host.requestUpdate();
    if (this.end === undefined) {
      const words = formatDate(dateOf(date), this.host.locale, {
        weekday: 'long',
        month: 'long',
        day: 'numeric',
      });
      this.host.announce(
        unit === 'N'
          ? `Check-in ${words}. Now choose your check-out date.`
          : `${words} chosen. Now choose your last day, or the same date again for one day.`,
      );
      return;
    }
    this.host.query.start = this.start as string;
    this.host.query.end = this.end;
    await this.host.searchDates();
  }

  /** Forgets the chosen dates. */
  clear(): void {
    this.start = undefined;
    this.end = undefined;
    this.host.requestUpdate();
  }

  /** Opens the calendar on a date's month, that date focused (before anything is loaded). */
  showFirst(date: string): void {
    this.focused = date;
    this.month = monthSpan(date).start;
  }

  /** Shows the dates a link asked for as chosen (a start alone: the first date, the last to choose). */
  preset(start: string, end: string | undefined): void {
    this.start = start;
    this.end = end;
    this.showFirst(start);
    this.host.requestUpdate();
  }

  /** Forgets every month loaded (the items offered changed). */
  forget(): void {
    this.months.clear();
  }
}
