import type { TenantItem } from '../config/index.ts';
import { datesFrom, localHourStarts, utcHourKey, type Ymd } from '../kernel/dates.ts';
import { quantitiesFor, type StockLookup, stockOf, unitsFor } from './rate-item.ts';
import { bookableWindow, isBookableIn } from './rules.ts';
import type { Slot } from './span.ts';

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The counter slots of one local date: the date itself, or each hour an hourly item can be booked, the
 * whole hours from its opening to its closing (09:30 to 12:00 is 10:00 and 11:00), as rating counts them.
 */
export function slotsOfDate(item: TenantItem, date: Ymd, timeZone: string): Slot[] {
  if (item.unit !== 'H' || !item.hours) return [{ key: date, date }];
  const open = Math.ceil(minutesOf(item.hours.open) / 60) * 60;
  const close = Math.floor(minutesOf(item.hours.close) / 60) * 60;
  return localHourStarts(date, open, close, timeZone).map((instant) => ({ key: utcHourKey(instant), date }));
}

/** The counter key range of an item over a date range. */
export function slotRangeOf(
  item: TenantItem,
  first: Ymd,
  last: Ymd,
  timeZone: string,
): { first: string; last: string } {
  const head = slotsOfDate(item, first, timeZone)[0]?.key ?? first;
  const tail = slotsOfDate(item, last, timeZone).at(-1)?.key ?? last;
  return { first: head, last: tail };
}

/**
 * Availability per date for a calendar: the units left (for hourly items, in the best hour), 0 on
 * closed dates and outside the lead time and advance limit. A package's count is what its required
 * parts allow at their default quantities, capped by its own stock.
 */
export function calendarOf(input: {
  item: TenantItem;
  parts?: { item: TenantItem; qty: number; optional: boolean }[];
  first: Ymd;
  last: Ymd;
  today: Ymd;
  timeZone: string;
  stock: StockLookup;
}): Record<Ymd, number> {
  const { item, today, timeZone, stock } = input;
  // The most left in any of a date's slots (none for an hourly item closed all day).
  const availableOn = (of: TenantItem, date: Ymd): number => {
    if (of.unit !== 'H' || !of.hours) return stockOf(of, { key: date, date }, stock).A;
    let best = 0;
    for (const slot of slotsOfDate(of, date, timeZone)) best = Math.max(best, stockOf(of, slot, stock).A);
    return best;
  };
  // What does not change from date to date, worked out once: a calendar asks up to 366 dates.
  const window = bookableWindow(item, today);
  const parts = (input.parts ?? [])
    .filter((part) => !part.optional)
    .map((part) => ({
      item: part.item,
      perPackage: part.qty * unitsFor(part.item, quantitiesFor(part.item, {})),
      window: bookableWindow(part.item, today),
    }));
  const calendar: Record<Ymd, number> = {};
  for (const date of datesFrom(input.first, input.last)) {
    if (!isBookableIn(item, date, window)) {
      calendar[date] = 0;
      continue;
    }
    let partsLimit = Number.POSITIVE_INFINITY;
    for (const part of parts) {
      const allowed =
        part.perPackage > 0 && isBookableIn(part.item, date, part.window)
          ? Math.floor(availableOn(part.item, date) / part.perPackage)
          : 0;
      partsLimit = Math.min(partsLimit, allowed);
    }
    const ownAvailable = availableOn(item, date);
    calendar[date] =
      partsLimit === Number.POSITIVE_INFINITY
        ? ownAvailable
        : item.unlimited
          ? partsLimit
          : Math.min(ownAvailable, partsLimit);
  }
  return calendar;
}
