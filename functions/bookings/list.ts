import * as z from 'zod/mini';
import { addDays, localInstant, parseDateParam, todayIn } from '#lib/core/dates.ts';
import { unixSeconds } from '#lib/core/time.ts';
import {
  type BookingFilter,
  countInPartitions,
  pageInPartitions,
  type StoredBooking,
} from '#lib/db/booking-repository.ts';
import type { Db } from '#lib/db/client.ts';
import { getCustomerIdByEmail } from '#lib/db/customer-repository.ts';
import { firstIdAt } from '#lib/db/id-counter-repository.ts';
import {
  bookingMonthPartition,
  bookingStatusPartition,
  customerBookingsPartition,
  monthsBetween,
} from '#lib/db/keys.ts';
import type { StoredConfig } from '#lib/db/tenant-repository.ts';
import { knownStatuses } from '#lib/domain/booking.ts';
import { validationError } from '#lib/http/errors.ts';
import { parseInput } from '#lib/http/validate.ts';

/** Page size: default and most. */
export const LIST_LIMITS = { default: 100, max: 250 } as const;

const text = z.optional(z.string().check(z.maxLength(40)));
const listSchema = z.strictObject({
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

/** A time filter: an instant range [from, to) in Unix seconds. */
export interface TimeRange {
  from: number;
  to: number;
}

/** A validated list query. */
export interface ListQuery {
  statusId?: string;
  customerId?: number;
  customerEmail?: string;
  itemId?: number;
  start?: TimeRange;
  end?: TimeRange;
  created?: TimeRange;
  modified?: TimeRange;
  /** Only bookings attributed to this partner account (-1: a value no booking can have). */
  partnerId?: number;
  /** `start_date` and `end_date` together, both plain: the bookings whose stay overlaps these days. */
  window?: TimeRange;
  limit: number;
  page: number;
}

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
    if (!ymd) return undefined;
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

/** Reads and validates the list filters and paging. */
export function readListQuery(input: Record<string, unknown>, config: StoredConfig, now: number): ListQuery {
  const query = parseInput(listSchema, input);
  const problems: Record<string, string> = {};
  const time = (field: 'start_date' | 'end_date' | 'created_date' | 'last_modified') => {
    const value = query[field];
    if (value === undefined) return undefined;
    const range = readTimeFilter(value, config, now);
    if (!range) problems[field] = 'a date (YYYYMMDD) or Unix time, optionally after < or >';
    return range;
  };
  const result: ListQuery = {
    limit: positive(query.limit, 'limit', problems, LIST_LIMITS.max) ?? LIST_LIMITS.default,
    page: positive(query.page, 'page', problems) ?? 1,
  };
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

/** The filter expression of every filter the chosen index does not already apply. */
function filterOf(query: ListQuery, options: { byCustomer: boolean; byStatus: boolean }): BookingFilter {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const range = (attribute: string, key: string, value: TimeRange | undefined) => {
    if (!value) return;
    names[`#${key}`] = attribute;
    values[`:${key}From`] = value.from;
    values[`:${key}To`] = value.to;
    clauses.push(`#${key} >= :${key}From AND #${key} < :${key}To`);
  };
  if (query.statusId !== undefined && !options.byStatus) {
    values[':status'] = query.statusId;
    clauses.push('status_id = :status');
  }
  if (query.customerId !== undefined && !options.byCustomer) {
    values[':customer'] = query.customerId;
    clauses.push('customer_id = :customer');
  }
  if (query.itemId !== undefined) {
    values[':item'] = query.itemId;
    clauses.push('contains(item_ids, :item)');
  }
  if (query.partnerId !== undefined) {
    values[':partner'] = query.partnerId;
    clauses.push('partner_id = :partner');
  }
  range('created_date', 'created', query.created);
  range('last_modified', 'modified', query.modified);
  range('start_at', 'start', query.start);
  range('end_at', 'end', query.end);
  if (query.window) {
    // A stay overlaps when one of its booked days falls inside: it starts before the window ends and its
    // last booked day (not a nightly stay's check-out day) is inside or after the window's first day.
    names['#startAt'] = 'start_at';
    names['#lastAt'] = 'last_at';
    names['#endAt'] = 'end_at';
    values[':windowFrom'] = query.window.from;
    values[':windowTo'] = query.window.to;
    clauses.push(
      '#startAt < :windowTo AND (#lastAt >= :windowFrom OR (attribute_not_exists(#lastAt) AND #endAt >= :windowFrom))',
    );
  }
  return clauses.length ? { expression: clauses.join(' AND '), names, values } : { names, values };
}

/**
 * Lists bookings, newest first, from the narrowest index: a customer's bookings (gsi1), a status (gsi2),
 * or the creation months in range (gsi3). The other filters are filter expressions; the total comes from
 * COUNT queries, and the page is read by reading past the pages before it. Never a scan.
 */
export async function listBookings(
  db: Db,
  options: { query: ListQuery; config: StoredConfig; now: number },
): Promise<{ rows: StoredBooking[]; total: number }> {
  const { query, config } = options;
  const customerId = query.customerEmail
    ? await getCustomerIdByEmail(db, query.customerEmail)
    : query.customerId;
  if (query.customerEmail && !customerId) return { rows: [], total: 0 };
  let source: { index: 'gsi1' | 'gsi2' | 'gsi3'; partitions: string[] };
  if (customerId !== undefined) {
    source = { index: 'gsi1', partitions: [customerBookingsPartition(customerId)] };
  } else if (query.statusId !== undefined) {
    const known = knownStatuses(config);
    if (!known.has(query.statusId)) return { rows: [], total: 0 };
    source = { index: 'gsi2', partitions: [bookingStatusPartition(query.statusId)] };
  } else {
    const first = await firstIdAt(db, 'booking');
    if (first === undefined) return { rows: [], total: 0 };
    const margin = 86_400 * 31;
    const from = Math.max(first - margin, query.created?.from ?? first - margin);
    const to = Math.min(unixSeconds(options.now) + margin, query.created?.to ?? Number.POSITIVE_INFINITY);
    source = { index: 'gsi3', partitions: monthsBetween(from, to).map(bookingMonthPartition) };
  }
  const filter = filterOf(
    { ...query, ...(customerId !== undefined ? { customerId } : {}) },
    { byCustomer: source.index === 'gsi1', byStatus: source.index === 'gsi2' },
  );
  const [total, rows] = await Promise.all([
    countInPartitions(db, { ...source, filter }),
    pageInPartitions<StoredBooking>(db, {
      ...source,
      filter,
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    }),
  ]);
  return { rows, total };
}
