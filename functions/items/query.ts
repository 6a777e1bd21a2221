import * as z from 'zod/mini';
import type { Caller } from '#lib/access/index.ts';
import { hasGrant } from '#lib/access/index.ts';
import type { ItemFilters, RateRequest } from '#lib/catalog/index.ts';

import type { StoredConfig } from '#lib/config/index.ts';
import { readDateParam } from '#lib/http/date-param.ts';
import { validationError } from '#lib/http/errors.ts';
import { reportIgnored } from '#lib/http/ignored.ts';
import { asList } from '#lib/http/parse.ts';
import { booleanParam, parseInput } from '#lib/http/validate.ts';
import { addDays, daysBetween, parseTimeParam, todayIn, type Ymd } from '#lib/kernel/dates.ts';

/** The longest span a rated query or a calendar may cover. */
const MAX_SPAN_DAYS = 366;
/** The most item ids one request may name. */
const MAX_ITEM_IDS = 100;
/** The largest quantity of one parameter. */
const MAX_QUANTITY = 999;

const text = (max: number) => z.optional(z.string().check(z.maxLength(max)));
const idList = z.optional(
  z.union([z.string().check(z.maxLength(2000)), z.array(z.string()), z.record(z.string(), z.string())]),
);

const dateFields = {
  start_date: text(20),
  end_date: text(20),
  date: text(20),
};

export const itemQuerySchema = z.strictObject({
  ...dateFields,
  start_time: text(8),
  end_time: text(8),
  category_id: text(12),
  packages: z.optional(booleanParam),
  available: text(8),
  keyword: text(100),
  item_id: idList,
  discount_code: text(32),
  giftcert_code: text(32),
  rules: z.optional(z.enum(['on', 'soft', 'off'])),
  param: z.optional(z.record(z.string(), z.string())),
});

export const calendarQuerySchema = z.strictObject({ ...dateFields, item_id: idList, category_id: text(12) });

type Problems = Record<string, string>;

const positiveInt = (value: string | undefined, field: string, problems: Problems): number | undefined => {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647) {
    problems[field] = 'a positive whole number';
    return undefined;
  }
  return Number(value);
};

const readIds = (value: unknown, problems: Problems): number[] | undefined => {
  const raw = asList(value, { commas: true }).flatMap((entry) =>
    typeof entry === 'string'
      ? entry
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : [entry],
  );
  if (raw.length === 0) return undefined;
  if (raw.length > MAX_ITEM_IDS) {
    problems.item_id = `at most ${MAX_ITEM_IDS} ids`;
    return undefined;
  }
  const ids = raw.map((entry) =>
    typeof entry === 'string' && /^\d{1,10}$/.test(entry) ? Number(entry) : Number.NaN,
  );
  if (ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
    problems.item_id = 'item ids are positive whole numbers';
    return undefined;
  }
  return ids;
};

/** A validated date range: start and (as sent) end. */
export interface DateRange {
  start: Ymd;
  end?: Ymd;
}

const readDates = (
  input: { start_date?: string; end_date?: string; date?: string },
  today: Ymd,
  problems: Problems,
): DateRange | undefined => {
  const read = (field: 'start_date' | 'end_date' | 'date'): Ymd | undefined => {
    const { date, problem } = readDateParam(input[field], today);
    if (problem) problems[field] = problem;
    return date;
  };
  const startDate = read('start_date');
  const date = read('date');
  const end = read('end_date');
  if (startDate && date && startDate !== date) problems.date = 'differs from start_date';
  const start = startDate ?? date;
  if (!start) {
    if (end) problems.start_date = 'required with end_date';
    return undefined;
  }
  if (end && end < start) problems.end_date = 'is before start_date';
  else if (end && daysBetween(start, end) > MAX_SPAN_DAYS)
    problems.end_date = `at most ${MAX_SPAN_DAYS} days after start_date`;
  return { start, ...(end ? { end } : {}) };
};

/** A validated `GET item` query: filters, and the rated request when dates were sent. */
export interface ItemQuery {
  filters: ItemFilters;
  rated?: RateRequest & { giftcertCode?: string; requestedParams: Record<string, number> };
  minimumAvailable?: number;
}

/**
 * Reads and validates the item query. Every problem is reported at once, named by the parameter as the
 * client wrote it; `rules=soft|off` is for staff only (and partners granted `rules_override`).
 */
