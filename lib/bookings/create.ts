import { randomUUID } from 'node:crypto';
import { type Caller, hasGrant, isPartnerOnly } from '../access/index.ts';
import {
  addSlips,
  bookSessionAction,
  catchUpLines,
  clientAllowance,
  endSession,
  getSession,
  holdClientUnitsAction,
  holdLimitCounter,
  isExpired,
  keepBudgetActions,
  loadOpenSession,
  type RefusalAt,
  releaseBudgetActions,
  type StoredSession,
  sessionActorOf,
  unavailableCounter,
  verifySlips,
} from '../cart/index.ts';

import { isNothingForNothing, NOTHING_FOR_NOTHING } from '../catalog/index.ts';
import { createItemLoader, type StoredConfig } from '../config/index.ts';

import { DomainError, NO_LONGER_OFFERED, NO_SUCH_SESSION, SESSION_EXPIRED } from '../kernel/errors.ts';
import { countOf } from '../kernel/guest-words.ts';
import { commitWithRetry, type NamedAction, type TransactItem } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { capacityOf, holdStockAction, parseCounterId } from '../stock/index.ts';

import { accountIdOf, type BookingContext, canSee, newEvent } from './booking.ts';
import { createCustomerActions, getCustomerIdByEmail } from './customer-repository.ts';
import { bookingEventActions } from './events.ts';
import { type Audience, validateForm } from './form.ts';
import { checkGiftcert, spendableGiftcert } from './giftcert.ts';
import { giftcertBalanceAction } from './giftcert-repository.ts';
import { nextId } from './id-counter-repository.ts';
import { newBookingCode, newBookingRecord, sessionMoney } from './record.ts';
import {
  createBookingActions,
  getBookingRecord,
  putPaymentAction,
  type StoredBooking,
  type StoredPayment,
} from './repository.ts';

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
  /** Whether the caller proved it made the booking (`provesCreation`): only then its token, URLs and money. */
  proven: boolean;
}

/**
 * Whether the caller of `booking/create` proves it made the booking, and so may see its token, its URLs
 * and its money: the create that made it does. A booked session's id alone is no proof: a repeat (the
 * session already booked) proves it only from staff who may see the booking, or with the booking's
 * customer email in the form (case and surrounding spaces aside); anyone else learns its id, code and
 * status. A repeat with the same `Idempotency-Key` is answered with the first answer, not by this rule.
 */
export function provesCreation(
  caller: Caller,
  created: { booking: StoredBooking; existing: boolean },
  form: unknown,
): boolean {
  if (!created.existing) return true;
  if (caller.kind === 'staff' && canSee(caller, created.booking)) return true;
  const given =
    form !== null && typeof form === 'object' ? (form as Record<string, unknown>).customer_email : undefined;
  const email = created.booking.form.customer_email;
  return typeof given === 'string' && !!email && given.trim().toLowerCase() === email.trim().toLowerCase();
}

/**
 * Books a session in one transaction: the booking with its lines and the session's holds (handed over:
 * counters untouched), its code, a new customer (matched by email; only its id and email are stored), the
 * gift certificate spend, the first event, and the session marked booked. A session already booked
 * returns its booking; concurrent creates of one session make one booking.
 */
export async function createBooking(ctx: BookingContext, input: CreateBookingInput): Promise<CreatedBooking> {
  const made = await makeBooking(ctx, input);
  return { ...made, proven: provesCreation(ctx.caller, made, input.form) };
}

/** A booking made or found, before what the caller may see of it is decided. */
type MadeBooking = Omit<CreatedBooking, 'proven'>;

