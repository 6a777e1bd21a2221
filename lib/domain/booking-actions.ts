import { randomUUID } from 'node:crypto';
import { unixSeconds } from '../core/time.ts';
import {
  type BookingRecord,
  bookmarkAction,
  dropBudgetAction,
  putNoteAction,
  putPaymentAction,
  replaceBookingAction,
  type StoredBooking,
  type StoredNote,
  type StoredPayment,
} from '../db/booking-repository.ts';
import { giftcertBalanceAction } from '../db/giftcert-repository.ts';
import {
  holdStockAction,
  parseCounterId,
  releaseStockAction,
  takeStockAction,
} from '../db/stock-repository.ts';
import { createItemLoader, getItemsById } from '../db/tenant-repository.ts';
import {
  ConditionsFailedError,
  commitWithRetry,
  MAX_TRANSACTION_ACTIONS,
  type NamedAction,
  type TransactItem,
  transact,
} from '../db/transact.ts';
import { accountIdOf, type BookingContext, findBooking, isInactive, newEvent } from './booking.ts';
import { bookingEventActions } from './booking-events.ts';
import { isPartnerOnly } from './caller.ts';
import { DomainError } from './errors.ts';
import { capacityOf, catchUpLines, releaseBookingBudgetActions } from './stock.ts';

/** The most actions a booking's event takes: its audit entry, the outbox entry and ten endpoints' deliveries. */
const EVENT_ACTIONS_AT_MOST = 12;

/** The longest note, in characters after trimming. */
export const MAX_NOTE_LENGTH = 3000;