export function readItemQuery(
  input: Record<string, unknown>,
  context: { config: StoredConfig; caller: Caller; now: number },
): ItemQuery {
  // Widgets send one parameter set to every item: an id the tenant does not define is ignored (and
  // reported, after the names parseInput reports and whether or not the query is valid, so a refused
  // request names it too); one it defines but an item does not use simply does not apply to that item.
  const sent = input.param;
  const unknownParams =
    sent !== null && typeof sent === 'object' && !Array.isArray(sent)
      ? Object.keys(sent)
          .filter((id) => !(id in context.config.params))
          .map((id) => `param[${id}]`)
      : [];
  let query: z.infer<typeof itemQuerySchema>;
  try {
    query = parseInput(itemQuerySchema, input);
  } finally {
    reportIgnored(input, unknownParams);
  }
  const problems: Problems = {};
  const today = todayIn(context.config.company.timezone, context.now);
  const dates = readDates(query, today, problems);

  const params: Record<string, number> = {};
  for (const [id, value] of Object.entries(query.param ?? {})) {
    if (!(id in context.config.params)) continue;
    if (!/^\d{1,3}$/.test(value)) problems[`param[${id}]`] = `a whole number from 0 to ${MAX_QUANTITY}`;
    else params[id] = Number(value);
  }
  const startTime = query.start_time ? parseTimeParam(query.start_time) : undefined;
  const endTime = query.end_time ? parseTimeParam(query.end_time) : undefined;
  if (query.start_time && startTime === undefined) problems.start_time = 'a time such as 1200 or 12:00';
  if (query.end_time && endTime === undefined) problems.end_time = 'a time such as 1300 or 13:00';
  if ((startTime === undefined) !== (endTime === undefined) && !problems.start_time && !problems.end_time) {
    problems[startTime === undefined ? 'start_time' : 'end_time'] = 'start_time and end_time go together';
  }
  if (startTime !== undefined && endTime !== undefined && endTime <= startTime)
    problems.end_time = 'must be after start_time';
  if (startTime !== undefined && !dates && !problems.start_date && !problems.date)
    problems.date = 'required with start_time';

  const rules = query.rules ?? 'on';
  if (rules !== 'on' && !hasGrant(context.caller, 'rules_override'))
    problems.rules = 'soft and off are for staff only';
  let minimumAvailable: number | undefined;
  if (query.available !== undefined) {
    if (!/^\d{1,6}$/.test(query.available)) problems.available = 'a whole number';
    else minimumAvailable = Number(query.available);
  }
  const categoryId = positiveInt(query.category_id, 'category_id', problems);
  const itemIds = readIds(query.item_id, problems);
  if (Object.keys(problems).length) throw validationError(problems);

  const filters: ItemFilters = {
    ...(categoryId !== undefined ? { categoryId } : {}),
    ...(query.keyword ? { keyword: query.keyword } : {}),
    ...(itemIds ? { itemIds } : {}),
    ...(query.packages !== undefined ? { packages: query.packages } : {}),
  };
  if (!dates) return { filters };
  return {
    filters,
    ...(minimumAvailable !== undefined ? { minimumAvailable } : {}),
    rated: {
      start: dates.start,
      ...(dates.end ? { end: dates.end } : {}),
      ...(startTime !== undefined && endTime !== undefined ? { startTime, endTime } : {}),
      params,
      requestedParams: params,
      rules,
      ...(query.discount_code ? { discountCode: query.discount_code } : {}),
      ...(query.giftcert_code ? { giftcertCode: query.giftcert_code } : {}),
    },
  };
}

/** A validated calendar query: its date range (today and 30 days by default) and filters. */
export function readCalendarQuery(
  input: Record<string, unknown>,
  context: { config: StoredConfig; now: number },
): { first: Ymd; last: Ymd; filters: ItemFilters } {
  const query = parseInput(calendarQuerySchema, input);
  const problems: Problems = {};
  const today = todayIn(context.config.company.timezone, context.now);
  // Both dates are optional: an end alone runs from today to it (a start alone keeps the default span).
  const endOnly = Boolean(query.end_date) && !query.start_date && !query.date;
  const dates = readDates(endOnly ? { ...query, start_date: today } : query, today, problems);
  if (endOnly && problems.end_date === 'is before start_date') problems.end_date = 'is before today';
  const categoryId = positiveInt(query.category_id, 'category_id', problems);
  const itemIds = readIds(query.item_id, problems);
  if (Object.keys(problems).length) throw validationError(problems);
  const first = dates?.start ?? today;
  const last = dates?.end ?? addDays(first, 30);
  return {
    first,
    last,
    filters: { ...(categoryId !== undefined ? { categoryId } : {}), ...(itemIds ? { itemIds } : {}) },
  };
}
