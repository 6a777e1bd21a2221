import { randomUUID } from 'node:crypto';
import { hasGrant, isPartnerOnly } from '../access/index.ts';
import { isNothingForNothing, NOTHING_FOR_NOTHING } from '../catalog/index.ts';
import { createItemLoader, type StoredConfig, type StoredItem } from '../config/index.ts';
import { DomainError, NO_LONGER_OFFERED, NO_SUCH_SESSION, SESSION_EXPIRED } from '../kernel/errors.ts';
import { countOf } from '../kernel/guest-words.ts';
import { commitWithRetry, type NamedAction, named } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import {
  bookSessionAction,
  catchUpLines,
  clientAllowance,
  getSession,
  holdClientUnitsAction,
  holdLimitCounter,
  isExpired,
  keepBudgetActions,
  leaveZonesAfterBooking,
  type RefusalAt,
  releaseBudgetActions,
  type StoredSession,
  unavailableCounter,
} from '../sessions/index.ts';
import { capacityOf, holdStockAction, parseCounterId } from '../stock/index.ts';
import { accountIdOf, type BookingContext, newEvent } from './booking.ts';
import { cancellationOfLines } from './cancellation-terms.ts';
import { createCustomerActions, getCustomerIdByEmail } from './customer-repository.ts';
import { bookingEventActions } from './events.ts';
import { spendableGiftcert } from './giftcert.ts';
import { giftcertBalanceAction } from './giftcert-repository.ts';
import { nextId } from './id-counter-repository.ts';
import { withPayment } from './payment-open.ts';
import { putAttemptAction, putPaymentDueAction, type StoredPaymentAttempt } from './payment-records.ts';
import { newBookingCode, newBookingRecord, sessionMoney } from './record.ts';
import {
  createBookingActions,
  getBookingRecord,
  putPaymentAction,
  type StoredBooking,
  type StoredPayment,
} from './repository.ts';

/** A booking made or found, before what the caller may see of it is decided. */
export interface MadeBooking {
  booking: StoredBooking;
  existing: boolean;
  /** The payment attempt a new booking awaits (issue 43), written with it. */
  attempt?: StoredPaymentAttempt;
}

/** What one action of a booking's transaction stands for, so a failed condition is told by name. */
type BookRole =
  | { kind: 'session' }
  | { kind: 'booking' }
  | { kind: 'code' }
  | { kind: 'stock'; counter: string }
  | { kind: 'client'; counter: string; allowance: number }
  | { kind: 'unpaid' }
  | { kind: 'other' };