/** Validates the form, holds the SLIPs sent with the create if any, and books the session. */
async function makeBooking(ctx: BookingContext, input: CreateBookingInput): Promise<MadeBooking> {
  const audience: Audience = ctx.caller.kind === 'staff' ? 'staff' : 'customer';
  const { values: form } = validateForm(ctx.config, input.form, audience);
  // The gift certificate is checked once, and only when there is something to book: without a session
  // that can be booked, a real code and a made-up one get the same answer.
  let checked: Promise<string> | undefined;
  const rawCode = input.giftcertCode;
  const giftcert = rawCode ? () => (checked ??= checkGiftcert(ctx, rawCode)) : undefined;
  if (!input.slips.length) return bookSession(ctx, { sessionId: input.sessionId, form, giftcert });
  // SLIPs sent with the booking are held first: in the given session, or in a new one.
  const sessionCtx = {
    db: ctx.db,
    config: ctx.config,
    keys: ctx.keys,
    now: ctx.now,
    actor: sessionActorOf(ctx.caller, ctx.client),
  };
  // Everything that can be checked before holding is checked first, so a refused create holds nothing:
  // the SLIPs, the session they go into, then the gift certificate.
  verifySlips(sessionCtx, input.slips);
  if (input.sessionId) await loadOpenSession(ctx.db, input.sessionId, ctx.now);
  await giftcert?.();
  const held = await addSlips(input.altcha ? { ...sessionCtx, altcha: input.altcha } : sessionCtx, {
    ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    slips: input.slips,
  });
  try {
    return await bookSession(ctx, { sessionId: held.id, form, giftcert });
  } catch (error) {
    // A session made by this call is seen by nobody: let its holds go now rather than at expiry.
    if (!input.sessionId) {
      await endSession({ ...sessionCtx, startsCooldown: false }, held.id).catch(() => undefined);
    }
    throw error;
  }
}

/**
 * Refuses a line of nobody at no charge once the tenant no longer allows free bookings: a cart line keeps
 * the price of when it was added, so the rule that price was rated under is checked again here.
 */
function refuseNothingForNothing(config: StoredConfig, session: StoredSession): void {
  if (config.settings.allow_free_bookings) return;
  const line = Object.values(session.lines).find((entry) =>
    isNothingForNothing(entry.sub_total, entry.payload.params),
  );
  if (!line) return;
  const where = { line: line.line_id, item_id: line.item_id, reason: NOTHING_FOR_NOTHING };
  throw new DomainError('unavailable', NOTHING_FOR_NOTHING, where);
}

