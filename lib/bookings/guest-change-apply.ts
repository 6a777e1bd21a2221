import { randomUUID } from 'node:crypto';
import type { Caller } from '../access/index.ts';
import { createItemLoader, type StoredItem } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import { unixSeconds } from '../kernel/time.ts';
import { checkoutExpiresAt, type PaymentProvider } from '../payments/index.ts';
import { capacityOf, parseCounterId, queryStockRanges } from '../stock/index.ts';
import { findBooking } from './booking.ts';
import { changeBooking, plainWrites } from './change.ts';
import { guestRefundsDue } from './change-settle.ts';
import { holdsDelta, moveBudget, releaseActions, soldOut, takeActions } from './change-stock.ts';
import type { GuestContext } from './guest.ts';
import { type CancelActor, finishGuestRefunds, guestRefusal, moneyPaid, refundable } from './guest-cancel.ts';
import {
  type ChangeRequest,
  checkChangeable,
  type GuestChangeQuote,
  planChange,
  quoteChange,
} from './guest-change.ts';
import { openAttemptCheckout, paymentSettingsOf } from './payment-open.ts';
import { putAttemptAction, putPaymentDueAction, type StoredPaymentAttempt } from './payment-records.ts';
import type { BookingRecord, PendingChange, StoredBooking } from './repository.ts';

// The writes of a guest's change (issue 44, item 4). A change that costs the same or less, or more where the
// booking is not paid online, takes effect in one transaction: the new stock taken (each counter on its
// capacity), the stock no longer needed released, the lines, money and dates replaced, the event recorded;
// the refund the policy gives then goes back through the provider. One that costs more on a booking paid
// online holds the new stock in the same way but waits: the booking keeps both until the difference is paid
// (payment-apply.ts then makes the change) or its deadline passes (the sweeper lets the new stock go).

/** What the guest's change did, on its event (`guest_change`) and in the answer. */
export interface GuestChangeRecord {
  quote: string;
  from: { start_date: string; end_date: string; total: number };
  to: { start_date: string; end_date: string; total: number };
  difference: number;
  refund: number;
  kept: number;
  charge: number;
  /** What of the refund goes back through the provider, and what the business owes back by hand. */
  through_provider: number;
  owed: number;
  /** 0 the guest, else the staff account. */
  by: number;
  override?: true;
  payment_id?: string;
}

/** What a change needs beyond the guest's context: who calls, and the provider (none when not configured). */
export type ChangeContext = GuestContext & {
  provider: PaymentProvider | undefined;
  caller: Caller;
  /** Where the checkout of a change's difference sends the guest back to, paid or not (their page). */
  returnUrl?: string;
};

/** Everything a quote is worked out from: the items of the booking's lines (with their parts) read once. */
async function quoteOf(
  ctx: ChangeContext,
  record: BookingRecord,
  request: ChangeRequest,
  options: { all: StoredItem[]; actor: CancelActor },
) {
  const planned = planChange(ctx, record.booking, request, options);
  const paysOnline = Boolean(ctx.provider && record.booking.payment);
  const minimumCharge = ctx.provider?.minimumCharge(ctx.config.locale.currency) ?? 0;
  const made = record.events.filter((event) => event.type === 'booking.changed').length;
  const paid = moneyPaid(record);
  return quoteChange({ ...ctx, paysOnline, minimumCharge }, record.booking, planned, { request, made, paid });
}

const itemsOf = (ctx: ChangeContext, booking: StoredBooking) =>
  createItemLoader(ctx.db)(Object.values(booking.lines).map((line) => line.item_id));

/**
 * What the guest would get with a change now (GET): the checks, the quote, and whether the new stock is there
 * as the counters read now (the change itself takes it on each counter's condition).
 */
export async function quoteGuestChange(
  ctx: ChangeContext,
  record: BookingRecord,
  request: ChangeRequest,
  actor: CancelActor,
): Promise<GuestChangeQuote> {
  checkChangeable(ctx, record, actor);
  const all = await itemsOf(ctx, record.booking);
  const quote = await quoteOf(ctx, record, request, { all, actor });
  const { take } = holdsDelta(record.booking.holds, quote.planned.holds);
  // The change's own limits (a waiting change's share, the capacity, an unpaid booking's client's share) as
  // its write applies them.
  takeActions(ctx, all, take, quote.mode === 'pay');
  await moveBudget(ctx, all, record.booking, quote.planned.holds);
  const counters = Object.keys(take).map(parseCounterId);
  const ranges = [...new Set(counters.map((one) => one.itemId))].map((itemId) => {
    const slots = counters
      .filter((one) => one.itemId === itemId)
      .map((one) => one.slot)
      .sort();
    return { itemId, first: slots[0] as string, last: slots.at(-1) as string };
  });
  const used = await queryStockRanges(ctx.db, ranges);
  for (const [id, units] of Object.entries(take)) {
    const { itemId, slot } = parseCounterId(id);
    const item = all.find((one) => one.item_id === itemId);
    if (item?.unlimited) continue;
    const capacity = item ? capacityOf(item, slot, ctx.config.company.timezone) : 0;
    if (used(itemId, slot) + units > capacity) throw soldOut(all, itemId, slot);
  }
  return quote;
}

