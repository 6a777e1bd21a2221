import {
  calendarOf,
  isClosed,
  quantitiesFor,
  type StockLookup,
  slotsOfDate,
  unitsFor,
} from '../catalog/index.ts';

import type { TenantItem } from '../config/index.ts';
import { addDays, datesFrom, hourKeyInstant, localInstant, localParts, type Ymd } from '../kernel/dates.ts';
import type { ExportRun } from './export-calendar.ts';
import type { FeedEvent } from './feed-parse.ts';
import { ReadBudget } from './read-budget.ts';

/** How far ahead feeds are written and read: two years, as the channels themselves publish. */
export const CHANNEL_HORIZON_DAYS = 730;

const HOUR_MS = 3_600_000;

/** Local dates, both included. */
type DateRange = { first: Ymd; last: Ymd };
/** Instants in ms, end excluded. */
type Interval = { start: number; end: number };

/** The local dates a feed event covers for a date-based item: an all-day event's own, a timed one's by unit. */
function datesOfEvent(event: FeedEvent, unit: TenantItem['unit'], timeZone: string): DateRange | undefined {
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

/** Ranges cut to `first`..`last`, sorted, overlapping and touching ones joined: disjoint, and each once. */
function mergeDates(ranges: DateRange[], first: Ymd, last: Ymd): DateRange[] {
  const merged: DateRange[] = [];
  const clipped = ranges
    .map((range) => ({
      first: range.first > first ? range.first : first,
      last: range.last < last ? range.last : last,
    }))
    .filter((range) => range.first <= range.last)
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  for (const range of clipped) {
    const open = merged.at(-1);
    if (open && range.first <= addDays(open.last, 1)) {
      if (range.last > open.last) open.last = range.last;
    } else merged.push({ ...range });
  }
  return merged;
}

/** Intervals cut to [start, end), sorted, overlapping and touching ones joined; empty ones dropped. */
function mergeIntervals(intervals: Interval[], start: number, end: number): Interval[] {
  const merged: Interval[] = [];
  const clipped = intervals
    .map((interval) => ({ start: Math.max(interval.start, start), end: Math.min(interval.end, end) }))
    .filter((interval) => interval.start < interval.end)
    .sort((a, b) => a.start - b.start);
  for (const interval of clipped) {
    const open = merged.at(-1);
    if (open && interval.start <= open.end) open.end = Math.max(open.end, interval.end);
    else merged.push({ ...interval });
  }
  return merged;
}

/** Whether [start, end) overlaps one of the disjoint, sorted intervals (a binary search). */
function overlapsAny(intervals: Interval[], start: number, end: number): boolean {
  let low = 0;
  let high = intervals.length;
  // The first interval that ends after `start`.
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((intervals[middle] as Interval).end <= start) low = middle + 1;
    else high = middle;
  }
  const candidate = intervals[low];
  return candidate !== undefined && candidate.start < end;
}

/**
 * The counter slots of an item that a feed's events take, from `first` to `last` (local dates), sorted and
 * each once: dates for daily and nightly items, the hours an hourly item sells (all of a date's for an
 * all-day event, those a timed event overlaps otherwise). The events are merged into disjoint ranges cut
 * to the window before any slot is made, so the work is bounded by the window's slots (two years of the
 * item's units at most), however many and however long the events; it runs a step a date under `budget`.
 */
export async function slotsTaken(
  events: FeedEvent[],
  options: { item: TenantItem; timeZone: string; first: Ymd; last: Ymd; budget?: ReadBudget },
): Promise<string[]> {
  const budget = options.budget ?? new ReadBudget();
  return budget.walk(() => walkSlots(events, options));
}

function* walkSlots(
  events: FeedEvent[],
  options: { item: TenantItem; timeZone: string; first: Ymd; last: Ymd },
): Generator<void, string[]> {
  const { item, timeZone, first, last } = options;
  const hourly = item.unit === 'H';
  const ranges: DateRange[] = [];
  const timed: Interval[] = [];
  for (const event of events) {
    if (hourly && event.kind === 'instants') timed.push({ start: event.start, end: event.end });
    else {
      const range = datesOfEvent(event, item.unit, timeZone);
      if (range) ranges.push(range);
    }
  }
  yield;
  const whole = mergeDates(ranges, first, last);
  const hours = mergeIntervals(
    timed,
    localInstant(first, 0, timeZone),
    localInstant(addDays(last, 1), 0, timeZone),
  );
  yield;
  const slots: string[] = [];
  if (!hourly) {
    for (const range of whole)
      for (const date of datesFrom(range.first, range.last)) {
        slots.push(date);
        yield;
      }
    return slots;
  }
  // An hourly item: the dates its timed events touch, beside those taken whole.
  const touched = hours.map((interval) => ({
    first: localParts(interval.start, timeZone).ymd,
    last: localParts(interval.end - 1, timeZone).ymd,
  }));
  const wholeDates = new Set(whole.flatMap((range) => datesFrom(range.first, range.last)));
  for (const range of mergeDates([...whole, ...touched], first, last))
    for (const date of datesFrom(range.first, range.last)) {
      const all = wholeDates.has(date);
      for (const slot of slotsOfDate(item, date, timeZone)) {
        const start = hourKeyInstant(slot.key);
        if (all || overlapsAny(hours, start, start + HOUR_MS)) slots.push(slot.key);
      }
      yield;
    }
  return [...new Set(slots)].sort();
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
