import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import {
  bookingMonthPartition,
  bookingStatusPartition,
  customerBookingsPartition,
  monthsBetween,
  noteMonthPartition,
} from '../kernel/storage/keys.ts';
import { queryAll, stripKeys } from '../kernel/storage/operations.ts';
import type { StoredBooking, StoredNote } from './repository.ts';

/** An instant range [from, to) in Unix seconds. */
export interface TimeRange {
  from: number;
  to: number;
}

/** The booking filters a list applies beside the index it reads. */
export interface BookingListFilters {
  statusId?: string;
  customerId?: number;
  itemId?: number;
  /** Only bookings attributed to this partner account. */
  partnerId?: number;
  start?: TimeRange;
  end?: TimeRange;
  created?: TimeRange;
  modified?: TimeRange;
  /** The bookings whose stay has a booked day in this range. */
  window?: TimeRange;
}

/** Which page of a list to read: `skip` matches, then up to `take`. */
export interface PageWindow {
  skip: number;
  take: number;
}

/** One page of a list and the number of matches over all pages. */
export interface ListPage<T> {
  rows: T[];
  total: number;
}

interface Filter {
  expression?: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

type IndexName = 'gsi1' | 'gsi2' | 'gsi3';

interface Source {
  index: IndexName;
  partitions: string[];
  filter: Filter;
}

/** The filter expression of the filters a booking index does not already apply. */
function bookingFilter(filters: BookingListFilters): Filter {
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
  if (filters.statusId !== undefined) {
    values[':status'] = filters.statusId;
    clauses.push('status_id = :status');
  }
  if (filters.customerId !== undefined) {
    values[':customer'] = filters.customerId;
    clauses.push('customer_id = :customer');
  }
  if (filters.itemId !== undefined) {
    values[':item'] = filters.itemId;
    clauses.push('contains(item_ids, :item)');
  }
  if (filters.partnerId !== undefined) {
    values[':partner'] = filters.partnerId;
    clauses.push('partner_id = :partner');
  }
  range('created_date', 'created', filters.created);
  range('last_modified', 'modified', filters.modified);
  range('start_at', 'start', filters.start);
  range('end_at', 'end', filters.end);
  if (filters.window) {
    // A stay overlaps when one of its booked days falls inside: it starts before the window ends and its
    // last booked day (not a nightly stay's check-out day) is inside or after the window's first day.
    names['#startAt'] = 'start_at';
    names['#lastAt'] = 'last_at';
    names['#endAt'] = 'end_at';
    values[':windowFrom'] = filters.window.from;
    values[':windowTo'] = filters.window.to;
    clauses.push(
      '#startAt < :windowTo AND (#lastAt >= :windowFrom OR (attribute_not_exists(#lastAt) AND #endAt >= :windowFrom))',
    );
  }
  return clauses.length ? { expression: clauses.join(' AND '), names, values } : { names, values };
}

const filterInput = (filter: Filter) =>
  filter.expression
    ? {
        FilterExpression: filter.expression,
        ...(Object.keys(filter.names).length ? { ExpressionAttributeNames: filter.names } : {}),
        ExpressionAttributeValues: filter.values,
      }
    : { ExpressionAttributeValues: {} };

/** A query of one index partition with a filter, from `cursor`. */
const partitionQuery = (
  db: Db,
  options: { index: IndexName; partition: string; filter: Filter; cursor?: Record<string, unknown> },
  extra: { Select?: 'COUNT'; ScanIndexForward?: boolean },
) => {
  const input = filterInput(options.filter);
  return new QueryCommand({
    TableName: db.tableName,
    IndexName: options.index,
    KeyConditionExpression: `${options.index}pk = :partition`,
    ...input,
    ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':partition': options.partition },
    ExclusiveStartKey: options.cursor,
    ...extra,
  });
};

