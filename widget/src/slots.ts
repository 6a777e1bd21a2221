import type { ReactiveControllerHost } from 'lit';
import type { SearchQuery, WidgetApi } from './api.ts';
import type { Calls } from './calls.ts';
import { formatTime } from './format.ts';
import type { Locale, ResultItem } from './types.ts';

/** An hour an hourly item can start at, with what is left then. */
export interface Hour {
  /** `HH:MM`, local to the business. */
  time: string;
  /** The hour's start as the API keys it (`2027-07-05T10:00-04:00`). */
  key: string;
  left: number;
}

/** An hourly item's hours on the searched date, the one chosen, and that hour rated (with its SLIP). */
export interface SlotView {
  hours: Hour[];
  chosen?: Hour;
  rated?: ResultItem;
  failed?: boolean;
}

/** What the slots need of the element: the API, the calls, the searched query. */
export interface SlotsHost extends ReactiveControllerHost {
  readonly client: WidgetApi | undefined;
  readonly searched: SearchQuery | undefined;
  readonly locale: Locale | undefined;
  run: Calls['run'];
  announce(text: string): void;
  /** Whether the calendar has an item open on a date (undefined when it does not know). */
  openFor(itemId: number, date: string): boolean | undefined;
}

/** An hourly item's opening hours, from its rules (`fixed.start_time`, `fixed.end_time`). */
function hoursOf(item: ResultItem): { open: string; close: string } {
  try {
    const fixed = (JSON.parse(item.rules) as { fixed?: { start_time?: string; end_time?: string } }).fixed;
    return { open: fixed?.start_time || '00:00', close: fixed?.end_time || '23:00' };
  } catch {
    return { open: '00:00', close: '23:00' };
  }
}

const nextHour = (time: string): string =>
  `${String(Number(time.slice(0, 2)) + 1).padStart(2, '0')}:${time.slice(3)}`;

/**
 * The time slots of hourly items: after a search, each hourly item is rated over its opening hours on the
 * searched date (one call each), and its `times` become buttons; a slot chosen is rated alone, which gives
 * its price and the SLIP that "Add to cart" holds.
 */
export class Slots {
  views = new Map<number, SlotView>();

  constructor(private readonly host: SlotsHost) {}

  /** Loads the hours of the hourly items of a search's results. */
  async load(results: ResultItem[], query: SearchQuery): Promise<void> {
    this.views = new Map();
    const client = this.host.client;
    if (!client) return;
    await Promise.all(
      results
        .filter((item) => item.unit === 'H')
        .map(async (item) => {
          // A date the calendar knows closed for the item has no hour to offer: no call.
          if (this.host.openFor(item.item_id, query.start) === false) {
            this.views.set(item.item_id, { hours: [] });
            return;
          }
          const { open, close } = hoursOf(item);
          try {
            const rated = await client.rateItem(item.item_id, {
              ...query,
              end: query.start,
              startTime: open,
              endTime: close,
            });
            const hours = (rated.times ?? []).map((key) => {
              const hour = rated.rate?.times?.[key];
              return { key, time: key.slice(11, 16), left: hour?.status === 'A' ? hour.stock.A : 0 };
            });
            this.views.set(item.item_id, { hours });
          } catch {
            this.views.set(item.item_id, { hours: [], failed: true });
          }
        }),
    );
    this.host.requestUpdate();
  }

  /** Rates one hour of an item: its price and SLIP, shown beside its slots. */
  async choose(item: ResultItem, hour: Hour): Promise<void> {
    const client = this.host.client;
    const query = this.host.searched;
    const view = this.views.get(item.item_id);
    if (!client || !query || !view) return;
    await this.host.run(async () => {
      const rated = await client.rateItem(item.item_id, {
        ...query,
        end: query.start,
        startTime: hour.time,
        endTime: nextHour(hour.time),
      });
      this.views = new Map(this.views).set(item.item_id, { ...view, chosen: hour, rated });
      const time = formatTime(hour.time, this.host.locale);
      this.host.announce(
        rated.rate?.status === 'AVAILABLE'
          ? `${item.name} at ${time}: add it to your cart to hold it.`
          : `${item.name} at ${time}: ${rated.rate?.error || 'not available'}.`,
      );
    }, `slot:${item.item_id}:${hour.time}`);
  }

  /** The chosen hour's start and end instants, as the API keys them, for the cart and the calendar file. */
  spanOf(hour: Hour): { start: string; end: string } {
    return { start: hour.key, end: `${hour.key.slice(0, 11)}${nextHour(hour.time)}${hour.key.slice(16)}` };
  }
}