/** Books a session (see `createBooking`) with a validated form. */
async function bookSession(
  ctx: BookingContext,
  options: {
    sessionId: string | undefined;
    form: Record<string, string>;
    /** Checks the gift certificate (once) and gives its code as stored; none without a code. */
    giftcert: (() => Promise<string>) | undefined;
  },
): Promise<MadeBooking> {
  const { sessionId, form } = options;
  if (!sessionId)
    throw new DomainError('session_empty', 'Nothing to book: send a session or SLIPs', { session_id: '' });

  const email = form.customer_email?.toLowerCase();
  // The booking's number is taken while the first attempt reads (numbers may have gaps, never repeat).
  const bookingNumber = nextId(ctx.db, 'booking', ctx.now);
  bookingNumber.catch(() => undefined);
  let newCustomerId: number | undefined;
  let code = newBookingCode(ctx.config.settings.booking_code_prefix);
  type Role = 'session' | 'booking' | 'code' | 'other' | 'unpaid' | `stock ${string}` | `client ${string}`;
  let refusalAt: RefusalAt = { owners: {}, lines: {}, config: ctx.config, now: ctx.now };
  const allowances: Record<string, number> = {};
  return commitWithRetry<MadeBooking, Role>(ctx.db, {
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    // The code collided: draw another. Otherwise the session, the customer's email or the gift
    // certificate changed meanwhile: read them again.
    onFailed: (failed) => {
      if (failed.includes('code')) code = newBookingCode(ctx.config.settings.booking_code_prefix);
      const stock = failed.find((role) => role.startsWith('stock '));
      if (stock) throw unavailableCounter(stock.slice('stock '.length), refusalAt);
      const share = failed.find((role) => role.startsWith('client '));
      if (share) {
        const id = share.slice('client '.length);
        throw holdLimitCounter(id, refusalAt, { allowance: allowances[id] ?? 0 });
      }
      if (failed.includes('unpaid')) {
        const max = ctx.config.settings.limits.unpaid_bookings_per_client;
        throw new DomainError(
          'hold_limit',
          `You already have ${countOf(max, 'unpaid booking')}; pay one, or wait for one to be confirmed, first`,
          { unpaid_bookings: max },
        );
      }
    },
    attempt: async () => {
      // The session and the customer by email, read at once: neither needs the other.
      const [session, existingCustomer] = await Promise.all([
        getSession(ctx.db, sessionId),
        email ? getCustomerIdByEmail(ctx.db, email) : undefined,
      ]);
      if (!session) throw new DomainError('not_found', NO_SUCH_SESSION, { session_id: sessionId });
      if (session.status === 'booked' && session.booking_id) {
        const record = await getBookingRecord(ctx.db, session.booking_id);
        if (record) return { done: { booking: record.booking, existing: true } };
      }
      if (isExpired(session, ctx.now)) {
        throw new DomainError('session_expired', SESSION_EXPIRED, {
          session_id: sessionId,
        });
      }
      if (Object.keys(session.lines).length === 0) {
        throw new DomainError('session_empty', 'Your cart is empty; add something to book first', {
          session_id: sessionId,
        });
      }
      refuseNothingForNothing(ctx.config, session);
      const giftcertCode = options.giftcert ? await options.giftcert() : undefined;

      // A line held under an earlier tenant load may take less than its item takes now (an item that was
      // unlimited then): the difference is held now, on capacity, in the booking's own transaction.
      const stale = Object.values(session.lines).filter((line) => line.items_stamp !== ctx.config.updated_at);
      const all = stale.length ? await createItemLoader(ctx.db)(stale.map((line) => line.item_id)) : [];
      // An item withdrawn, or made staff-only, since its line was held is no longer sold to this caller.
      for (const line of stale) {
        const item = all.find((entry) => entry.item_id === line.item_id && entry.enabled);
        if (!item || (item.visibility === 'S' && !hasGrant(ctx.caller, 'staff_items'))) {
          throw new DomainError('unavailable', NO_LONGER_OFFERED, {
            line: line.line_id,
            item_id: line.item_id,
          });
        }
      }
      const caughtUp = stale.length
        ? catchUpLines(session.lines, { config: ctx.config, all, now: ctx.now })
        : { lines: session.lines, extra: {}, owners: {} };
      refusalAt = { owners: caughtUp.owners, lines: caughtUp.lines, config: ctx.config, now: ctx.now };
      const holds = { ...session.holds };
      for (const [id, units] of Object.entries(caughtUp.extra)) holds[id] = (holds[id] ?? 0) + units;

      // A customer's unpaid booking keeps counting against the client that held its cart (budgets.md):
      // otherwise booking with any name would hand the budget back and let the client hold again.
      const budgetClient =
        session.client &&
        (ctx.caller.kind === 'customer' ||
          (isPartnerOnly(ctx.caller) && ctx.config.settings.limits.partner_unpaid_budget))
          ? session.client
          : undefined;

      const bookingId = await bookingNumber;
      newCustomerId = existingCustomer
        ? undefined
        : (newCustomerId ?? (await nextId(ctx.db, 'customer', ctx.now)));
      const customerId = existingCustomer ?? (newCustomerId as number);
      const money = sessionMoney(session, ctx.config);
      const { totals } = money;
      const giftcert = giftcertCode
        ? await spendableGiftcert(ctx, { code: giftcertCode, total: totals.total })
        : undefined;
      const nowSeconds = unixSeconds(ctx.now);
      const booking = newBookingRecord(ctx, {
        bookingId,
        code,
        customerId,
        form,
        session,
        lines: caughtUp.lines,
        holds,
        money,
        giftcert,
        budgetClient,
      });
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
          if (units > capacity) throw unavailableCounter(id, refusalAt);
          return {
            role: `stock ${id}` as const,
            action: holdStockAction(ctx.db, { itemId, slot, units, capacity }),
          };
        }),
      ];
      const actions: TransactItem[] = [];
      if (!booking.budget) actions.push(...releaseBudgetActions(ctx.db, session));
      else {
        const client = booking.budget.client;
        // What the booking takes now beyond its cart counts against the client like any hold: within its
        // share of each item-date, conditionally.
        for (const [id, units] of Object.entries(caughtUp.extra)) {
          const { itemId, slot } = parseCounterId(id);
          const item = all.find((entry) => entry.item_id === itemId);
          const capacity = item ? capacityOf(item, slot, ctx.config.company.timezone) : 0;
          const allowance = clientAllowance(capacity, ctx.config.settings.limits.client_hold_share);
          allowances[id] = allowance;
          if (units > allowance) throw holdLimitCounter(id, refusalAt, { allowance });
          named.push({
            role: `client ${id}`,
            action: holdClientUnitsAction(ctx.db, {
              client,
              counterId: id,
              units,
              allowance,
              nowSeconds,
              keep: true,
            }),
          });
        }
        const [claim, ...keep] = keepBudgetActions(ctx.db, {
          session,
          max: ctx.config.settings.limits.unpaid_bookings_per_client,
          booking,
          written: Object.keys(caughtUp.extra),
        }).reverse();
        actions.push(...keep);
        named.push({ role: 'unpaid', action: claim as TransactItem });
      }
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
          account_id: accountIdOf(ctx.caller),
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