/** Counts the records of index partitions that pass a filter (COUNT queries, never reading items out). */
async function countIn(db: Db, source: Source): Promise<number> {
  const counts = await Promise.all(
    source.partitions.map(async (partition) => {
      let count = 0;
      let cursor: Record<string, unknown> | undefined;
      do {
        const page = await db.documents.send(
          partitionQuery(db, { ...source, partition, ...(cursor ? { cursor } : {}) }, { Select: 'COUNT' }),
        );
        count += page.Count ?? 0;
        cursor = page.LastEvaluatedKey;
      } while (cursor);
      return count;
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/**
 * Reads one page of records from index partitions, newest first, skipping `skip` matches: it reads past
 * the pages before it and stops as soon as the page is full.
 */
async function pageIn<T>(db: Db, source: Source, window: PageWindow): Promise<T[]> {
  const page: T[] = [];
  let skipped = 0;
  for (const partition of source.partitions) {
    let cursor: Record<string, unknown> | undefined;
    do {
      const result = await db.documents.send(
        partitionQuery(
          db,
          { ...source, partition, ...(cursor ? { cursor } : {}) },
          { ScanIndexForward: false },
        ),
      );
      for (const record of result.Items ?? []) {
        if (skipped < window.skip) skipped += 1;
        else if (page.length < window.take) page.push(stripKeys<T>(record));
      }
      if (page.length >= window.take) return page;
      cursor = result.LastEvaluatedKey;
    } while (cursor);
  }
  return page;
}

const listPage = async <T>(db: Db, source: Source, window: PageWindow): Promise<ListPage<T>> => {
  const [total, rows] = await Promise.all([countIn(db, source), pageIn<T>(db, source, window)]);
  return { rows, total };
};

/** A page of a customer's bookings (gsi1), newest first, with the other filters applied. */
export function listBookingsByCustomer(
  db: Db,
  options: { customerId: number; filters: Omit<BookingListFilters, 'customerId'>; page: PageWindow },
): Promise<ListPage<StoredBooking>> {
  const source: Source = {
    index: 'gsi1',
    partitions: [customerBookingsPartition(options.customerId)],
    filter: bookingFilter(options.filters),
  };
  return listPage(db, source, options.page);
}

/** A page of the bookings of one status (gsi2), newest first, with the other filters applied. */
export function listBookingsByStatus(
  db: Db,
  options: { statusId: string; filters: Omit<BookingListFilters, 'statusId'>; page: PageWindow },
): Promise<ListPage<StoredBooking>> {
  const source: Source = {
    index: 'gsi2',
    partitions: [bookingStatusPartition(options.statusId)],
    filter: bookingFilter(options.filters),
  };
  return listPage(db, source, options.page);
}

/**
 * A page of the bookings created in the months from `from` to `to` (Unix seconds; gsi3), newest first,
 * with the filters applied.
 */
export function listBookingsByCreationMonths(
  db: Db,
  options: { from: number; to: number; filters: BookingListFilters; page: PageWindow },
): Promise<ListPage<StoredBooking>> {
  const source: Source = {
    index: 'gsi3',
    partitions: monthsBetween(options.from, options.to).map(bookingMonthPartition),
    filter: bookingFilter(options.filters),
  };
  return listPage(db, source, options.page);
}

/** A note with the code of its booking, as the notes-by-month index holds it. */
export type IndexedNote = StoredNote & { booking_code: string };

/**
 * A page of the notes written in [from, to) (Unix seconds; gsi3 notes by month), newest first, only a
 * partner's bookings' notes when `partnerId` is given.
 */
export function listNotesByDate(
  db: Db,
  options: { range: TimeRange; partnerId?: number; page: PageWindow },
): Promise<ListPage<IndexedNote>> {
  const { from, to } = options.range;
  const partner = options.partnerId;
  const source: Source = {
    index: 'gsi3',
    partitions: from < to ? monthsBetween(from, to).map(noteMonthPartition) : [],
    filter: {
      expression: `#at >= :from AND #at < :to${partner !== undefined ? ' AND partner_id = :partner' : ''}`,
      names: { '#at': 'at' },
      values: { ':from': from, ':to': to, ...(partner !== undefined ? { ':partner': partner } : {}) },
    },
  };
  return listPage(db, source, options.page);
}

/** Every booking of a customer (gsi1), newest first. */
export async function listAllBookingsOfCustomer(db: Db, customerId: number): Promise<StoredBooking[]> {
  const records = await queryAll(db, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': customerBookingsPartition(customerId) },
    ScanIndexForward: false,
  });
  return records.map((record) => stripKeys<StoredBooking>(record));
}

/**
 * The codes of the bookings of the given statuses that hold any of the counters, by counter: one query per
 * status (gsi2), filtered on the booking's `holds`. For the rare question "who sold this date", never a
 * request path.
 */
export async function findBookingsHolding(
  db: Db,
  options: { statusIds: string[]; counterIds: string[] },
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (options.counterIds.length === 0) return found;
  const names = Object.fromEntries(options.counterIds.map((id, index) => [`#c${index}`, id]));
  const filter = Object.keys(names)
    .map((name) => `attribute_exists(holds.${name})`)
    .join(' OR ');
  const pages = await Promise.all(
    options.statusIds.map((statusId) =>
      queryAll(db, {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        FilterExpression: filter,
        ExpressionAttributeNames: { ...names, '#code': 'code' },
        ExpressionAttributeValues: { ':pk': bookingStatusPartition(statusId) },
        ProjectionExpression: `#code, holds`,
      }),
    ),
  );
  for (const record of pages.flat()) {
    const holds = (record.holds ?? {}) as Record<string, number>;
    for (const id of options.counterIds) {
      if (holds[id]) found.set(id, [...(found.get(id) ?? []), String(record.code)]);
    }
  }
  return found;
}

/** What the staff calendar feed shows of a booking. */
export type FeedBooking = Pick<
  StoredBooking,
  'booking_id' | 'code' | 'status_id' | 'start_date' | 'end_date' | 'form' | 'lines'
>;

/**
 * The bookings of the given statuses whose stay ends at or after `endsFrom` (Unix seconds), for the staff
 * calendar feed: one query per status (gsi2), filtered on the stay's end.
 */
export async function listBookingsEndingFrom(
  db: Db,
  options: { statusIds: string[]; endsFrom: number },
): Promise<FeedBooking[]> {
  const pages = await Promise.all(
    options.statusIds.map((statusId) =>
      queryAll(db, {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        FilterExpression: 'end_at >= :from',
        ExpressionAttributeNames: { '#code': 'code', '#form': 'form', '#lines': 'lines' },
        ExpressionAttributeValues: { ':pk': bookingStatusPartition(statusId), ':from': options.endsFrom },
        ProjectionExpression: 'booking_id, #code, status_id, start_date, end_date, #form, #lines',
      }),
    ),
  );
  return pages.flat() as unknown as FeedBooking[];
}