/** One change of a booking: the new record, the other writes of the same transaction, and its event. */
interface BookingChange {
  next: StoredBooking;
  writes: TransactItem[];
  /** For each of `writes` that can fail on a counter: the counter id, to name it in a 409. */
  counters?: (string | undefined)[];
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

const noteOf = (ctx: BookingContext, body: string): StoredNote => ({
  note_id: randomUUID(),
  account_id: accountIdOf(ctx.caller),
  date: new Date(ctx.now).toISOString(),
  body,
  private: 0,
});

/**
 * Applies a change to a booking in one transaction with its event, only if nobody changed the booking
 * since it was read (re-read and re-checked otherwise).
 */
async function changeBooking(
  ctx: BookingContext,
  reference: string,
  change: (record: BookingRecord) => Promise<BookingChange> | BookingChange,
): Promise<StoredBooking> {
  /** A side write that failed on a counter names it; any other side write is the gift certificate. */
  type Role = { kind: 'counter'; id: string } | { kind: 'write' } | { kind: 'booking' };
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
      const { next, writes, counters, event, added, preceding } = built;
      const settled = built.settle ?? [];
      const allWrites = [...writes, ...settled];
      const allCounters = [...(counters ?? writes.map(() => undefined)), ...settled.map(() => undefined)];
      giftcertCode = next.giftcert?.code ?? '';
      const nowSeconds = unixSeconds(ctx.now);
      const updated = { ...next, version: record.booking.version + 1, last_modified: nowSeconds };
      const write: NamedAction<Role>[] = [
        ...allWrites.map((action, index) => {
          const id = allCounters[index];
          return { role: id ? { kind: 'counter' as const, id } : { kind: 'write' as const }, action };
        }),
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
      if (failed.some((role) => role.kind === 'write')) {
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
function settleBudget(
  ctx: BookingContext,
  options: { booking: StoredBooking; next: StoredBooking; releasesStock: boolean },
): { next: StoredBooking; settle: TransactItem[] } {
  const { booking } = options;
  if (!booking.budget || (isPartnerOnly(ctx.caller) && !options.releasesStock))
    return { next: options.next, settle: [] };
  const { budget: _released, ...next } = options.next;
  return { next, settle: releaseBookingBudgetActions(ctx.db, booking, unixSeconds(ctx.now)) };
}

/** Checks a booking in (or out): refused for VOID and CANCELLED and when already done; adds a note unless told not to. */
export async function checkInOrOut(
  ctx: BookingContext,
  options: { reference: string; direction: 'in' | 'out'; note: boolean },
): Promise<StoredBooking> {
  return changeBooking(ctx, options.reference, ({ booking }) => {
    const field = options.direction === 'in' ? 'checked_in' : 'checked_out';
    if (isInactive(booking.status_id)) {
      throw new DomainError(
        'invalid_status',
        `A ${booking.status_id} booking cannot be checked ${options.direction}`,
        {
          status_id: booking.status_id,
        },
      );
    }
    if (booking[field]) {
      throw new DomainError('invalid_status', `The booking is already checked ${options.direction}`, {
        [field]: booking[field],
      });
    }
    const nowSeconds = unixSeconds(ctx.now);
    const note = options.note ? noteOf(ctx, `Checked ${options.direction}`) : undefined;
    const { next, settle } = settleBudget(ctx, {
      booking,
      next: { ...booking, [field]: nowSeconds },
      releasesStock: false,
    });
    return {
      next,
      settle,
      writes: note ? [putNoteAction(ctx.db, booking, note, nowSeconds)] : [],
      event: { type: `booking.checked_${options.direction}`, data: { note: options.note } },
      added: { notes: note ? [note] : [] },
    };
  });
}

/**
 * Changes a booking's status. Going to VOID or CANCELLED releases its stock and restores a spent gift
 * certificate; leaving them takes the stock again (409 `unavailable` if it is gone) and spends it again.
 * With `setPaid`, records one point-of-sale payment of exactly what is due (409 `nothing_due` if nothing).
 */
export async function changeStatus(
  ctx: BookingContext,
  options: {
    reference: string;
    statusId: string;
    notify: boolean;
    setPaid: boolean;
    /** Why, when the service changes it by itself (recorded on the event). */
    reason?: string;
    /** Change it only while it is still unpaid and unconfirmed (`invalid_status` otherwise). */
    ifUnpaid?: boolean;
  },
): Promise<StoredBooking> {
  return changeBooking(ctx, options.reference, async ({ booking }) => {
    if (options.ifUnpaid && !booking.budget) {
      throw new DomainError('invalid_status', 'The booking was paid or confirmed meanwhile', {
        status_id: booking.status_id,
      });
    }
    const from = booking.status_id;
    const to = options.statusId;
    const writes: TransactItem[] = [];
    const counters: (string | undefined)[] = [];
    let next: StoredBooking = { ...booking, status_id: to };
    const nowSeconds = unixSeconds(ctx.now);
    const giftcert = booking.giftcert;
    let payment: StoredPayment | undefined;
    if (!isInactive(from) && isInactive(to)) {
      for (const [id, units] of Object.entries(booking.holds)) {
        const { itemId, slot } = parseCounterId(id);
        writes.push(releaseStockAction(ctx.db, { itemId, slot, units }));
        counters.push(undefined);
      }
      if (giftcert) {
        writes.push(giftcertBalanceAction(ctx.db, { code: giftcert.code, spend: -giftcert.amount }));
        counters.push(undefined);
        next = { ...next, paid_total: next.paid_total - giftcert.amount };
      }
    } else if (isInactive(from) && !isInactive(to)) {
      // Lines booked under an earlier tenant load may take more of their items now (an item given a stock
      // after it was booked while unlimited): reviving takes what they take now, never less.
      const lineItems = await createItemLoader(ctx.db)(
        Object.values(booking.lines).map((line) => line.item_id),
      );
      const caughtUp = catchUpLines(booking.lines, { config: ctx.config, all: lineItems, now: ctx.now });
      const holds = { ...booking.holds };
      for (const [id, units] of Object.entries(caughtUp.extra)) holds[id] = (holds[id] ?? 0) + units;
      next = { ...next, lines: caughtUp.lines, holds };
      const items = await getItemsById(
        ctx.db,
        Object.keys(holds).map((id) => parseCounterId(id).itemId),
      );
      for (const [id, units] of Object.entries(holds)) {
        const { itemId, slot } = parseCounterId(id);
        const item = items.find((entry) => entry.item_id === itemId);
        // What the booking holds is what it recorded, whatever the item's flag says now: voiding released
        // exactly these units, so reviving takes exactly them back (with no capacity condition when the
        // item is unlimited now), and the counters never drift when `unlimited` changes.
        if (item?.unlimited) {
          writes.push(takeStockAction(ctx.db, { itemId, slot, units }));
          counters.push(undefined);
          continue;
        }
        const capacity = item ? capacityOf(item, slot, ctx.config.company.timezone) : 0;
        if (units > capacity) {
          throw new DomainError(
            'unavailable',
            `Not enough left of item ${itemId} on ${slot.slice(0, 8)} to revive the booking`,
            {
              item_id: itemId,
              date: slot.slice(0, 8),
            },
          );
        }
        writes.push(holdStockAction(ctx.db, { itemId, slot, units, capacity }));
        counters.push(id);
      }
      if (giftcert) {
        writes.push(giftcertBalanceAction(ctx.db, { code: giftcert.code, spend: giftcert.amount }));
        counters.push(undefined);
        next = { ...next, paid_total: next.paid_total + giftcert.amount };
      }
    }
    // Staff changing an unpaid booking's status (confirming, paying, voiding) takes it off its client's
    // budgets: from now on it is the business's decision, not a stranger's hold.
    const settled = settleBudget(ctx, { booking, next, releasesStock: !isInactive(from) && isInactive(to) });
    const { settle } = settled;
    next = settled.next;
    if (options.setPaid) {
      const due = booking.totals.total - booking.paid_total;
      if (due <= 0) throw new DomainError('nothing_due', 'Nothing is due on this booking', { due: 0 });
      payment = {
        transaction_id: randomUUID(),
        amount: due,
        method: 'pos',
        account_id: accountIdOf(ctx.caller),
        date: nowSeconds,
      };
      writes.push(putPaymentAction(ctx.db, booking.booking_id, payment));
      counters.push(undefined);
      next = { ...next, paid_total: booking.paid_total + due };
    }
    const statusChanged = {
      from,
      to,
      notify: options.notify,
      ...(options.reason ? { reason: options.reason } : {}),
    };
    return {
      next,
      writes,
      counters,
      settle,
      // A payment that moves the status is a status change too: receivers of booking.status_changed learn
      // that the booking became PAID, then payment.created records the money.
      ...(options.setPaid && from !== to
        ? {
            preceding: {
              type: 'booking.status_changed',
              data: statusChanged,
              booking: { ...next, paid_total: booking.paid_total },
            },
          }
        : {}),
      event: options.setPaid
        ? {
            type: 'payment.created',
            data: { ...statusChanged, amount: booking.totals.total - booking.paid_total },
          }
        : { type: 'booking.status_changed', data: statusChanged },
      added: { payments: payment ? [payment] : [] },
    };
  });
}

/** Sets or clears the acting account's bookmark. */
export async function setBookmark(
  ctx: BookingContext,
  options: { reference: string; mark: boolean },
): Promise<StoredBooking> {
  return changeBooking(ctx, options.reference, ({ booking }) => ({
    next: booking,
    writes: [
      bookmarkAction(ctx.db, {
        bookingId: booking.booking_id,
        accountId: accountIdOf(ctx.caller),
        mark: options.mark,
        at: ctx.now,
      }),
    ],
    event: { type: options.mark ? 'booking.bookmarked' : 'booking.unbookmarked' },
  }));
}

/** Adds a note (1 to 3000 characters after trimming) under the acting account. */
export async function addNote(
  ctx: BookingContext,
  options: { reference: string; body: string },
): Promise<StoredBooking> {
  const body = options.body.trim();
  if (body.length === 0 || body.length > MAX_NOTE_LENGTH) {
    throw new DomainError('validation_error', `A note is 1 to ${MAX_NOTE_LENGTH} characters`, {
      body: `1 to ${MAX_NOTE_LENGTH} characters`,
    });
  }
  return changeBooking(ctx, options.reference, ({ booking }) => {
    const note = noteOf(ctx, body);
    return {
      next: booking,
      writes: [putNoteAction(ctx.db, booking, note, unixSeconds(ctx.now))],
      event: { type: 'booking.note_added', data: { length: body.length } },
      added: { notes: [note] },
    };
  });
}
