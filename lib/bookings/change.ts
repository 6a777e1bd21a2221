import { isPartnerOnly } from '../access/index.ts';
import { DomainError } from '../kernel/errors.ts';
import {
  ConditionsFailedError,
  commitWithRetry,
  MAX_TRANSACTION_ACTIONS,
  type NamedAction,
  named,
  type TransactItem,
  transact,
} from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { releaseBookingBudgetActions } from '../sessions/index.ts';
import { parseCounterId } from '../stock/index.ts';
import { type BookingContext, findBooking, newEvent } from './booking.ts';
import { bookingEventActions } from './events.ts';
import {
  type BookingRecord,
  dropBudgetAction,
  replaceBookingAction,
  type StoredBooking,
  type StoredNote,
  type StoredPayment,
} from './repository.ts';

/** The most actions a booking's event takes: its audit entry, the outbox entry and ten endpoints' deliveries. */
const EVENT_ACTIONS_AT_MOST = 12;

/**
 * What a write of a booking's change stands for, so a failed condition is told by name: a stock counter
 * (taken back on its capacity), the gift certificate's balance, or a write with no condition of its own.
 */
export type ChangeRole = { kind: 'counter'; id: string } | { kind: 'giftcert' } | { kind: 'write' };

/** Writes of a change with no condition of their own (notes, bookmarks, payments, released stock). */
export const plainWrites = (actions: TransactItem[]): NamedAction<ChangeRole>[] =>
  named<ChangeRole>({ kind: 'write' }, actions);

/** One change of a booking: the new record, the other writes of the same transaction, and its event. */
export interface BookingChange {
  next: StoredBooking;
  writes: NamedAction<ChangeRole>[];
  event: { type: string; data?: Record<string, unknown> };
  /** What gives an unpaid booking's budget back to its client (part of the change; see `changeBooking`). */
  settle?: TransactItem[];
  /**
   * An event that happened just before `event` in the same change, with the booking as it was then (a
   * status change that a payment follows): recorded and delivered first.
   */
  preceding?: { type: string; data: Record<string, unknown>; booking: StoredBooking };
  /** Notes and payments the writes add, for the booking as the event's notifications show it. */
  added?: { notes?: StoredNote[]; payments?: StoredPayment[] };
}

/**
 * Applies a change to a booking in one transaction with its event, only if nobody changed the booking
 * since it was read (re-read and re-checked otherwise).
 */
export async function changeBooking(
  ctx: BookingContext,
  reference: string,
  change: (record: BookingRecord) => Promise<BookingChange> | BookingChange,
): Promise<StoredBooking> {
  type Role = ChangeRole | { kind: 'booking' };
  let giftcertCode = '';
  return commitWithRetry<StoredBooking, Role>(ctx.db, {
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    attempt: async () => {
      let record = await findBooking(ctx.db, reference, ctx.caller);
      let built = await change(record);
      const settle = built.settle ?? [];
      // A booking's own writes, its event and its webhooks fit one transaction; with an unpaid booking's
      // budget to give back as well (two actions a counter, at 48 item-dates), they may not. Then the budget
      // goes back first, in its own transaction on the booking as read; the change follows, on the same
      // version. A crash between the two leaves the booking as it was, only no longer counted against its
      // client: the one way the split can err, and the safe one for stock.
      const own = built.writes.length + 1 + EVENT_ACTIONS_AT_MOST * (built.preceding ? 2 : 1);
      if (settle.length && own + settle.length > MAX_TRANSACTION_ACTIONS) {
        try {
          await transact(
            ctx.db,
            [
              dropBudgetAction(ctx.db, {
                bookingId: record.booking.booking_id,
                version: record.booking.version,
              }),
              ...settle,
            ],
            ctx.retry,
          );
        } catch (error) {
          if (!(error instanceof ConditionsFailedError)) throw error;
        }
        record = await findBooking(ctx.db, reference, ctx.caller);
        built = await change(record);
      }
      const { next, writes, event, added, preceding } = built;
      giftcertCode = next.giftcert?.code ?? '';
      const nowSeconds = unixSeconds(ctx.now);
      const updated = { ...next, version: record.booking.version + 1, last_modified: nowSeconds };
      const write: NamedAction<Role>[] = [
        ...writes,
        ...plainWrites(built.settle ?? []),
        { role: { kind: 'booking' }, action: replaceBookingAction(ctx.db, updated, record.booking.version) },
        ...(preceding
          ? bookingEventActions(ctx, {
              event: newEvent(ctx, preceding.type, preceding.data),
              snapshot: {
                booking: { ...preceding.booking, version: updated.version, last_modified: nowSeconds },
                notes: record.notes,
                payments: record.payments,
              },
            }).map((action) => ({ role: { kind: 'booking' as const }, action }))
          : []),
        ...bookingEventActions(ctx, {
          // A millisecond after the event before it, so the two are delivered in their order.
          event: newEvent(preceding ? { ...ctx, now: ctx.now + 1 } : ctx, event.type, event.data ?? {}),
          snapshot: {
            booking: updated,
            notes: [...record.notes, ...(added?.notes ?? [])],
            payments: [...record.payments, ...(added?.payments ?? [])],
          },
        }).map((action) => ({ role: { kind: 'booking' as const }, action })),
      ];
      return { write, result: updated };
    },
    onFailed: (failed) => {
      const counter = failed.find((role) => role.kind === 'counter');
      if (counter?.kind === 'counter') {
        const { itemId, slot } = parseCounterId(counter.id);
        throw new DomainError(
          'unavailable',
          `Not enough left of item ${itemId} on ${slot.slice(0, 8)} to revive the booking`,
          { item_id: itemId, date: slot.slice(0, 8) },
        );
      }
      if (failed.some((role) => role.kind === 'giftcert')) {
        throw new DomainError(
          'unavailable',
          'The gift certificate no longer has the balance this booking spent',
          {
            giftcert_code: giftcertCode,
          },
        );
      }
      // The booking changed since it was read: read it again and re-check.
    },
  });
}

/**
 * What confirming a booking does to an unpaid one: staff acting on it (a status change, a payment taken, a
 * check-in) take it off its client's budgets; a partner's own credential does not confirm its own booking,
 * unless it voids or cancels it (its stock goes back, so its budget must too).
 */
export function settleBudget(
  ctx: BookingContext,
  options: { booking: StoredBooking; next: StoredBooking; releasesStock: boolean },
): { next: StoredBooking; settle: TransactItem[] } {
  const { booking } = options;
  if (!booking.budget || (isPartnerOnly(ctx.caller) && !options.releasesStock))
    return { next: options.next, settle: [] };
  const { budget: _released, ...next } = options.next;
  return { next, settle: releaseBookingBudgetActions(ctx.db, booking, unixSeconds(ctx.now)) };
}
