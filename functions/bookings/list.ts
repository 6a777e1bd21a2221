import * as z from 'zod/mini';
import type { ListQuery, TimeRange } from '#lib/bookings/index.ts';

import type { StoredConfig } from '#lib/config/index.ts';
import { validationError } from '#lib/http/errors.ts';
import { parseInput } from '#lib/http/validate.ts';
import {
  addDays,
  isSupportedDate,
  localInstant,
  parseDateParam,
  SUPPORTED_DATES,
  todayIn,
} from '#lib/kernel/dates.ts';
import { unixSeconds } from '#lib/kernel/time.ts';

/** Page size: default and most. */
const LIST_LIMITS = { default: 100, max: 250 } as const;

const text = z.optional(z.string().check(z.maxLength(40)));
export const bookingListSchema = z.strictObject({
  status_id: text,
  customer_id: text,
  customer_email: z.optional(z.string().check(z.maxLength(254))),
  item_id: text,
  start_date: text,
  end_date: text,
  created_date: text,
  last_modified: text,
  limit: text,
  page: text,
  partner_id: text,
});

const FAR = 2 ** 40;

/**
 * Reads a date filter: a date (YYYYMMDD, YYYY-MM-DD, today, tomorrow; that whole local day) or Unix
 * seconds (that second), with an optional `<` (before) or `>` (after) prefix.
 */
export function readTimeFilter(value: string, config: StoredConfig, now: number): TimeRange | undefined {
  const match = /^([<>]?)(.+)$/.exec(value.trim());
  if (!match) return undefined;
  const [, prefix, body = ''] = match;
  const timeZone = config.company.timezone;
  let range: TimeRange;
  if (/^\d{9,11}$/.test(body)) {
    range = { from: Number(body), to: Number(body) + 1 };
  } else {
    const ymd = parseDateParam(body, todayIn(timeZone, now));
    if (!ymd || !isSupportedDate(ymd)) return undefined;
    range = {
      from: unixSeconds(localInstant(ymd, 0, timeZone)),
      to: unixSeconds(localInstant(addDays(ymd, 1), 0, timeZone)),
    };
  }
  if (prefix === '<') return { from: -FAR, to: range.from };
  if (prefix === '>') return { from: range.to, to: FAR };
  return range;
}

const positive = (
  value: string | undefined,
  field: string,
  problems: Record<string, string>,
  max = 2_147_483_647,
) => {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    problems[field] = max === 2_147_483_647 ? 'a positive whole number' : `a whole number from 1 to ${max}`;
    return undefined;
  }
  return Number(value);
};

/** Reads `limit` (default 100, at most 250) and `page` (1-based), noting each bad one in `problems`. */
export const readPaging = (
  query: { limit?: string | undefined; page?: string | undefined },
  problems: Record<string, string>,
): { limit: number; page: number } => ({
  limit: positive(query.limit, 'limit', problems, LIST_LIMITS.max) ?? LIST_LIMITS.default,
  page: positive(query.page, 'page', problems) ?? 1,
});

/** Reads and validates the list filters and paging. */
export function readListQuery(input: Record<string, unknown>, config: StoredConfig, now: number): ListQuery {
  const query = parseInput(bookingListSchema, input);
  const problems: Record<string, string> = {};
  const time = (field: 'start_date' | 'end_date' | 'created_date' | 'last_modified') => {
    const value = query[field];
    if (value === undefined) return undefined;
    const range = readTimeFilter(value, config, now);
    if (!range)
      problems[field] = `a date (YYYYMMDD, ${SUPPORTED_DATES.text}) or Unix time, optionally after < or >`;
    return range;
  };
  const result: ListQuery = readPaging(query, problems);
  if (query.status_id !== undefined) result.statusId = query.status_id.toUpperCase();
  const customerId = positive(query.customer_id, 'customer_id', problems);
  if (customerId !== undefined) result.customerId = customerId;
  if (query.customer_email !== undefined) result.customerEmail = query.customer_email.trim();
  const itemId = positive(query.item_id, 'item_id', problems);
  if (itemId !== undefined) result.itemId = itemId;
  // An unknown or non-partner id lists nothing rather than failing: sync clients send their own.
  if (query.partner_id !== undefined) {
    result.partnerId = /^\d{1,10}$/.test(query.partner_id.trim()) ? Number(query.partner_id.trim()) : -1;
  }
  const ranges = {
    start: time('start_date'),
    end: time('end_date'),
    created: time('created_date'),
    modified: time('last_modified'),
  };
  const plain = (value: string | undefined) => value !== undefined && !/^\s*[<>]/.test(value);
  if (ranges.start && ranges.end && plain(query.start_date) && plain(query.end_date)) {
    // Sync clients ask for a whole year this way: a window, not two separate days.
    if (ranges.end.to <= ranges.start.from) problems.end_date = 'is before start_date';
    result.window = { from: ranges.start.from, to: ranges.end.to };
    ranges.start = undefined;
    ranges.end = undefined;
  }
  for (const [name, range] of Object.entries(ranges)) if (range) result[name as 'start'] = range;
  if (Object.keys(problems).length) throw validationError(problems);
  return result;
}
