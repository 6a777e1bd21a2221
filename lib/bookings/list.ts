import type { Caller } from '../access/index.ts';
import type { StoredConfig } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { unixSeconds } from '../kernel/time.ts';
import { knownStatuses } from './booking.ts';
import { getCustomerIdByEmail } from './customer-repository.ts';
import { firstIdAt } from './id-counter-repository.ts';
import {
  type BookingListFilters,
  type IndexedNote,
  type ListPage,
  listBookingsByCreationMonths,
  listBookingsByCustomer,
  listBookingsByStatus,
  listNotesByDate,
  type TimeRange,
} from './list-repository.ts';
import type { StoredBooking } from './repository.ts';

/** A validated booking list query: its filters and which page. */
export interface ListQuery extends BookingListFilters {
  customerEmail?: string;
  limit: number;
  page: number;
}

const NONE = { rows: [], total: 0 };
/** How far the month indexes may reach past the first booking and past now (a month each way). */
const MONTH_MARGIN = 86_400 * 31;

/** A partner's own credential lists only its bookings and notes, whatever partner it asks for. */
const confinedPartner = (caller: Caller, asked: number | undefined): number | undefined => {
  if (caller.kind !== 'staff' || !caller.partnerOnly) return asked;
  return asked === undefined || asked === caller.partnerId ? caller.partnerId : -1;
};

/**
 * Lists bookings, newest first, from the narrowest index: a customer's bookings, a status, or the creation
 * months in range; the other filters apply on the way. An unknown status or email lists nothing.
 */
export async function listBookings(
  db: Db,
  options: { query: ListQuery; caller: Caller; config: StoredConfig; now: number },
): Promise<ListPage<StoredBooking>> {
  const { query, config } = options;
  const { customerEmail, limit, page: pageNumber, ...asked } = query;
  const filters: BookingListFilters = { ...asked };
  const partnerId = confinedPartner(options.caller, asked.partnerId);
  if (partnerId !== undefined) filters.partnerId = partnerId;
  const page = { skip: (pageNumber - 1) * limit, take: limit };

  const customerId = customerEmail ? await getCustomerIdByEmail(db, customerEmail) : filters.customerId;
  if (customerEmail && !customerId) return NONE;
  if (customerId !== undefined) {
    const { customerId: _, ...rest } = filters;
    return listBookingsByCustomer(db, { customerId, filters: rest, page });
  }
  if (filters.statusId !== undefined) {
    if (!knownStatuses(config).has(filters.statusId)) return NONE;
    const { statusId, ...rest } = filters;
    return listBookingsByStatus(db, { statusId, filters: rest, page });
  }
  const first = await firstIdAt(db, 'booking');
  if (first === undefined) return NONE;
  const from = Math.max(first - MONTH_MARGIN, filters.created?.from ?? first - MONTH_MARGIN);
  const to = Math.min(
    unixSeconds(options.now) + MONTH_MARGIN,
    filters.created?.to ?? Number.POSITIVE_INFINITY,
  );
  return listBookingsByCreationMonths(db, { from, to, filters, page });
}

/**
 * Lists the notes written in a range across bookings, newest first, within a day of the first booking and
 * of now; a partner's own credential sees only the notes of its bookings.
 */
export async function listNotes(
  db: Db,
  options: { range: TimeRange; caller: Caller; limit: number; page: number; now: number },
): Promise<ListPage<IndexedNote>> {
  const nowSeconds = unixSeconds(options.now);
  const first = await firstIdAt(db, 'booking');
  const range = {
    from: Math.max(options.range.from, (first ?? nowSeconds) - 86_400),
    to: Math.min(options.range.to, nowSeconds + 86_400),
  };
  const partnerId = confinedPartner(options.caller, undefined);
  return listNotesByDate(db, {
    range,
    ...(partnerId !== undefined ? { partnerId } : {}),
    page: { skip: (options.page - 1) * options.limit, take: options.limit },
  });
}