/** The event's record of a change, from the booking before it and the quote. */
const recordOf = (booking: StoredBooking, quote: GuestChangeQuote, by: number): GuestChangeRecord => ({
  quote: quote.quote,
  from: { start_date: booking.start_date, end_date: booking.end_date, total: booking.totals.total },
  to: {
    start_date: quote.planned.start_date,
    end_date: quote.planned.end_date,
    total: quote.planned.totals.total,
  },
  difference: quote.difference,
  refund: quote.refund,
  kept: quote.kept,
  charge: quote.charge,
  through_provider: 0,
  owed: 0,
  by,
});

/** The change a quote made already (its `booking.changed` event), for a confirm sent again. */
export const guestChangeOf = (record: BookingRecord, quote: string): GuestChangeRecord | undefined =>
  record.events
    .map((event) =>
      event.type === 'booking.changed' ? (event.data.guest_change as GuestChangeRecord) : undefined,
    )
    .findLast((made) => made?.quote === quote);

/** The change a confirm was to make, found made by another confirm of the same quote meanwhile. */
class MadeMeanwhileError extends Error {
  constructor(readonly record: BookingRecord) {
    super('The change was made meanwhile');
    this.name = 'MadeMeanwhileError';
  }
}

/** The result of a confirmed change: what it did, and where to pay when it waits for the difference. */
export interface ChangeOutcome {
  change: GuestChangeRecord;
  pending?: { payment_id: string; deadline: number; checkout_url?: string | undefined };
}

/**
 * Changes a booking for its guest (or staff), holding to `quoteId`: 409 `quote_changed` with the new quote
 * when the change would now cost or give back something else, the refusals of `checkChangeable` otherwise,
 * and 409 `unavailable` in the guest's words when another guest took the stock meanwhile (nothing changed).
 * Sent again, it answers as it did (a refund the provider failed is made then).
 */
export async function changeForGuest(
  ctx: ChangeContext,
  record: BookingRecord,
  request: ChangeRequest,
  quoteId: string,
  actor: CancelActor,
): Promise<ChangeOutcome> {
  const by = actor.kind === 'staff' ? actor.accountId : 0;
  const done = guestChangeOf(record, quoteId);
  if (done) {
    await finishGuestRefunds(ctx, record);
    return { change: done };
  }
  const waiting = record.booking.change;
  if (waiting?.quote === quoteId) return answerPending(ctx, record, waiting);
  if (waiting)
    throw guestRefusal(
      'change_pending',
      'Another change of this booking waits for its payment: pay for it, or change again once it has lapsed',
      { deadline: waiting.deadline },
    );
  const all = await itemsOf(ctx, record.booking);
  let made: GuestChangeRecord | undefined;
  let meanwhile: BookingRecord | undefined;
  const after = await changeBooking({ ...ctx, keys: [] }, String(record.booking.booking_id), async (read) => {
    // The same confirm sent at once with this one made it first: this one answers as that one did.
    if (guestChangeOf(read, quoteId) || read.booking.change?.quote === quoteId)
      throw new MadeMeanwhileError(read);
    if (read.booking.change)
      throw guestRefusal('change_pending', 'Another change of this booking was made meanwhile');
    checkChangeable(ctx, read, actor);
    const quote = await quoteOf(ctx, read, request, { all, actor });
    if (quote.quote !== quoteId)
      throw guestRefusal('quote_changed', 'What this change costs has changed: please look again', {
        change: quote.quote,
      });
    const { booking } = read;
    const { take, release } = holdsDelta(booking.holds, quote.planned.holds);
    made = {
      ...recordOf(booking, quote, by),
      ...(actor.kind === 'staff' && actor.override ? { override: true as const } : {}),
    };
    if (quote.mode === 'pay') return pendingChange(ctx, read, quote, { all, take, record: made });
    // What the provider holds for an earlier change's refund still to be made is that change's.
    const reachable =
      refundable(read).reduce((sum, one) => sum + one.captured - one.refunded, 0) - guestRefundsDue(read);
    made.through_provider = Math.max(0, Math.min(quote.refund, reachable));
    made.owed = quote.refund - made.through_provider;
    const { planned } = quote;
    const budget = await moveBudget(ctx, all, booking, planned.holds);
    return {
      next: {
        ...booking,
        ...planned,
        ...(quote.kept ? { change_kept: (booking.change_kept ?? 0) + quote.kept } : {}),
        ...(budget ? { budget: budget.budget } : {}),
      },
      writes: [...takeActions(ctx, all, take), ...releaseActions(ctx, release), ...(budget?.writes ?? [])],
      event: { type: 'booking.changed', data: { guest_change: made } },
    };
  }).catch((error: unknown) => {
    if (error instanceof MadeMeanwhileError) {
      meanwhile = error.record;
      return undefined;
    }
    // Another guest took a counter between the read and the write (changeBooking names it as a revive's).
    if (error instanceof DomainError && error.code === 'unavailable' && error.data?.reason === undefined)
      throw soldOut(all, Number(error.data?.item_id), String(error.data?.date));
    throw error;
  });
  if (!after) return changeForGuest(ctx, meanwhile as BookingRecord, request, quoteId, actor);
  const change = made as GuestChangeRecord;
  if (after.change)
    return answerPending(ctx, await findBooking(ctx.db, String(after.booking_id), undefined), after.change);
  // Its refund, and any an earlier change left to make (a provider down then), through the provider now.
  if (change.through_provider > 0 || guestRefundsDue(record) > 0)
    await finishGuestRefunds(ctx, await findBooking(ctx.db, String(after.booking_id), undefined));
  return { change };
}

