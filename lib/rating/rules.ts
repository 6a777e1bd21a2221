import type { TenantItem } from '../config/tenant-schema.ts';
import { addDays, dayOfWeek, type Ymd } from '../core/dates.ts';
import type { Span } from './span.ts';

/** Whether an item is closed on a date (a closed date or day of the week). */
export const isClosed = (item: TenantItem, date: Ymd): boolean =>
  (item.rules.closed_dates.length > 0 && item.rules.closed_dates.includes(date)) ||
  (item.rules.closed_dow.length > 0 && item.rules.closed_dow.includes(dayOfWeek(date)));

/** The parameter rules a request breaks: required, minimum and maximum quantities, by label. */
export const paramRuleErrors = (
  item: TenantItem,
  quantities: Record<string, number>,
  labels: Record<string, string>,
): string[] => {
  const errors: string[] = [];
  for (const [id, param] of Object.entries(item.params)) {
    const qty = quantities[id] ?? 0;
    const label = labels[id] ?? id;
    if (param.req && qty < Math.max(1, param.min))
      errors.push(`${label}: at least ${Math.max(1, param.min)} required`);
    else if (qty > 0 && qty < param.min) errors.push(`${label}: at least ${param.min}`);
    if (qty > param.max) errors.push(`${label}: at most ${param.max}`);
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

/** The date rules a span breaks: length, lead time, advance limit, closed days and opening hours. */
export const dateRuleErrors = (item: TenantItem, span: Span, today: Ymd): string[] => {
  const errors: string[] = [];
  const length = span.slots.length;
  const noun = { D: 'day', N: 'night', H: 'hour' }[span.unit];
  const { min_len: minLen, max_len: maxLen, lead_days: leadDays, advance_days: advanceDays } = item.rules;
  if (minLen !== undefined && length < minLen) errors.push(`Minimum stay is ${minLen} ${noun}s`);
  if (maxLen !== undefined && length > maxLen) errors.push(`Maximum stay is ${maxLen} ${noun}s`);
  const lead = leadDays ?? 0;
  const window = bookableWindow(item, today);
  if (span.start < window.earliest) {
    errors.push(lead === 0 ? 'Dates in the past cannot be booked' : `Book at least ${lead} days ahead`);
  }
  if (window.latest !== undefined && span.start > window.latest) {
    errors.push(`Bookable at most ${advanceDays} days ahead`);
  }
  const closes = item.rules.closed_dates.length > 0 || item.rules.closed_dow.length > 0;
  const closed = closes
    ? [...new Set(span.slots.filter((slot) => isClosed(item, slot.date)).map((slot) => slot.date))]
    : [];
  if (closed.length) errors.push(`Closed on ${closed.join(', ')}`);
  if (span.unit === 'H' && item.hours) {
    const open = Number(item.hours.open.slice(0, 2)) * 60 + Number(item.hours.open.slice(3));
    const close = Number(item.hours.close.slice(0, 2)) * 60 + Number(item.hours.close.slice(3));
    const startTime = span.slots[0] ? Number(span.slots[0].label?.slice(11, 13)) * 60 : open;
    const lastTime = span.slots.at(-1) ? Number(span.slots.at(-1)?.label?.slice(11, 13)) * 60 + 60 : close;
    if (startTime < open || lastTime > close) errors.push(`Open ${item.hours.open} to ${item.hours.close}`);
  }
  return errors;
};

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
