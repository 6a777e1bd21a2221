import * as z from 'zod/mini';
import {
  customerBookingsPartition,
  firstIdAt,
  getCustomerIdByEmail,
  listBookingsInPartition,
  type StoredBooking,
} from '#lib/db/booking-repository.ts';
import type { Db } from '#lib/db/client.ts';
import type { StoredConfig } from '#lib/db/tenant-repository.ts';
import { addDays, localInstant, parseDateParam, todayIn } from '#lib/domain/dates.ts';
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
      from: Math.floor(localInstant(ymd, 0, timeZone) / 1000),
      to: Math.floor(localInstant(addDays(ymd, 1), 0, timeZone) / 1000),
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
export function readListQuery(
  input: Record<string, unknown>,
  config: StoredConfig,
  now = Date.now(),
): ListQuery {
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
  const ranges = {
    start: time('start_date'),
    end: time('end_date'),
    created: time('created_date'),
    modified: time('last_modified'),
  };
  for (const [name, range] of Object.entries(ranges)) if (range) result[name as 'start'] = range;
  if (Object.keys(problems).length) throw validationError(problems);
  return result;
}

const within = (range: TimeRange | undefined, seconds: number): boolean =>
  !range || (seconds >= range.from && seconds < range.to);

const months = (from: number, to: number): string[] => {
  const out: string[] = [];
  const cursor = new Date(
    Date.UTC(new Date(from * 1000).getUTCFullYear(), new Date(from * 1000).getUTCMonth(), 1),
  );
  while (cursor.getTime() / 1000 <= to) {
    out.push(cursor.toISOString().slice(0, 7).replace('-', ''));
    cursor.setUTCMonth(cursor.getUTCMonth() + 1);
  }
  return out.reverse();
};

/**
 * Lists bookings, newest first, from the narrowest index: a customer's bookings (gsi1), a status (gsi2),
 * or the creation months in range (gsi3); the other filters apply to what the index returns. Never a
 * scan. Returns the requested page and the number of matching bookings.
 */
export async function listBookings(
  db: Db,
  options: { query: ListQuery; config: StoredConfig },
): Promise<{ rows: StoredBooking[]; total: number }> {
  const { query, config } = options;
  const timeZone = config.company.timezone;
  let candidates: StoredBooking[];
  const customerId = query.customerEmail
    ? await getCustomerIdByEmail(db, query.customerEmail)
    : query.customerId;
  if (query.customerEmail && !customerId) return { rows: [], total: 0 };
  if (customerId !== undefined) {
    candidates = await listBookingsInPartition(db, {
      index: 'gsi1',
      partition: customerBookingsPartition(customerId),
    });
  } else if (query.statusId !== undefined) {
    const known = new Set([...config.statuses.map((status) => status.status_id), 'CANCELLED']);
    if (!known.has(query.statusId)) return { rows: [], total: 0 };
    candidates = await listBookingsInPartition(db, {
      index: 'gsi2',
      partition: `BOOKING_STATUS#${query.statusId}`,
    });
  } else {
    const first = await firstIdAt(db, 'booking');
    if (first === undefined) return { rows: [], total: 0 };
    const from = Math.max(first - 86_400 * 31, query.created?.from ?? first - 86_400 * 31);
    const to = Math.min(
      Math.floor(Date.now() / 1000) + 86_400 * 31,
      query.created?.to ?? Number.POSITIVE_INFINITY,
    );
    const parts = await Promise.all(
      months(from, to).map((month) =>
        listBookingsInPartition(db, { index: 'gsi3', partition: `BOOKING_MONTH#${month}` }),
      ),
    );
    candidates = parts.flat();
  }
  const dayStart = (ymd: string) => Math.floor(localInstant(ymd, 0, timeZone) / 1000);
  const matching = candidates
    .filter((booking) => query.statusId === undefined || booking.status_id === query.statusId)
    .filter((booking) => customerId === undefined || booking.customer_id === customerId)
    .filter(
      (booking) =>
        query.itemId === undefined ||
        Object.values(booking.lines).some((line) => line.item_id === query.itemId),
    )
    .filter((booking) => within(query.created, booking.created_date))
    .filter((booking) => within(query.modified, booking.last_modified))
    .filter((booking) => within(query.start, dayStart(booking.start_date)))
    .filter((booking) => within(query.end, dayStart(booking.end_date)))
    .sort((a, b) => b.created_date - a.created_date || b.booking_id - a.booking_id);
  const start = (query.page - 1) * query.limit;
  return { rows: matching.slice(start, start + query.limit), total: matching.length };
}
