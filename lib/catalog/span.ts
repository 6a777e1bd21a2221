import { addDays, datesFrom, localHourStarts, localParts, utcHourKey, type Ymd } from '../kernel/dates.ts';

/** How an item is sold: by the day (inclusive span), by the night ([start, end)), or by the hour. */
export type Unit = 'D' | 'N' | 'H';

/** One unit of sale: a day, a night, or an hour, with the stock counter slot it takes. */
export interface Slot {
  /** The counter's sort key: `YYYYMMDD`, or `YYYYMMDDTHHZ` (UTC hour) for hourly items. */
  key: string;
  /** The local date the slot belongs to. */
  date: Ymd;
  /** For hourly slots: the local start with its UTC offset, e.g. `2027-03-14T01:00-05:00`. */
  label?: string;
}

/** The dates (and times) a rated request asks for, as the client sent them, already validated. */
export interface RequestedSpan {
  start: Ymd;
  /** As sent: the last day (daily), the departure date (nightly); absent when only `date` was sent. */
  end?: Ymd;
  /** Minutes after local midnight, for hourly items. */
  startTime?: number;
  endTime?: number;
}

/** A resolved span for one unit: its slots, and the start and end dates the wire reports. */
export interface Span {
  unit: Unit;
  slots: Slot[];
  /** The first date. */
  start: Ymd;
  /** The wire's end date: the last day (D), the departure date (N), the same date (H). */
  end: Ymd;
}

/** Why a span cannot be built for an item, in words a guest reads (it becomes the item's `rate.error`). */
export class SpanError extends Error {
  readonly code = 'span';

  constructor(message: string) {
    super(message);
    this.name = 'SpanError';
  }
}

const resolved = new WeakMap<RequestedSpan, Map<string, Span | SpanError>>();

/**
 * Resolves a requested span for a unit (see `buildSpan`). A list rates every item for the same request,
 * so the answer is kept with the request object, per unit and time zone, and frozen: items share it.
 */
export function resolveSpan(unit: Unit, requested: RequestedSpan, timeZone: string): Span {
  let byUnit = resolved.get(requested);
  if (!byUnit) {
    byUnit = new Map();
    resolved.set(requested, byUnit);
  }
  const key = `${unit} ${timeZone}`;
  let span = byUnit.get(key);
  if (!span) {
    try {
      span = freezeSpan(buildSpan(unit, requested, timeZone));
    } catch (error) {
      if (!(error instanceof SpanError)) throw error;
      span = error;
    }
    byUnit.set(key, span);
  }
  if (span instanceof SpanError) throw span;
  return span;
}

const freezeSpan = (span: Span): Span => {
  for (const slot of span.slots) Object.freeze(slot);
  Object.freeze(span.slots);
  return Object.freeze(span);
};

/**
 * Resolves a requested span for a unit. Daily: every day from start to end, inclusive (end defaults to
 * start). Nightly: the nights from start up to, not including, end; `date` alone (or end = start) is one
 * night. Hourly: every whole local hour from the start time up to the end time of the start date, as
 * the clocks show it: an hour they repeat is sold twice, an hour they skip not at all.
 */
function buildSpan(unit: Unit, requested: RequestedSpan, timeZone: string): Span {
  if (unit === 'D') {
    const end = requested.end ?? requested.start;
    return {
      unit,
      start: requested.start,
      end,
      slots: datesFrom(requested.start, end).map((date) => ({ key: date, date })),
    };
  }
  if (unit === 'N') {
    const end =
      requested.end && requested.end > requested.start ? requested.end : addDays(requested.start, 1);
    const nights = datesFrom(requested.start, addDays(end, -1));
    return { unit, start: requested.start, end, slots: nights.map((date) => ({ key: date, date })) };
  }
  if (requested.startTime === undefined || requested.endTime === undefined) {
    throw new SpanError('Choose a start and end time for this item');
  }
  if (requested.startTime % 60 !== 0 || requested.endTime % 60 !== 0) {
    throw new SpanError('This item is booked by the hour; choose times on the hour');
  }
  if (requested.endTime <= requested.startTime)
    throw new SpanError('Choose an end time after the start time');
  const starts = localHourStarts(requested.start, requested.startTime, requested.endTime, timeZone);
  // Where the clocks go forward, hours are skipped: a span of them alone has nothing to sell.
  if (!starts.length)
    throw new SpanError('The clocks go forward on that date and skip those hours; choose other times');
  const slots = starts.map((instant): Slot => {
    const local = localParts(instant, timeZone);
    return { key: utcHourKey(instant), date: local.ymd, label: local.iso };
  });
  return { unit, start: requested.start, end: requested.start, slots };
}
