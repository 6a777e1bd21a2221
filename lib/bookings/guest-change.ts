import { createHash } from 'node:crypto';
import type { StoredConfig, StoredItem } from '../config/index.ts';
import { addDays, daysBetween, localInstant, type Ymd } from '../kernel/dates.ts';
import { DomainError } from '../kernel/errors.ts';
import { unixSeconds } from '../kernel/time.ts';
import { type LineContext, makeLine, type SessionLine, totalHolds } from '../sessions/index.ts';
import { statusName } from './booking.ts';
import {
  type CancellationSnapshot,
  quoteCancellation,
  startOfLines,
  tierAt,
  tiersOf,
} from './cancellation.ts';
import { holdsDelta } from './change-stock.ts';
import type { GuestContext } from './guest.ts';
import { type CancelActor, guestCancelQuote, guestRefusal } from './guest-cancel.ts';
import { covered } from './payment-change.ts';
import { bookingTotalsOf, soldTaxes } from './record.ts';
import type { BookingRecord, BookingTotals, StoredBooking } from './repository.ts';
import { bookedAmounts, cartAmounts, sumAmounts } from './totals.ts';

// The guest changes their own booking (issue 44, item 4): new dates and/or party for the same items, each
// line rated anew at today's prices and rules. This file is the pure side: what the booking would become
// and what the change costs or gives back (the quote); guest-change-apply.ts writes it.

/** What the guest asks for: a new start (every line moves by as many days), a new end, party sizes. */
export interface ChangeRequest {
  start?: Ymd | undefined;
  end?: Ymd | undefined;
  /** Quantities by parameter id, for every line whose item uses the parameter. */
  params: Record<string, number>;
}

/** What the booking becomes: its lines (same ids) rated anew, what they hold, their money and dates. */
export interface PlannedBooking {
  lines: Record<string, SessionLine>;
  holds: Record<string, number>;
  totals: BookingTotals;
  taxes: NonNullable<StoredBooking['taxes']>;
  start_date: string;
  end_date: string;
  start_at: number;
  end_at: number;
  last_at: number;
  item_ids: number[];
  /** The policy stored with the booking, where the change moves it later (`tiersAtMost`). */
  cancellation_policy?: CancellationSnapshot;
}

/**
 * A change quoted: what the booking becomes, and the money. `mode` "change" takes effect at once (a lower
 * price gives back what the policy gives back of the money paid beyond the new total; a higher one adds to
 * what is due); "pay" waits for `charge` through a checkout, the new stock held meanwhile.
 */
export interface GuestChangeQuote {
  quote: string;
  mode: 'change' | 'pay';
  planned: PlannedBooking;
  /** Minor units: the totals before and after, and after less before. */
  from_total: number;
  to_total: number;
  difference: number;
  /** Paid beyond the new total (lower price): what the policy gives back of it, and what it keeps. */
  refund: number;
  kept: number;
  /** Paid before the change takes effect ("pay"). */
  charge: number;
}

/** A line's payload moved to the request's dates and party; the line's own times and options kept. */
function movedPayload(booking: StoredBooking, line: SessionLine, request: ChangeRequest) {
  const { payload } = line;
  const offset = request.start ? daysBetween(booking.start_date, request.start) : 0;
  // A line that spans the whole booking takes the new end; any other keeps its length.
  const whole = payload.start === booking.start_date && payload.end === booking.end_date;
  const start = addDays(payload.start, offset);
  const end = request.end && whole ? request.end : addDays(payload.end, offset);
  const params = { ...payload.params };
  for (const [id, quantity] of Object.entries(request.params)) if (id in params) params[id] = quantity;
  return { ...payload, start, end, params };
}

/**
 * The booking as the request would make it: each line rated anew for its moved dates and party (refused in
 * the rating's words when an item cannot be had then: closed, too short a stay, a party it does not take).
 * A line staff rated outside the rules keeps them off for staff only: its guest moves it under the guest's
 * rules (not into the past, nor onto a closed day), the line still marked as staff rated it.
 */
export function planChange(
  ctx: Pick<GuestContext, 'config' | 'now'>,
  booking: StoredBooking,
  request: ChangeRequest,
  options: { all: StoredItem[]; actor: CancelActor },
): PlannedBooking {
  const { all } = options;
  const lines = Object.values(booking.lines).sort((a, b) => Number(a.line_id) - Number(b.line_id));
  const used = new Set(lines.flatMap((line) => Object.keys(line.payload.params)));
  const unused = Object.keys(request.params).filter((id) => !used.has(id));
  if (unused.length)
    throw new DomainError('validation_error', 'Invalid parameter: param', {
      ...Object.fromEntries(unused.map((id) => [`param[${id}]`, 'none of the booking’s items uses it'])),
    });
  // The booking's lines are its own: an item that became staff-only since is still theirs to move.
  const lineCtx: LineContext = {
    config: ctx.config,
    now: ctx.now,
    actor: { staffItems: true, rulesOverride: false },
  };
  const rated = lines.map((line) => {
    const { rules, ...payload } = movedPayload(booking, line, request);
    const made = makeLine(lineCtx, {
      lineId: line.line_id,
      slip: line.slip,
      payload: options.actor.kind === 'staff' && rules ? { ...payload, rules } : payload,
      all,
      where: { line_id: line.line_id },
      adding: false,
    });
    return {
      ...made,
      payload: rules ? { ...made.payload, rules } : made.payload,
      qty: line.qty,
      added_at: line.added_at,
    };
  });
  return plannedOf(ctx.config, rated);
}

