import type { TenantItem } from '../config/tenant-schema.ts';
import { datesFrom, localInstant, utcHourKey, type Ymd } from '../core/dates.ts';
import { quantitiesFor, type StockLookup, stockOf, unitsFor } from './rate-item.ts';
import { isBookableOn } from './rules.ts';
import type { Slot } from './span.ts';

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The counter slots of one local date: the date itself, or each opening hour of an hourly item. */
export function slotsOfDate(item: TenantItem, date: Ymd, timeZone: string): Slot[] {
  if (item.unit !== 'H' || !item.hours) return [{ key: date, date }];
  const slots: Slot[] = [];
  const from = localInstant(date, minutesOf(item.hours.open), timeZone);
  const to = localInstant(date, minutesOf(item.hours.close), timeZone);
  for (let instant = from; instant < to; instant += 3_600_000) slots.push({ key: utcHourKey(instant), date });
  return slots;
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
  const { item } = input;
  const calendar: Record<Ymd, number> = {};
  for (const date of datesFrom(input.first, input.last)) {
    if (!isBookableOn(item, date, input.today)) {
      calendar[date] = 0;
      continue;
    }
    const own = slotsOfDate(item, date, input.timeZone).map((slot) => stockOf(item, slot, input.stock).A);
    let partsLimit = Number.POSITIVE_INFINITY;
    for (const part of input.parts ?? []) {
      if (part.optional) continue;
      const perPackage = part.qty * unitsFor(part.item, quantitiesFor(part.item, {}));
      const partSlots = slotsOfDate(part.item, date, input.timeZone);
      const partAvailable = Math.max(0, ...partSlots.map((slot) => stockOf(part.item, slot, input.stock).A));
      const allowed =
        perPackage > 0 && isBookableOn(part.item, date, input.today)
          ? Math.floor(partAvailable / perPackage)
          : 0;
      partsLimit = Math.min(partsLimit, allowed);
    }
    const ownAvailable = own.length ? Math.max(...own) : 0;
    calendar[date] =
      partsLimit === Number.POSITIVE_INFINITY
        ? ownAvailable
        : item.unlimited
          ? partsLimit
          : Math.min(ownAvailable, partsLimit);
  }
  return calendar;
}
