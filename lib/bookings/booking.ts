import { randomUUID } from 'node:crypto';
import type { Caller } from '../access/index.ts';
import type { StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { StoredEvent } from '../kernel/events.ts';
import type { Db } from '../kernel/storage/database.ts';
import type { RetryPolicy } from '../kernel/storage/transact.ts';
import type { SlipKey } from '../slip/index.ts';
import type { PaymentOptions } from './payment-records.ts';
import { type BookingRecord, getBookingIdByCode, getBookingRecord } from './repository.ts';

/** Statuses whose stock is released and that cannot be checked in or out. */
export const isInactive = (statusId: string): boolean => statusId === 'VOID' || statusId === 'CANCELLED';

/** Every status a booking may have: the tenant's set and CANCELLED, which always exists. */
export const knownStatuses = (config: StoredConfig): Set<string> =>
  new Set([...config.statuses.map((status) => status.status_id), 'CANCELLED']);

/** The display name of a status. */
export const statusName = (config: StoredConfig, statusId: string): string =>
  statusId === 'CANCELLED'
    ? 'Cancelled'
    : (config.statuses.find((status) => status.status_id === statusId)?.name ?? statusId);

/** What a booking operation needs. */
export interface BookingContext {
  db: Db;
  config: StoredConfig;
  keys: readonly SlipKey[];
  caller: Caller;
  /** The requester's key: SLIPs held by a customer's create count against its hold budget (see `sessionActorOf`). */
  requester: string;
  now: number;
  retry?: RetryPolicy;
  /** How a customer's create takes payment when the tenant asks for it (issue 43); none: no payment taken. */
  payment?: PaymentOptions;
}

/** The acting account of a caller (0 = the customer). */
export const accountIdOf = (caller: Caller): number => (caller.kind === 'staff' ? caller.accountId : 0);

/** A new event of a booking's audit trail. */
export const newEvent = (
  ctx: { now: number; caller: Caller },
  type: string,
  data: Record<string, unknown> = {},
): StoredEvent => ({
  event_id: randomUUID(),
  type,
  at: ctx.now,
  account_id: accountIdOf(ctx.caller),
  data,
});

/** Whether a caller may see a booking: a partner's own credential sees only those attributed to it. */
export const canSee = (caller: Caller | undefined, booking: { partner_id?: number }): boolean =>
  !(caller?.kind === 'staff' && caller.partnerOnly) || booking.partner_id === caller.partnerId;

/**
 * Finds a booking by its code or its numeric id; anything that cannot be either is not found unread, and
 * so is a booking the caller may not see (the same answer: no oracle).
 */
export async function findBooking(
  db: Db,
  reference: string,
  viewer: Caller | undefined,
): Promise<BookingRecord> {
  const id = /^\d{1,10}$/.test(reference)
    ? Number(reference)
    : /^[A-Za-z0-9-]{1,40}$/.test(reference)
      ? await getBookingIdByCode(db, reference.toUpperCase())
      : undefined;
  const found = id ? await getBookingRecord(db, id) : undefined;
  const record = found && canSee(viewer, found.booking) ? found : undefined;
  if (!record)
    throw new DomainError('not_found', `Booking ${reference} not found`, { booking_id: reference });
  return record;
}