/** The record's fields of a booking made of `lines`: money as sold now, holds, dates, items. */
function plannedOf(config: StoredConfig, lines: SessionLine[]): PlannedBooking {
  const amounts = cartAmounts(lines, config.taxes, config.locale.decimals);
  const totals = sumAmounts(amounts);
  const timezone = config.company.timezone;
  const first = (values: string[]) => values.sort()[0] as string;
  const last = (values: string[]) => values.sort().at(-1) as string;
  const startDate = first(lines.map((line) => line.start_date));
  const endDate = last(lines.map((line) => line.end_date));
  const lastDate = last(lines.map((line) => line.last_date));
  const booked = Object.fromEntries(
    lines.map((line, index) => {
      const money = amounts[index];
      return [
        line.line_id,
        { ...line, discounted: money?.discount ?? 0, ...(money ? { amounts: money } : {}) },
      ];
    }),
  );
  return {
    lines: booked,
    holds: totalHolds(booked),
    totals: bookingTotalsOf(totals),
    taxes: soldTaxes(config),
    start_date: startDate,
    end_date: endDate,
    start_at: unixSeconds(localInstant(startDate, 0, timezone)),
    end_at: unixSeconds(localInstant(endDate, 0, timezone)),
    last_at: unixSeconds(localInstant(lastDate, 0, timezone)),
    item_ids: [...new Set(lines.map((line) => line.item_id))],
  };
}

/**
 * The policy stored with a booking moved later: no tier gives back more than the tier it is at now, so moving
 * a stay out of a tier that gives back less, then cancelling it, does not give back more (issue 44's
 * adversarial pass). Undefined when the start does not move later: the policy stays as it is.
 */
function tiersAtMost(
  ctx: Pick<GuestContext, 'config' | 'now'>,
  booking: StoredBooking,
  planned: PlannedBooking,
): CancellationSnapshot | undefined {
  const timeZone = ctx.config.company.timezone;
  const snapshot = booking.cancellation_policy;
  const start = startOfLines(Object.values(booking.lines), timeZone);
  const next = startOfLines(Object.values(planned.lines), timeZone);
  if (!snapshot || start === undefined || next === undefined || next <= start) return undefined;
  return {
    ...snapshot,
    policies: snapshot.policies.map(({ policy, lines }) => {
      const percent = tierAt(policy, { start, now: ctx.now, timeZone })?.percent ?? 0;
      const capped = tiersOf(policy).map((tier) => ({ ...tier, percent: Math.min(tier.percent, percent) }));
      // A tier that gives back what the next, shorter one does says nothing of its own (nor in words).
      const refunds = capped.filter((tier, index) => tier.percent !== capped[index + 1]?.percent);
      return { policy: { ...policy, refunds }, lines };
    }),
  };
}

const sumOf = (holds: Record<string, number>) => Object.values(holds).reduce((sum, units) => sum + units, 0);

/**
 * What the policy gives back of `excess` (money paid beyond the new total) now: the tier each policy is at
 * for the booking as it was, on the share of its lines, rounded down once; no fee (a cancellation's), and of
 * a deposit a policy does not give back, only what the new total no longer holds (`deposit`) is kept.
 */
function refundOfExcess(
  ctx: Pick<GuestContext, 'config' | 'now'>,
  booking: StoredBooking,
  money: { excess: number; deposit: number },
) {
  const { excess } = money;
  const snapshot = booking.cancellation_policy;
  const lines = Object.values(booking.lines);
  const start = startOfLines(lines, ctx.config.company.timezone);
  if (!snapshot || start === undefined || excess <= 0) return 0;
  const { decimals } = ctx.config.locale;
  return quoteCancellation({
    snapshot: {
      ...snapshot,
      policies: snapshot.policies.map(({ policy, lines: ids }) => ({
        policy: { ...policy, fee: 0 },
        lines: ids,
      })),
    },
    lineTotals: Object.fromEntries(
      lines.map((line) => [line.line_id, bookedAmounts(line, ctx.config.taxes, decimals).total]),
    ),
    start,
    paid: excess,
    deposit: money.deposit,
    now: ctx.now,
    timeZone: ctx.config.company.timezone,
  }).refund;
}

/**
 * Whether a booking may be changed now, by whom: the cancel's checks (a partner's, inactive, no policy,
 * begun, past the cutoff; staff's override past the last two) and the change's own: not while the booking
 * still awaits its first payment, nor while another change waits for its payment.
 */