/** A session's lines brought up to the items as they are now, and what that adds to its holds. */
interface CaughtUp {
  lines: StoredSession['lines'];
  /** Counters the lines take more of now than they hold: held on capacity in the booking's transaction. */
  extra: Record<string, number>;
  /** The line of each extra counter, for a refusal. */
  owners: Record<string, string>;
  /** The items read to catch up (those of lines held under an earlier tenant load). */
  all: StoredItem[];
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

/** The session to book, checked: unknown, expired, empty and free-line sessions are refused. */
function checkBookable(
  ctx: BookingContext,
  session: StoredSession | undefined,
  sessionId: string,
): StoredSession {
  if (!session) throw new DomainError('not_found', NO_SUCH_SESSION, { session_id: sessionId });
  if (isExpired(session, ctx.now))
    throw new DomainError('session_expired', SESSION_EXPIRED, { session_id: sessionId });
  if (Object.keys(session.lines).length === 0) {
    throw new DomainError('session_empty', 'Your cart is empty; add something to book first', {
      session_id: sessionId,
    });
  }
  refuseNothingForNothing(ctx.config, session);
  return session;
}

/**
 * A line held under an earlier tenant load may take less than its item takes now (an item that was
 * unlimited then): the difference is held now, on capacity, in the booking's own transaction. An item
 * withdrawn, or made staff-only, since its line was held is no longer sold to this caller.
 */
async function catchUp(ctx: BookingContext, session: StoredSession): Promise<CaughtUp> {
  const stale = Object.values(session.lines).filter((line) => line.items_stamp !== ctx.config.updated_at);
  if (!stale.length) return { lines: session.lines, extra: {}, owners: {}, all: [] };
  const all = await createItemLoader(ctx.db)(stale.map((line) => line.item_id));
  for (const line of stale) {
    const item = all.find((entry) => entry.item_id === line.item_id && entry.enabled);
    if (!item || (item.visibility === 'S' && !hasGrant(ctx.caller, 'staff_items'))) {
      throw new DomainError('unavailable', NO_LONGER_OFFERED, { line: line.line_id, item_id: line.item_id });
    }
  }
  return { ...catchUpLines(session.lines, { config: ctx.config, all, now: ctx.now }), all };
}

/**
 * The client whose budget a customer's unpaid booking keeps counting against (budgets.md): otherwise booking
 * with any name would hand the budget back and let the client hold again. None for staff.
 */
const budgetClientOf = (ctx: BookingContext, session: StoredSession): string | undefined =>
  session.client &&
  (ctx.caller.kind === 'customer' ||
    (isPartnerOnly(ctx.caller) && ctx.config.settings.limits.partner_unpaid_budget))
    ? session.client
    : undefined;

/** The capacity of a counter of the caught-up items. */
const capacityIn = (ctx: BookingContext, all: StoredItem[], counter: string): number => {
  const { itemId, slot } = parseCounterId(counter);
  const item = all.find((entry) => entry.item_id === itemId);
  return item ? capacityOf(item, slot, ctx.config.company.timezone) : 0;
};

/**
 * The writes of one booking, named: the session marked booked, the booking and its code, the caught-up
 * counters (on capacity and, for a budgeted client, its share), the client's budget handed over or given
 * back, a new customer, the gift certificate spend and its payment, and the `booking.created` event.
 */
function planBooking(
  ctx: BookingContext,
  input: {
    session: StoredSession;
    booking: StoredBooking;
    caughtUp: CaughtUp;
    newCustomer?: { id: number; email?: string };
    giftcert?: { code: string; amount: number };
    refusalAt: RefusalAt;
    attempt?: StoredPaymentAttempt | undefined;
  },
): NamedAction<BookRole>[] {
  const { session, booking, caughtUp, refusalAt } = input;
  const nowSeconds = unixSeconds(ctx.now);
  const [bookingPut, codePut] = createBookingActions(ctx.db, booking);
  const write: NamedAction<BookRole>[] = [
    {
      role: { kind: 'session' },
      action: bookSessionAction(ctx.db, {
        session,
        bookingId: booking.booking_id,
        nowSeconds,
        nowMs: ctx.now,
      }),
    },
    ...named<BookRole>({ kind: 'booking' }, bookingPut ? [bookingPut] : []),
    ...named<BookRole>({ kind: 'code' }, codePut ? [codePut] : []),
  ];
  for (const [counter, units] of Object.entries(caughtUp.extra)) {
    const capacity = capacityIn(ctx, caughtUp.all, counter);
    if (units > capacity) throw unavailableCounter(counter, refusalAt);
    const { itemId, slot } = parseCounterId(counter);
    write.push({
      role: { kind: 'stock', counter },
      action: holdStockAction(ctx.db, { itemId, slot, units, capacity }),
    });
  }
  // The conditional writes named by what they guard, then the others (the order the benchmark's floor writes).
  const others: NamedAction<BookRole>[] = [];
  const other = (actions: Parameters<typeof named>[1]) =>
    others.push(...named<BookRole>({ kind: 'other' }, actions));
  if (!booking.budget) other(releaseBudgetActions(ctx.db, session));
  else {
    // What the booking takes now beyond its cart counts against the client like any hold: within its share
    // of each item-date, conditionally.
    for (const [counter, units] of Object.entries(caughtUp.extra)) {
      const allowance = clientAllowance(
        capacityIn(ctx, caughtUp.all, counter),
        ctx.config.settings.limits.client_hold_share,
      );
      if (units > allowance) throw holdLimitCounter(counter, refusalAt, { allowance });
      const { client } = booking.budget;
      const action = holdClientUnitsAction(ctx.db, {
        client,
        counterId: counter,
        units,
        allowance,
        nowSeconds,
        keep: true,
      });
      write.push({ role: { kind: 'client', counter, allowance }, action });
    }
    const [claim, ...keep] = keepBudgetActions(ctx.db, {
      session,
      max: ctx.config.settings.limits.unpaid_bookings_per_client,
      booking,
      written: Object.keys(caughtUp.extra),
    }).reverse();
    other(keep);
    write.push(...named<BookRole>({ kind: 'unpaid' }, claim ? [claim] : []));
  }
  const { newCustomer, giftcert } = input;
  if (newCustomer) {
    const customer = {
      customer_id: newCustomer.id,
      code: `C-${String(newCustomer.id).padStart(6, '0')}`,
      status_id: 'A',
      email: newCustomer.email ?? '',
      created_date: nowSeconds,
    };
    other(createCustomerActions(ctx.db, customer).slice(0, newCustomer.email ? 2 : 1));
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
    other([
      giftcertBalanceAction(ctx.db, { code: giftcert.code, spend: giftcert.amount }),
      putPaymentAction(ctx.db, booking.booking_id, payment),
    ]);
  }
  const { attempt } = input;
  if (attempt) {
    other([
      putAttemptAction(ctx.db, attempt),
      putPaymentDueAction(ctx.db, { bookingId: booking.booking_id, deadline: attempt.deadline }),
    ]);
  }
  const created = newEvent(ctx, 'booking.created', {
    status_id: booking.status_id,
    total: booking.totals.total,
  });
  other(bookingEventActions(ctx, { event: created, snapshot: { booking, notes: [], payments } }));
  return [...write, ...others];
}

/** The refusal a failed condition means, if it means one (a code collision or a change meanwhile does not). */
function refusalOf(ctx: BookingContext, failed: BookRole[], refusalAt: RefusalAt): DomainError | undefined {
  for (const role of failed) {
    if (role.kind === 'stock') return unavailableCounter(role.counter, refusalAt);
    if (role.kind === 'client')
      return holdLimitCounter(role.counter, refusalAt, { allowance: role.allowance });
  }
  if (!failed.some((role) => role.kind === 'unpaid')) return undefined;
  const max = ctx.config.settings.limits.unpaid_bookings_per_client;
  return new DomainError(
    'hold_limit',
    `You already have ${countOf(max, 'unpaid booking')}; pay one, or wait for one to be confirmed, first`,
    { unpaid_bookings: max },
  );
}

/**
 * Books a session (see `createBooking`) with a validated form: reads the session and the customer of the
 * email, catches the lines up with their items, plans the writes and commits them in one transaction,
 * reading again when something changed meanwhile.
 */
export async function bookSession(
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
  let refusalAt: RefusalAt = { owners: {}, lines: {}, config: ctx.config, now: ctx.now };
  let booked: StoredSession | undefined;
  const result = await commitWithRetry<MadeBooking, BookRole>(ctx.db, {
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    attempt: async () => {
      // The session and the customer by email, read at once: neither needs the other.
      const [read, existingCustomer] = await Promise.all([
        getSession(ctx.db, sessionId),
        email ? getCustomerIdByEmail(ctx.db, email) : undefined,
      ]);
      if (read?.status === 'booked' && read.booking_id) {
        const record = await getBookingRecord(ctx.db, read.booking_id);
        if (record) return { done: { booking: record.booking, existing: true } };
      }
      const session = checkBookable(ctx, read, sessionId);
      // The cancellation policies read beside the rest (an item with its own is read; most tenants have none).
      const cancellation = cancellationOfLines(ctx.db, ctx.config, Object.values(session.lines));
      cancellation.catch(() => undefined);
      const giftcertCode = options.giftcert ? await options.giftcert() : undefined;
      const caughtUp = await catchUp(ctx, session);
      refusalAt = { owners: caughtUp.owners, lines: caughtUp.lines, config: ctx.config, now: ctx.now };
      const holds = { ...session.holds };
      for (const [id, units] of Object.entries(caughtUp.extra)) holds[id] = (holds[id] ?? 0) + units;
      const bookingId = await bookingNumber;
      if (existingCustomer === undefined) newCustomerId ??= await nextId(ctx.db, 'customer', ctx.now);
      const money = sessionMoney(session, ctx.config);
      const giftcert = giftcertCode
        ? await spendableGiftcert(ctx, { code: giftcertCode, total: money.totals.total })
        : undefined;
      const record = newBookingRecord(ctx, {
        bookingId,
        code,
        customerId: existingCustomer ?? (newCustomerId as number),
        form,
        session,
        lines: caughtUp.lines,
        holds,
        money,
        giftcert,
        budgetClient: budgetClientOf(ctx, session),
        cancellation: await cancellation,
      });
      const { booking, attempt } = withPayment(ctx, record);
      const newCustomer =
        existingCustomer === undefined
          ? { id: newCustomerId as number, ...(email ? { email } : {}) }
          : undefined;
      const write = planBooking(ctx, {
        session,
        booking,
        caughtUp,
        newCustomer,
        giftcert,
        refusalAt,
        attempt,
      });
      booked = session;
      return { write, result: { booking, existing: false, ...(attempt ? { attempt } : {}) } };
    },
    // The code collided: draw another. A counter or a budget refused: say which. Otherwise the session, the
    // customer's email or the gift certificate changed meanwhile: read them again.
    onFailed: (failed) => {
      if (failed.some((role) => role.kind === 'code'))
        code = newBookingCode(ctx.config.settings.booking_code_prefix);
      const refusal = refusalOf(ctx, failed, refusalAt);
      if (refusal) throw refusal;
    },
  });
  if (!result.existing && booked?.client && booked.zones) {
    await leaveZonesAfterBooking(ctx.db, {
      client: booked.client,
      cart: booked.id,
      zoneIds: Object.keys(booked.zones),
    });
  }
  return result;
}
