import type { ExportRun } from '../channels/ical-export.ts';
import type { FeedEvent } from '../channels/ical-import.ts';
import type { TenantItem } from '../config/tenant-schema.ts';
import { addDays, datesFrom, hourKeyInstant, localParts, type Ymd } from '../core/dates.ts';
import { calendarOf, slotsOfDate } from '../rating/calendar.ts';
import { quantitiesFor, type StockLookup, unitsFor } from '../rating/rate-item.ts';
import { isClosed } from '../rating/rules.ts';

/** How far ahead feeds are written and read: two years, as the channels themselves publish. */
export const CHANNEL_HORIZON_DAYS = 730;

const HOUR_MS = 3_600_000;

/** The local dates a feed event covers for a date-based item: an all-day event's own, a timed one's by unit. */
function datesOfEvent(
  event: FeedEvent,
  unit: TenantItem['unit'],
  timeZone: string,
): { first: Ymd; last: Ymd } | undefined {
  if (event.kind === 'dates') {
    return event.endExclusive > event.first
      ? { first: event.first, last: addDays(event.endExclusive, -1) }
      : undefined;
  }
  if (event.end <= event.start) return undefined;
  const first = localParts(event.start, timeZone).ymd;
  if (unit === 'N') {
    // The nights it covers: a stay from 15:00 on the 5th to 11:00 on the 8th takes the nights of 5, 6 and 7.
    const checkout = localParts(event.end, timeZone).ymd;
    return { first, last: checkout > first ? addDays(checkout, -1) : first };
  }
  // The days it touches: its last instant's date.
  return { first, last: localParts(event.end - 1, timeZone).ymd };
}

/**
 * The counter slots of an item that a feed's events take, from `first` to `last` (local dates), sorted and
 * each once: dates for daily and nightly items, the hours an hourly item sells (all of a date's for an
 * all-day event, those a timed event overlaps otherwise).
 */
export function slotsTaken(
  events: FeedEvent[],
  options: { item: TenantItem; timeZone: string; first: Ymd; last: Ymd },
): string[] {
  const { item, timeZone } = options;
  const slots = new Set<string>();
  for (const event of events) {
    const dates =
      item.unit === 'H' && event.kind === 'instants'
        ? {
            first: localParts(event.start, timeZone).ymd,
            last: localParts(Math.max(event.start, event.end - 1), timeZone).ymd,
          }
        : datesOfEvent(event, item.unit, timeZone);
    if (!dates) continue;
    const first = dates.first > options.first ? dates.first : options.first;
    const last = dates.last < options.last ? dates.last : options.last;
    if (first > last) continue;
    for (const date of datesFrom(first, last)) {
      if (item.unit !== 'H') {
        slots.add(date);
        continue;
      }
      for (const slot of slotsOfDate(item, date, timeZone)) {
        const start = hourKeyInstant(slot.key);
        if (event.kind === 'dates' || (start < event.end && start + HOUR_MS > event.start))
          slots.add(slot.key);
      }
    }
  }
  return [...slots].sort();
}

/**
 * The runs of slots an item cannot be sold on from `first` to `last`, for its feed: dates with no unit
 * left (its parts' for a package) or closed by its rules, or, for an hourly item, such hours. The lead time
 * is this service's own rule and closes nothing for a channel; the advance limit bounds the feed instead.
 */
export function unsellableRuns(input: {
  item: TenantItem;
  parts: { item: TenantItem; qty: number; optional: boolean }[];
  first: Ymd;
  last: Ymd;
  timeZone: string;
  stock: StockLookup;
}): ExportRun[] {
  const { item, timeZone, stock } = input;
  const noLead = (of: TenantItem): TenantItem => ({ ...of, rules: { ...of.rules, lead_days: 0 } });
  const runs: ExportRun[] = [];
  if (item.unit !== 'H') {
    const calendar = calendarOf({
      item: noLead(item),
      parts: input.parts.map((part) => ({ ...part, item: noLead(part.item) })),
      first: input.first,
      last: input.last,
      today: input.first,
      timeZone,
      stock,
    });
    let open: { first: Ymd; last: Ymd } | undefined;
    for (const date of datesFrom(input.first, input.last)) {
      if ((calendar[date] ?? 0) > 0) {
        if (open) runs.push({ kind: 'dates', ...open });
        open = undefined;
      } else if (open) open.last = date;
      else open = { first: date, last: date };
    }
    // The last run reaches the feed's end: the item may be sold out past it, and its end moves with the feed's.
    if (open) runs.push({ kind: 'dates', ...open, open: true });
    return runs;
  }
  // An hourly item: each hour it sells, unsellable when closed or when it (or a required part) has no unit left.
  const available = (of: TenantItem, key: string, date: Ymd): number =>
    of.unlimited ? Number.POSITIVE_INFINITY : (of.stock_overrides[date] ?? of.stock) - stock(of.item_id, key);
  const required = input.parts
    .filter((part) => !part.optional)
    .map((part) => ({
      item: part.item,
      perPackage: part.qty * unitsFor(part.item, quantitiesFor(part.item, {})),
    }));
  for (const date of datesFrom(input.first, input.last)) {
    const closed = isClosed(item, date);
    for (const slot of slotsOfDate(item, date, timeZone)) {
      const partsShort = required.some(
        (part) => isClosed(part.item, date) || available(part.item, slot.key, date) < part.perPackage,
      );
      const sellable = !closed && !partsShort && available(item, slot.key, date) > 0;
      const start = hourKeyInstant(slot.key);
      const last = runs.at(-1);
      if (sellable) continue;
      if (last?.kind === 'hours' && last.end === start) last.end = start + HOUR_MS;
      else runs.push({ kind: 'hours', start, end: start + HOUR_MS });
    }
  }
  // A run that ends with the feed's last hour reaches its end, as above.
  const lastHour = slotsOfDate(item, input.last, timeZone).at(-1);
  const last = runs.at(-1);
  if (last?.kind === 'hours' && lastHour && last.end === hourKeyInstant(lastHour.key) + HOUR_MS)
    last.open = true;
  return runs;
}