export function checkChangeable(ctx: GuestContext, record: BookingRecord, actor: CancelActor): void {
  if (actor.kind === 'staff' && actor.override?.refund !== undefined)
    throw new DomainError('validation_error', 'Invalid parameter: refund', { refund: 'for a cancel only' });
  const { booking } = record;
  try {
    guestCancelQuote(ctx, record, actor);
  } catch (error) {
    // The cancel's refusals are worded for both but this one, which speaks of cancelling.
    if (!(error instanceof DomainError && error.data.reason === 'inactive')) throw error;
    const status = statusName(ctx.config, booking.status_id).toLowerCase();
    throw guestRefusal('inactive', `This booking is ${status}: there is nothing to change`);
  }
  const current = record.attempts?.find((one) => one.payment_id === booking.payment?.payment_id);
  if (current && !covered(booking) && ['opening', 'pending', 'failed'].includes(current.status))
    throw guestRefusal('awaiting_payment', 'Please pay for this booking first, then change it');
}

/**
 * The most item-dates one change touches: those it takes or lets go of, or while it waits for its payment,
 * all the booking holds. Each is a write of the change's transaction (two for a booking still counted against
 * its client's budget), and a waiting change's are all released at once by a cancel, beside its event's.
 */
export const CHANGE_COUNTERS_AT_MOST = 70;

/** Refuses a change too large for one transaction (400 naming the dates), before any write is tried. */
function checkSize(booking: StoredBooking, planned: PlannedBooking, pays: boolean, request: ChangeRequest) {
  const { take, release } = holdsDelta(booking.holds, planned.holds);
  const touched = pays
    ? new Set([...Object.keys(booking.holds), ...Object.keys(planned.holds)]).size
    : Object.keys(take).length + Object.keys(release).length;
  const most = booking.budget ? CHANGE_COUNTERS_AT_MOST / 2 : CHANGE_COUNTERS_AT_MOST;
  const field = request.end ? 'end_date' : 'start_date';
  if (touched > most)
    throw new DomainError('validation_error', `Invalid parameter: ${field}`, {
      [field]: `a change online moves at most ${most} days, nights or hours at once (this one ${touched}): please ask us`,
    });
}

/**
 * The quote of a change: `planned` against the booking as it is, after `made` changes of it (so a quote names
 * one change from one state, and a confirm sent again finds the change it made). A booking nobody has paid
 * for yet (still counted against its client's hold budget) may move, not grow: a change that holds more units
 * in all is refused, so a hold cannot be stretched past the budget it was counted under.
 */
export function quoteChange(
  ctx: Pick<GuestContext, 'config' | 'now'> & { paysOnline: boolean; minimumCharge: number },
  booking: StoredBooking,
  planned: PlannedBooking,
  options: {
    request: ChangeRequest;
    /** How many changes the booking had; what its payments count for it (`moneyPaid`). */
    made: number;
    paid: number;
  },
): GuestChangeQuote {
  if (booking.budget && sumOf(planned.holds) > sumOf(booking.holds))
    throw guestRefusal(
      'grows_unpaid',
      'A booking not yet paid for can move to other dates, not grow: please pay for it first',
    );
  const from = booking.totals.total;
  const to = planned.totals.total;
  const giftcert = booking.giftcert?.amount ?? 0;
  const { paid } = options;
  const held = Math.max(0, to - giftcert);
  const excess = Math.max(0, paid - held);
  // A deposit a cancel would keep stays kept: what of it the new total no longer holds is not given back by
  // a change (a cancel after keeps the rest), or lowering the total first would win it back.
  const taken = booking.payment?.kind === 'deposit' ? booking.payment.amount : 0;
  const deposit = Math.max(0, Math.min(taken, paid) - held);
  const refund = Math.min(excess, refundOfExcess(ctx, booking, { excess, deposit }));
  // A higher price is paid through the provider before the change takes effect when the booking was paid
  // online; a booking paid at the desk (or a difference under the provider's minimum) just owes more.
  const charge = to > from && ctx.paysOnline && to - from >= ctx.minimumCharge ? to - from : 0;
  checkSize(booking, planned, charge > 0, options.request);
  const quote = createHash('sha256')
    .update(
      JSON.stringify([
        booking.code,
        options.made,
        booking.paid_total,
        Object.values(planned.lines).map((line) => [line.line_id, line.payload, line.sub_total]),
        to,
        refund,
        charge,
      ]),
    )
    .digest('base64url')
    .slice(0, 22);
  const policy = tiersAtMost(ctx, booking, planned);
  return {
    quote,
    mode: charge > 0 ? 'pay' : 'change',
    planned: policy ? { ...planned, cancellation_policy: policy } : planned,
    from_total: from,
    to_total: to,
    difference: to - from,
    refund,
    kept: excess - refund,
    charge,
  };
}
