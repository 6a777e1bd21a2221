import { randomBytes, randomUUID } from 'node:crypto';
import { localInstant, todayIn } from '../core/dates.ts';
import { unixSeconds } from '../core/time.ts';
import {
  createBookingActions,
  getBookingRecord,
  putPaymentAction,
  type StoredBooking,
  type StoredPayment,
} from '../db/booking-repository.ts';
import { createCustomerActions, getCustomerIdByEmail } from '../db/customer-repository.ts';
import { getGiftcert, giftcertBalanceAction } from '../db/giftcert-repository.ts';
import { nextId } from '../db/id-counter-repository.ts';
import { bookSessionAction, getSession, type StoredSession } from '../db/session-repository.ts';
import { holdStockAction, parseCounterId } from '../db/stock-repository.ts';
import { createItemLoader, type StoredConfig } from '../db/tenant-repository.ts';
import { commitWithRetry, type NamedAction, type TransactItem } from '../db/transact.ts';
import { actorOf, type BookingContext, isInactive, newEvent } from './booking.ts';
import { bookingEventActions } from './booking-events.ts';
import { type Audience, validateForm } from './booking-form.ts';
import { actorOf as sessionActorOf } from './cart-lines.ts';
import { DomainError } from './errors.ts';
import { addSlips, endSession, isExpired } from './session.ts';
import { unavailableCounter } from './session-commit.ts';
import { capacityOf, catchUpLines, releaseBudgetActions } from './stock.ts';
import { lineAmounts, sumAmounts } from './totals.ts';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A new booking code: the tenant prefix and six unambiguous random characters. */
export function newBookingCode(prefix: string): string {
  const bytes = randomBytes(6);
  return `${prefix}-${[...bytes].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join('')}`;
}

/** What `booking/create` is asked. */
export interface CreateBookingInput {
  sessionId?: string;
  slips: string[];
  form: unknown;
  giftcertCode?: string;
  /** A solved proof-of-work challenge for holding `slips` of an item under pressure (ALTCHA payload). */
  altcha?: string;
}

/** A booking just made (or found, when its session was already booked). */
export interface CreatedBooking {
  booking: StoredBooking;
  existing: boolean;
}

const sessionTotals = (session: StoredSession, config: StoredConfig) =>
  sumAmounts(
    Object.values(session.lines).map((line) => lineAmounts(line, config.taxes, config.locale.decimals)),
  );

const initialStatus = (config: StoredConfig, due: number): string => {
  const statuses = config.statuses.map((status) => status.status_id);
  if (due === 0 && statuses.includes('PAID')) return 'PAID';
  return statuses.find((status) => !isInactive(status)) ?? 'PEND';
};

/**
 * Books a session in one transaction: the booking with its lines and the session's holds (handed over:
 * counters untouched), its code, a new customer (matched by email; only its id and email are stored), the
 * gift certificate spend, the first event, and the session marked booked. A session already booked
 * returns its booking; concurrent creates of one session make one booking.
 */
export async function createBooking(ctx: BookingContext, input: CreateBookingInput): Promise<CreatedBooking> {
  const audience: Audience = ctx.caller.kind === 'staff' ? 'staff' : 'customer';
  const { values: form } = validateForm(ctx.config, input.form, audience);
  // Everything that can be checked before holding is checked first, so a refused create holds nothing.
  if (input.giftcertCode) await spendable(ctx, input.giftcertCode, 1);
  if (!input.slips.length) return bookSession(ctx, { sessionId: input.sessionId, form, input });
  // SLIPs sent with the booking are held first: in the given session, or in a new one.
  const sessionCtx = {
    db: ctx.db,
    config: ctx.config,
    keys: ctx.keys,
    now: ctx.now,
    actor: sessionActorOf(ctx.caller, ctx.client),
  };
  const held = await addSlips(input.altcha ? { ...sessionCtx, altcha: input.altcha } : sessionCtx, {
    ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    slips: input.slips,
  });
  try {
    return await bookSession(ctx, { sessionId: held.id, form, input });
  } catch (error) {
    // A session made by this call is seen by nobody: let its holds go now rather than at expiry.
    if (!input.sessionId) {
      await endSession({ ...sessionCtx, startsCooldown: false }, held.id).catch(() => undefined);
    }
    throw error;
  }
}

