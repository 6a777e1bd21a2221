import type { TenantItem } from '../config/index.ts';
import { addDays, dayOfWeek, type Ymd } from '../kernel/dates.ts';
import { countOf, type DateWords, datesInWords, unitCount } from '../kernel/guest-words.ts';
import type { Span } from './span.ts';

/** Whether an item is closed on a date (a closed date or day of the week). */
export const isClosed = (item: TenantItem, date: Ymd): boolean =>
  (item.rules.closed_dates.length > 0 && item.rules.closed_dates.includes(date)) ||
  (item.rules.closed_dow.length > 0 && item.rules.closed_dow.includes(dayOfWeek(date)));

/**
 * The parameter rules a request breaks (required, minimum and maximum quantities), each in guest words
 * that start with the tenant's label: "Adults: choose at least 1".
 */
export const paramRuleErrors = (
  item: TenantItem,
  quantities: Record<string, number>,
  labels: Record<string, string>,
): string[] => {
  const errors: string[] = [];
  for (const [id, param] of Object.entries(item.params)) {
    const qty = quantities[id] ?? 0;
    // The tenant schema gives every parameter an item uses a label: the fallback is never a raw id.
    const label = labels[id] ?? 'Quantity';
    if (param.req && qty < Math.max(1, param.min))
      errors.push(`${label}: choose at least ${Math.max(1, param.min)}`);
    else if (qty > 0 && qty < param.min) errors.push(`${label}: choose ${param.min} or more, or none`);
    if (qty > param.max) errors.push(`${label}: choose at most ${param.max}`);
  }
  return errors;
};

// A date past the year 9999 has more than eight digits and no longer sorts as text among real dates
// (which have eight): a lead time or advance limit that long ends after every date there is.
const AFTER_EVERY_DATE = '99999999';

/** The date `days` after `today`, as a bound that `YYYYMMDD` dates compare with as text. */
const daysAfter = (today: Ymd, days: number): Ymd => {
  const date = addDays(today, days);
  return /^\d{8}$/.test(date) ? date : AFTER_EVERY_DATE;
};

/** What a booking of each unit is called, and what a guest changes to make it longer or shorter. */
const LENGTH_WORDS = {
  D: { booking: 'Bookings', end: 'end date' },
  N: { booking: 'Stays', end: 'end date' },
  H: { booking: 'Bookings', end: 'end time' },
} as const;

/**
 * The date rules a span breaks (length, lead time, advance limit, closed days, opening hours), each in
 * guest words that say what to do, with dates named in the tenant's locale (`words`, with its today).
 */
export const dateRuleErrors = (item: TenantItem, span: Span, words: DateWords): string[] => {
  const errors: string[] = [];
  const length = span.slots.length;
  const { booking, end } = LENGTH_WORDS[span.unit];
  const { min_len: minLen, max_len: maxLen, lead_days: leadDays, advance_days: advanceDays } = item.rules;
  if (minLen !== undefined && length < minLen)
    errors.push(`${booking} are ${unitCount(span.unit, minLen)} at least; choose a later ${end}`);
  if (maxLen !== undefined && length > maxLen)
    errors.push(`${booking} are ${unitCount(span.unit, maxLen)} at most; choose an earlier ${end}`);
  const lead = leadDays ?? 0;
  const window = bookableWindow(item, words.today);
  if (span.start < window.earliest) {
    errors.push(
      lead === 0
        ? 'Dates in the past cannot be booked; choose today or a later date'
        : `Book at least ${countOf(lead, 'day')} ahead; choose a later date`,
    );
  }
  if (window.latest !== undefined && advanceDays !== undefined && span.start > window.latest) {
    errors.push(`Book at most ${countOf(advanceDays, 'day')} ahead; choose an earlier date`);
  }
  const closes = item.rules.closed_dates.length > 0 || item.rules.closed_dow.length > 0;
  const closed = closes ? closedDatesOf(item, span) : [];
  if (closed.length) errors.push(`Closed on ${datesInWords(closed, words)}; choose other dates`);
  if (span.unit === 'H' && item.hours) {
    const open = Number(item.hours.open.slice(0, 2)) * 60 + Number(item.hours.open.slice(3));
    const close = Number(item.hours.close.slice(0, 2)) * 60 + Number(item.hours.close.slice(3));
    const startTime = span.slots[0] ? Number(span.slots[0].label?.slice(11, 13)) * 60 : open;
    const lastTime = span.slots.at(-1) ? Number(span.slots.at(-1)?.label?.slice(11, 13)) * 60 + 60 : close;
    if (startTime < open || lastTime > close)
      errors.push(`Open from ${item.hours.open} to ${item.hours.close}; choose times within those hours`);
  }
  return errors;
};

/** The dates of a span on which an item is closed, once each. */
export const closedDatesOf = (item: TenantItem, span: Span): Ymd[] => [
  ...new Set(span.slots.filter((slot) => isClosed(item, slot.date)).map((slot) => slot.date)),
];

/** The first and last dates an item can be booked for, seen from `today` (no last without an advance limit). */
export interface BookableWindow {
  earliest: Ymd;
  latest?: Ymd;
}

/** An item's bookable window from `today`: its lead time and advance limit, worked out once for many dates. */
export const bookableWindow = (item: TenantItem, today: Ymd): BookableWindow => {
  const advance = item.rules.advance_days;
  return {
    earliest: daysAfter(today, item.rules.lead_days ?? 0),
    ...(advance === undefined ? {} : { latest: daysAfter(today, advance) }),
  };
};

/**
 * Whether a date can be booked at all: open, after the lead time and within the advance limit
 * (`YYYYMMDD` dates compare as they sort).
 */
export const isBookableIn = (item: TenantItem, date: Ymd, window: BookableWindow): boolean =>
  date >= window.earliest && (window.latest === undefined || date <= window.latest) && !isClosed(item, date);