/**
 * A change that waits for `charge`: the new stock taken (so the booking holds the larger of old and new per
 * counter), a payment attempt for the difference with its deadline on the sweeper's list, and the change
 * kept on the booking until it is paid.
 */
function pendingChange(
  ctx: ChangeContext,
  read: BookingRecord,
  quote: GuestChangeQuote,
  options: { all: StoredItem[]; take: Record<string, number>; record: GuestChangeRecord },
) {
  const { booking } = read;
  const nowSeconds = unixSeconds(ctx.now);
  const settings = paymentSettingsOf(ctx.config);
  const deadline = nowSeconds + settings.pay_within_minutes * 60;
  const current = read.attempts?.find((one) => one.payment_id === booking.payment?.payment_id);
  const attempt: StoredPaymentAttempt = {
    payment_id: `pay_${randomUUID().replaceAll('-', '')}`,
    booking_id: booking.booking_id,
    provider: ctx.provider?.name ?? 'stripe',
    kind: 'change',
    amount: quote.charge,
    currency: ctx.config.locale.currency,
    // Taken at once: the change is made when the money is, not at a capture days later.
    capture: 'automatic',
    status: 'opening',
    version: 1,
    deadline,
    checkout_expires_at: checkoutExpiresAt(nowSeconds, deadline),
    captured: 0,
    refunded: 0,
    applied: 0,
    // Back to the guest's page, which shows the change waiting or made: the booking's own return page is
    // about its first payment.
    return_url: ctx.returnUrl ?? current?.return_url ?? '',
    cancel_url: ctx.returnUrl ?? current?.cancel_url ?? '',
    created: nowSeconds,
    updated: nowSeconds,
  };
  const holds = { ...booking.holds };
  for (const [id, units] of Object.entries(options.take)) holds[id] = (holds[id] ?? 0) + units;
  const { planned } = quote;
  const change: PendingChange = {
    quote: quote.quote,
    payment_id: attempt.payment_id,
    deadline,
    from_holds: booking.holds,
    by: options.record.by,
    to: {
      lines: planned.lines,
      holds: planned.holds,
      totals: planned.totals,
      taxes: planned.taxes,
      start_date: planned.start_date,
      end_date: planned.end_date,
      start_at: planned.start_at,
      end_at: planned.end_at,
      last_at: planned.last_at,
      item_ids: planned.item_ids,
      ...(planned.cancellation_policy ? { cancellation_policy: planned.cancellation_policy } : {}),
    },
  };
  return {
    next: { ...booking, holds, change },
    writes: [
      ...takeActions(ctx, options.all, options.take, true),
      ...plainWrites([
        putAttemptAction(ctx.db, attempt),
        putPaymentDueAction(ctx.db, { bookingId: booking.booking_id, deadline }),
      ]),
    ],
    event: {
      type: 'booking.change_pending',
      data: { guest_change: { ...options.record, payment_id: attempt.payment_id, deadline } },
    },
  };
}

/** A waiting change as answered: its checkout opened if it is not yet (a provider that failed before). */
async function answerPending(
  ctx: ChangeContext,
  record: BookingRecord,
  waiting: PendingChange,
): Promise<ChangeOutcome> {
  const event = record.events.findLast((one) => one.type === 'booking.change_pending');
  const change = event?.data.guest_change as GuestChangeRecord;
  let attempt = record.attempts?.find((one) => one.payment_id === waiting.payment_id);
  if (attempt?.status === 'opening' && ctx.provider)
    attempt = await openAttemptCheckout(
      {
        ...ctx,
        payment: { provider: ctx.provider, returnUrl: attempt.return_url, cancelUrl: attempt.cancel_url },
      },
      record.booking,
      attempt,
      `Change of booking ${record.booking.code}`,
    );
  const open = attempt?.status === 'pending' || attempt?.status === 'failed';
  return {
    change,
    pending: {
      payment_id: waiting.payment_id,
      deadline: waiting.deadline,
      ...(open && attempt?.checkout_url ? { checkout_url: attempt.checkout_url } : {}),
    },
  };
}