/** Books a session (see `createBooking`) with a validated form. */
async function bookSession(
  ctx: BookingContext,
  options: { sessionId: string | undefined; form: Record<string, string>; input: CreateBookingInput },
): Promise<CreatedBooking> {
  const { sessionId, form, input } = options;
  if (!sessionId)
    throw new DomainError('session_empty', 'Nothing to book: send a session or SLIPs', { session_id: '' });

  const email = form.customer_email?.toLowerCase();
  // The booking's number is taken while the first attempt reads (numbers may have gaps, never repeat).
  const bookingNumber = nextId(ctx.db, 'booking', ctx.now);
  bookingNumber.catch(() => undefined);
  let newCustomerId: number | undefined;
  let code = newBookingCode(ctx.config.settings.booking_code_prefix);
  type Role = 'session' | 'booking' | 'code' | 'other' | `stock ${string}`;
  let owners: Record<string, string> = {};
  return commitWithRetry<CreatedBooking, Role>(ctx.db, {
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    // The code collided: draw another. Otherwise the session, the customer's email or the gift
    // certificate changed meanwhile: read them again.
    onFailed: (failed) => {
      if (failed.includes('code')) code = newBookingCode(ctx.config.settings.booking_code_prefix);
      const stock = failed.find((role) => role.startsWith('stock '));
      if (stock) throw unavailableCounter(stock.slice('stock '.length), owners);
    },
    attempt: async () => {
      // The session and the customer by email, read at once: neither needs the other.
      const [session, existingCustomer] = await Promise.all([
        getSession(ctx.db, sessionId),
        email ? getCustomerIdByEmail(ctx.db, email) : undefined,
      ]);
      if (!session) throw new DomainError('not_found', 'No such session', { session_id: sessionId });
      if (session.status === 'booked' && session.booking_id) {
        const record = await getBookingRecord(ctx.db, session.booking_id);
        if (record) return { done: { booking: record.booking, existing: true } };
      }
      if (isExpired(session, ctx.now)) {
        throw new DomainError('session_expired', 'The session has expired or ended; start a new one', {
          session_id: sessionId,
        });
      }
      if (Object.keys(session.lines).length === 0) {
        throw new DomainError('session_empty', 'The session has nothing to book', { session_id: sessionId });
      }

      // A line held under an earlier tenant load may take less than its item takes now (an item that was
      // unlimited then): the difference is held now, on capacity, in the booking's own transaction.
      const stale = Object.values(session.lines).filter((line) => line.items_stamp !== ctx.config.updated_at);
      const all = stale.length ? await createItemLoader(ctx.db)(stale.map((line) => line.item_id)) : [];
      const caughtUp = stale.length
        ? catchUpLines(session.lines, { config: ctx.config, all, now: ctx.now })
        : { lines: session.lines, extra: {}, owners: {} };
      owners = caughtUp.owners;
      const holds = { ...session.holds };
      for (const [id, units] of Object.entries(caughtUp.extra)) holds[id] = (holds[id] ?? 0) + units;

      const bookingId = await bookingNumber;
      newCustomerId = existingCustomer
        ? undefined
        : (newCustomerId ?? (await nextId(ctx.db, 'customer', ctx.now)));
      const customerId = existingCustomer ?? (newCustomerId as number);
      const totals = sessionTotals(session, ctx.config);
      const giftcert = input.giftcertCode
        ? await spendable(ctx, input.giftcertCode, totals.total)
        : undefined;
      const paid = giftcert?.amount ?? 0;
      const nowSeconds = unixSeconds(ctx.now);
      const lines = Object.values(session.lines);
      const startDate =
        lines.map((line) => line.start_date).sort()[0] ?? todayIn(ctx.config.company.timezone, ctx.now);
      const endDate =
        lines
          .map((line) => line.end_date)
          .sort()
          .at(-1) ?? startDate;
      const lastDate =
        lines
          .map((line) => line.last_date)
          .sort()
          .at(-1) ?? startDate;
      const booking: StoredBooking = {
        booking_id: bookingId,
        code,
        token: randomBytes(24).toString('base64url'),
        status_id: initialStatus(ctx.config, totals.total - paid),
        version: 1,
        created_date: nowSeconds,
        last_modified: nowSeconds,
        customer_id: customerId,
        form,
        lines: caughtUp.lines,
        holds,
        totals: {
          sub_total: totals.subTotal,
          discount: totals.discount,
          tax: totals.tax,
          tax_included: totals.taxIncluded,
          total: totals.total,
        },
        paid_total: paid,
        ...(giftcert ? { giftcert } : {}),
        checked_in: 0,
        checked_out: 0,
        start_date: startDate,
        end_date: endDate,
        start_at: unixSeconds(localInstant(startDate, 0, ctx.config.company.timezone)),
        end_at: unixSeconds(localInstant(endDate, 0, ctx.config.company.timezone)),
        last_at: unixSeconds(localInstant(lastDate, 0, ctx.config.company.timezone)),
        item_ids: [...new Set(lines.map((line) => line.item_id))],
        session_id: session.id,
        ...(ctx.caller.partnerId !== undefined ? { partner_id: ctx.caller.partnerId } : {}),
        entered_by: actorOf(ctx.caller),
      };
      const [bookingPut, codePut] = createBookingActions(ctx.db, booking) as [TransactItem, TransactItem];
      const named: NamedAction<Role>[] = [
        {
          role: 'session',
          action: bookSessionAction(ctx.db, { session, bookingId, nowSeconds, nowMs: ctx.now }),
        },
        { role: 'booking', action: bookingPut },
        { role: 'code', action: codePut },
        ...Object.entries(caughtUp.extra).map(([id, units]) => {
          const { itemId, slot } = parseCounterId(id);
          const item = all.find((entry) => entry.item_id === itemId);
          const capacity = item ? capacityOf(item, slot, ctx.config.company.timezone) : 0;
          return {
            role: `stock ${id}` as const,
            action: holdStockAction(ctx.db, { itemId, slot, units, capacity }),
          };
        }),
      ];
      const actions: TransactItem[] = [...releaseBudgetActions(ctx.db, session)];
      if (newCustomerId !== undefined) {
        actions.push(
          ...createCustomerActions(ctx.db, {
            customer_id: newCustomerId,
            code: `C-${String(newCustomerId).padStart(6, '0')}`,
            status_id: 'A',
            email: email ?? '',
            created_date: nowSeconds,
          }).slice(0, email ? 2 : 1),
        );
      }
      const payments: StoredPayment[] = [];
      if (giftcert) {
        const payment: StoredPayment = {
          transaction_id: randomUUID(),
          amount: giftcert.amount,
          method: 'giftcert',
          account_id: actorOf(ctx.caller),
          date: nowSeconds,
        };
        payments.push(payment);
        actions.push(giftcertBalanceAction(ctx.db, { code: giftcert.code, spend: giftcert.amount }));
        actions.push(putPaymentAction(ctx.db, bookingId, payment));
      }
      actions.push(
        ...bookingEventActions(ctx, {
          event: newEvent(ctx, 'booking.created', { status_id: booking.status_id, total: totals.total }),
          snapshot: { booking, notes: [], payments },
        }),
      );
      return {
        write: [...named, ...actions.map((action) => ({ role: 'other' as const, action }))],
        result: { booking, existing: false },
      };
    },
  });
}

/**
 * How much of a gift certificate a booking of `total` may spend now; refuses unknown, expired or empty
 * ones. Customers get one answer for all three (no oracle for guessing codes); staff see which it is.
 */
async function spendable(
  ctx: BookingContext,
  rawCode: string,
  total: number,
): Promise<{ code: string; amount: number }> {
  const code = rawCode.trim().toUpperCase();
  const giftcert = /^[A-Z0-9_-]{1,32}$/.test(code) ? await getGiftcert(ctx.db, code) : undefined;
  const refuse = (problem: string): never => {
    if (ctx.caller.kind !== 'staff') {
      throw new DomainError('validation_error', 'This gift certificate cannot be used', {
        giftcert_code: 'not valid',
      });
    }
    throw new DomainError('validation_error', `Gift certificate ${code} ${problem}`, {
      giftcert_code: problem,
    });
  };
  if (!giftcert) return refuse('is not valid');
  if (giftcert.expires && giftcert.expires < todayIn(ctx.config.company.timezone, ctx.now)) {
    return refuse('has expired');
  }
  const amount = Math.min(giftcert.balance, total);
  if (amount <= 0) return refuse('has no balance left');
  return { code, amount };
}
