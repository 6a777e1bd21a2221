import { randomUUID } from 'node:crypto';
import { createItemLoader, getItemsById, type StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { NamedAction } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { catchUpLines } from '../sessions/index.ts';
import {
  capacityOf,
  holdStockAction,
  parseCounterId,
  releaseStockAction,
  takeStockAction,
} from '../stock/index.ts';

import { accountIdOf, type BookingContext, isInactive, knownStatuses } from './booking.ts';
import { type ChangeRole, changeBooking, plainWrites, settleBudget } from './change.ts';
import { giftcertBalanceAction } from './giftcert-repository.ts';
import {
  putAttemptAction,
  putPaymentDueAction,
  replaceAttemptAction,
  type StoredPaymentAttempt,
} from './payment-records.ts';
import {
  type BookingRecord,
  putPaymentAction,
  type StoredBooking,
  type StoredPayment,
} from './repository.ts';

/**
 * A status change as the caller asked it; a field left out is `undefined`, which the rule tells apart
 * from a field sent (`set_paid` goes with nothing but `status_id=PAID`).
 */
export interface StatusChange {
  /** The status to go to: one of the tenant's set, or CANCELLED. */
  statusId: string;
  /** Whether receivers are to be told (recorded on the event); left out, they are. */
  notify?: boolean | undefined;
  /** `true` records one point-of-sale payment of what is due; only with PAID, and only with nothing else. */
  setPaid?: boolean | undefined;
  /** Why, when the service changes it by itself (recorded on the event); nobody asked for it then. */
  reason?: string | undefined;
}

/**
 * Refuses a status change the booking's tenant does not allow, with a 400 `validation_error` naming the
 * field: a status outside the tenant's set and CANCELLED, or `setPaid` other than `true` with PAID and
 * nothing else. A change the service makes by itself (with a `reason`: the unpaid voider's VOID) is not
 * held to the tenant's set, so a tenant that left VOID out of it still has its unpaid bookings voided.
 */
export function checkStatusChange(config: StoredConfig, change: StatusChange): void {
  const known = knownStatuses(config);
  if (change.reason === undefined && !known.has(change.statusId)) {
    throw new DomainError('validation_error', 'Invalid parameter: status_id', {
      status_id: `one of ${[...known].join(', ')}`,
    });
  }
  if (
    change.setPaid !== undefined &&
    (!change.setPaid || change.statusId !== 'PAID' || change.notify !== undefined)
  ) {
    throw new DomainError('validation_error', 'Invalid parameter: set_paid', {
      set_paid: 'only set_paid=1 with status_id=PAID and nothing else',
    });
  }
}

/**
 * Staff voiding or cancelling a booking that holds money keep it: each attempt still holding captured money
 * records who kept it and when (`kept`), and staff give it back, if they will, through the payment's refund
 * route (docs/decisions.md). The service's own changes (a lapse, a payment given back) and a partner's never
 * keep money: reconcile names what they leave.
 */
function keepMoney(
  ctx: BookingContext,
  attempts: readonly StoredPaymentAttempt[] | undefined,
  nowSeconds: number,
) {
  // A partner's staff cancel for their guest, not for the business: what the business keeps is its own call.
  // The service (account 0) keeps nothing either.
  const { caller } = ctx;
  if (caller.kind !== 'staff' || caller.partnerOnly || !caller.accountId) return [];
  const kept = { account_id: caller.accountId, at: nowSeconds };
  const keeping = (attempts ?? []).filter(
    (attempt) => attempt.captured > attempt.refunded && attempt.flag !== 'stray' && !attempt.kept,
  );
  return keeping.map((attempt) =>
    replaceAttemptAction(
      ctx.db,
      {
        ...attempt,
        kept,
        version: attempt.version + 1,
        updated: nowSeconds,
      },
      attempt.version,
    ),
  );
}

/**
 * Changes a booking's status, if `checkStatusChange` allows it (checked before the booking is read).
 * Going to VOID or CANCELLED releases its stock and restores a spent gift certificate; leaving them takes
 * the stock again (409 `unavailable` if it is gone) and spends it again. With `setPaid`, records one
 * point-of-sale payment of exactly what is due (409 `nothing_due` if nothing).
 */
export async function changeStatus(
  ctx: BookingContext,
  options: StatusChange & {
    reference: string;
    /** Change it only while it is still unpaid and unconfirmed (`invalid_status` otherwise). */
    ifUnpaid?: boolean;
    /** Writes of the same transaction, from the booking as read (a lapsing payment attempt's); may refuse. */
    also?: (record: BookingRecord) => NamedAction<ChangeRole>[];
    /** More of the event's data, from the booking as read (a guest's cancel: its refund); may refuse. */
    details?: (record: BookingRecord) => Record<string, unknown>;
  },
): Promise<StoredBooking> {
  checkStatusChange(ctx.config, options);
  const notify = options.notify !== false;
  const setPaid = options.setPaid === true;
  return changeBooking(ctx, options.reference, async (record) => {
    const { booking } = record;
    if (options.ifUnpaid && !booking.budget) {
      throw new DomainError('invalid_status', 'The booking was paid or confirmed meanwhile', {
        status_id: booking.status_id,
      });
    }
    const from = booking.status_id;
    const to = options.statusId;
    const writes: NamedAction<ChangeRole>[] = [...(options.also?.(record) ?? [])];
    const details = options.details?.(record) ?? {};
    let next: StoredBooking = { ...booking, status_id: to };
    const nowSeconds = unixSeconds(ctx.now);
    const giftcert = booking.giftcert;
    let payment: StoredPayment | undefined;
    if (!isInactive(from) && isInactive(to)) {
      for (const [id, units] of Object.entries(booking.holds)) {
        const { itemId, slot } = parseCounterId(id);
        writes.push(...plainWrites([releaseStockAction(ctx.db, { itemId, slot, units })]));
      }
      // An authorisation nobody will capture now: on the sweeper's list at once, which lets it go at the
      // provider (this function makes no provider call; docs/payments.md).
      if (record.attempts?.some((one) => one.status === 'authorised'))
        writes.push(
          ...plainWrites([
            putPaymentDueAction(ctx.db, { bookingId: booking.booking_id, deadline: nowSeconds }),
          ]),
        );
      if (!options.reason) writes.push(...plainWrites(keepMoney(ctx, record.attempts, nowSeconds)));
      // A change waiting for its payment goes with it: the stock it held is released above with the rest,
      // and the booking, if revived, takes back only what it held before (issue 44).
      if (booking.change) {
        const { change, ...rest } = next;
        next = { ...rest, holds: change?.from_holds ?? booking.holds };
      }
      if (giftcert) {
        const action = giftcertBalanceAction(ctx.db, { code: giftcert.code, spend: -giftcert.amount });
        writes.push({ role: { kind: 'giftcert' }, action });
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
          writes.push(...plainWrites([takeStockAction(ctx.db, { itemId, slot, units })]));
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
        writes.push({
          role: { kind: 'counter', id },
          action: holdStockAction(ctx.db, { itemId, slot, units, capacity }),
        });
      }
      if (giftcert) {
        const action = giftcertBalanceAction(ctx.db, { code: giftcert.code, spend: giftcert.amount });
        writes.push({ role: { kind: 'giftcert' }, action });
        next = { ...next, paid_total: next.paid_total + giftcert.amount };
      }
    }
    // Staff changing an unpaid booking's status (confirming, paying, voiding) takes it off its client's
    // budgets: from now on it is the business's decision, not a stranger's hold.
    const settled = settleBudget(ctx, { booking, next, releasesStock: !isInactive(from) && isInactive(to) });
    const { settle } = settled;
    next = settled.next;
    if (setPaid) {
      const due = booking.totals.total - booking.paid_total;
      if (due <= 0) throw new DomainError('nothing_due', 'Nothing is due on this booking', { due: 0 });
      const id = `pos_${randomUUID()}`;
      payment = {
        transaction_id: id,
        amount: due,
        method: 'pos',
        account_id: accountIdOf(ctx.caller),
        date: nowSeconds,
      };
      // Also a payment record like a provider's (issue 43), so that staff can refund it and it is listed.
      const attempt = {
        payment_id: id,
        booking_id: booking.booking_id,
        provider: 'pos',
        kind: 'pos' as const,
        amount: due,
        currency: ctx.config.locale.currency,
        capture: 'automatic' as const,
        status: 'captured' as const,
        version: 1,
        deadline: nowSeconds,
        checkout_expires_at: nowSeconds,
        captured: due,
        refunded: 0,
        applied: due,
        return_url: '',
        cancel_url: '',
        created: nowSeconds,
        updated: nowSeconds,
      };
      writes.push(
        ...plainWrites([
          putPaymentAction(ctx.db, booking.booking_id, payment),
          putAttemptAction(ctx.db, attempt),
        ]),
      );
      next = { ...next, paid_total: booking.paid_total + due };
    }
    const statusChanged = {
      from,
      to,
      notify,
      ...(options.reason ? { reason: options.reason } : {}),
      ...details,
    };
    return {
      next,
      writes,
      settle,
      // A payment that moves the status is a status change too: receivers of booking.status_changed learn
      // that the booking became PAID, then payment.created records the money.
      ...(setPaid && from !== to
        ? {
            preceding: {
              type: 'booking.status_changed',
              data: statusChanged,
              booking: { ...next, paid_total: booking.paid_total },
            },
          }
        : {}),
      event: setPaid
        ? {
            type: 'payment.created',
            data: {
              ...statusChanged,
              amount: payment?.amount,
              payment_id: payment?.transaction_id,
              provider: 'pos',
              kind: 'pos',
            },
          }
        : { type: 'booking.status_changed', data: statusChanged },
      added: { payments: payment ? [payment] : [] },
    };
  });
}
