import { createHash } from 'node:crypto';
import type { Caller } from '../access/index.ts';
import { DomainError } from '../kernel/errors.ts';
import { formatAmount } from '../kernel/money.ts';
import type { PaymentProvider } from '../payments/index.ts';
import { findBooking, isInactive, statusName } from './booking.ts';
import { type CancellationQuote, quoteBookingCancellation, startOfLines } from './cancellation.ts';
import { plainWrites } from './change.ts';
import { guestRefunds, guestRefundsDue } from './change-settle.ts';
import type { GuestContext } from './guest.ts';
import { replaceAttemptAction, type StoredPaymentAttempt } from './payment-records.ts';
import { refundPayment } from './payment-staff.ts';
import type { BookingRecord } from './repository.ts';
import { changeStatus } from './status.ts';

// The guest cancels their own booking (issue 44, item 3): first what they would get back, worked out by the
// server from the policy stored with the booking and what was paid (the quote), then the cancel itself,
// which holds to that quote. The booking is cancelled (its stock released, booking.status_changed sent) in
// one transaction that records the refund owed; the refund then goes back through the provider under keys
// derived from the payment, so a confirm sent again, or retried after a failure, refunds once.

/** What a guest's cancel would give back now, and the quote's id that the confirm must send back. */
export interface GuestCancelQuote {
  /** Names this quote: the booking, what was paid and what comes back. A confirm of another is refused. */
  quote: string;
  /** Minor units, as `CancellationQuote`: the refund, the fee and the deposit kept. */
  refund: number;
  fee: number;
  deposit_kept: number;
  /** What the policy shared out: paid_total less a gift certificate (which goes back whole, as always). */
  paid: number;
  /** When changes and cancellations close (Unix ms), if the policy has a cutoff. */
  cutoff_at?: number;
}

/** What a guest's cancel recorded with the booking's status change (the event's `guest_cancel`). */
export interface GuestCancelRecord extends GuestCancelQuote {
  /** What goes back through the payment provider, and what the business owes back by hand. */
  through_provider: number;
  owed: number;
  /** Who cancelled: 0 the guest (by the token), else the staff account. */
  by: number;
  /** Staff broke the policy (past its cutoff, or a refund of their own), as the policy allows. */
  override?: true;
}

/**
 * Who cancels under the policy: the guest, by the token; or staff (issue 44, item 5), who may break the
 * policy where every policy of the booking allows it (`staff_override`): past the cutoff, and with a refund
 * of their own choosing (at most what was paid).
 */
export type CancelActor =
  | { kind: 'guest' }
  | { kind: 'staff'; accountId: number; override?: { refund?: number | undefined } | undefined };

/** The reason a guest's cancel is recorded under, on its `booking.status_changed` event. */
export const GUEST_CANCELLED = 'guest_cancelled';

/** A guest's change or cancel refused: a 409 in the guest's words, `reason` saying why for a client. */
export const guestRefusal = (reason: string, message: string, data: Record<string, unknown> = {}) =>
  new DomainError('invalid_status', message, { reason, ...data });

/**
 * The money a booking's payments count towards its total, which a policy shares out: less a gift certificate
 * (it goes back whole on a cancel), what changes of the booking kept already, and what they gave back that
 * the provider has not made yet.
 */
export const moneyPaid = (record: BookingRecord): number =>
  record.booking.paid_total -
  (record.booking.giftcert?.amount ?? 0) -
  (record.booking.change_kept ?? 0) -
  guestRefundsDue(record);

const quoteIdOf = (code: string, paid: number, quote: CancellationQuote): string =>
  createHash('sha256')
    .update(`${code}|${paid}|${quote.refund}|${quote.fee}|${quote.deposit_kept}`)
    .digest('base64url')
    .slice(0, 22);

/** What a guest could do with their booking now, or why not: the same checks for cancel and change. */
export function guestCancelQuote(
  ctx: GuestContext,
  record: BookingRecord,
  actor: CancelActor = { kind: 'guest' },
): GuestCancelQuote {
  const { booking } = record;
  const override = actor.kind === 'staff' ? actor.override : undefined;
  if (booking.partner_id && actor.kind === 'guest')
    throw guestRefusal(
      'partner',
      'This booking was made through one of our partners: please ask them to change or cancel it',
    );
  if (isInactive(booking.status_id))
    throw guestRefusal(
      'inactive',
      `This booking is ${statusName(ctx.config, booking.status_id).toLowerCase()}: there is nothing to cancel`,
    );
  const paid = moneyPaid(record);
  const quote = quoteBookingCancellation({ ...booking, paid_total: paid }, ctx);
  if (!quote)
    throw guestRefusal('no_policy', 'This booking cannot be changed or cancelled online: please contact us');
  if (override) return overridden(booking, paid, quote, override.refund);
  // Begun (its start passed, or checked in): a stay under way is not cancelled online, whatever the tiers
  // say of the time before its start (a policy with no cutoff would otherwise give it all back).
  const start = startOfLines(Object.values(booking.lines), ctx.config.company.timezone) ?? 0;
  if (booking.checked_in || ctx.now >= start)
    throw guestRefusal('started', 'This booking has begun: please contact us to change or cancel it');
  if (quote.cutoff_passed)
    throw guestRefusal(
      'past_cutoff',
      'Changes and cancellations of this booking have closed: please contact us',
      quote.cutoff_at === undefined ? {} : { cutoff_at: Math.floor(quote.cutoff_at / 1000) },
    );
  return {
    quote: quoteIdOf(booking.code, paid, quote),
    refund: quote.refund,
    fee: quote.fee,
    deposit_kept: quote.deposit_kept,
    paid,
    ...(quote.cutoff_at === undefined ? {} : { cutoff_at: quote.cutoff_at }),
  };
}

/** Staff's quote that breaks the policy: refused unless every policy of the booking allows it. */
function overridden(
  booking: BookingRecord['booking'],
  paid: number,
  quote: CancellationQuote,
  refund: number | undefined,
): GuestCancelQuote {
  const policies = booking.cancellation_policy?.policies ?? [];
  if (!policies.length || policies.some(({ policy }) => !policy.staff_override))
    throw guestRefusal(
      'override_not_allowed',
      "This booking's cancellation policy does not let staff override it",
    );
  if (refund !== undefined && refund > paid)
    throw new DomainError('validation_error', 'Invalid parameter: refund', {
      refund: `at most ${paid} in minor units, what was paid`,
    });
  const broken = { ...quote, refund: refund ?? quote.refund };
  return {
    quote: quoteIdOf(booking.code, paid, broken),
    refund: broken.refund,
    fee: refund === undefined ? quote.fee : 0,
    deposit_kept: refund === undefined ? quote.deposit_kept : 0,
    paid,
    ...(quote.cutoff_at === undefined ? {} : { cutoff_at: quote.cutoff_at }),
  };
}

/**
 * The guest's cancel recorded on a booking, if its guest's cancel is what made it inactive: a booking staff
 * revived since is its guest's to cancel again, not answered with the earlier cancel; one staff moved from
 * CANCELLED to VOID since still has the cancel's refund to finish.
 */
export function guestCancelOf(record: BookingRecord): GuestCancelRecord | undefined {
  if (!isInactive(record.booking.status_id)) return undefined;
  const event = record.events.findLast(
    (one) => one.type === 'booking.status_changed' && !isInactive(String(one.data.from)),
  );
  return event?.data.reason === GUEST_CANCELLED
    ? (event.data.guest_cancel as GuestCancelRecord | undefined)
    : undefined;
}

/** A quote as the guest reads it: money as money, the cutoff in Unix seconds (the quote route, a refusal). */
export function shownQuote(ctx: Pick<GuestContext, 'config'>, quote: GuestCancelQuote) {
  const money = (minor: number) => formatAmount(minor, ctx.config.locale.decimals);
  return {
    quote: quote.quote,
    refund: money(quote.refund),
    paid: money(quote.paid),
    fee: money(quote.fee),
    deposit_kept: money(quote.deposit_kept),
    currency: ctx.config.locale.currency,
    ...(quote.cutoff_at === undefined ? {} : { cutoff_at: Math.floor(quote.cutoff_at / 1000) }),
  };
}

/** Money still at the provider that a refund can reach, newest payment first. */
export const refundable = (record: BookingRecord): StoredPaymentAttempt[] =>
  (record.attempts ?? [])
    .filter((attempt) => attempt.provider !== 'pos' && attempt.provider_payment_id && attempt.captured > 0)
    .sort((a, b) => b.created - a.created);

/** Marks each payment that holds money as kept by the business (by its guest's cancel: account 0). */
function keepAll(ctx: GuestContext, record: BookingRecord, accountId: number) {
  const at = Math.floor(ctx.now / 1000);
  return (record.attempts ?? [])
    .filter((attempt) => attempt.captured > attempt.refunded && attempt.flag !== 'stray' && !attempt.kept)
    .map((attempt) =>
      replaceAttemptAction(
        ctx.db,
        { ...attempt, kept: { account_id: accountId, at }, version: attempt.version + 1, updated: at },
        attempt.version,
      ),
    );
}

/**
 * Cancels a booking for its guest, holding to `quoteId`: 409 with the new quote when what comes back has
 * changed since (a payment arrived, a tier passed), the refusals of `guestCancelQuote` otherwise. A booking
 * its guest cancelled already answers as it did: the refunds still owed through the provider are made
 * (a retry after the provider failed), nothing else changes.
 */
export async function cancelForGuest(
  ctx: GuestContext & { provider: PaymentProvider | undefined; caller: Caller },
  record: BookingRecord,
  quoteId: string,
  actor: CancelActor = { kind: 'guest' },
): Promise<GuestCancelRecord> {
  let recorded = guestCancelOf(record);
  if (!recorded) {
    const by = actor.kind === 'staff' ? actor.accountId : 0;
    const bookingCtx = { ...ctx, keys: [] };
    let made: GuestCancelRecord | undefined;
    await changeStatus(bookingCtx, {
      reference: String(record.booking.booking_id),
      statusId: 'CANCELLED',
      reason: GUEST_CANCELLED,
      // Checked on the booking as the transaction reads it, so a payment or another cancel racing this one
      // is seen: a second cancel finds it cancelled (and answers the first's record), a payment a new quote.
      // What the provider still holds is kept, as staff keep what they cancel (the refund follows): otherwise
      // a provider's event arriving for the cancelled booking would give all of it back.
      also: (read) => plainWrites(keepAll(ctx, read, by)),
      details: (read) => {
        const quote = guestCancelQuote(ctx, read, actor);
        if (quote.quote !== quoteId)
          throw guestRefusal('quote_changed', 'What you would get back has changed: please look again', {
            quote: shownQuote(ctx, quote),
          });
        // What the provider holds for a change's refund still to be made is that change's, not this cancel's.
        const reachable =
          refundable(read).reduce((sum, one) => sum + one.captured - one.refunded, 0) - guestRefundsDue(read);
        const through = Math.max(0, Math.min(quote.refund, reachable));
        made = {
          ...quote,
          through_provider: through,
          owed: quote.refund - through,
          by,
          ...(actor.kind === 'staff' && actor.override ? { override: true as const } : {}),
        };
        return { guest_cancel: made };
      },
    }).catch((error: unknown) => {
      if (!(error instanceof DomainError && error.data?.reason === 'inactive')) throw error;
    });
    recorded = made;
  }
  const after = await findBooking(ctx.db, String(record.booking.booking_id), undefined);
  recorded ??= guestCancelOf(after);
  if (!recorded) throw guestRefusal('inactive', 'This booking was cancelled meanwhile');
  // One refund id per payment and cancel (the `nth` of the booking, a revived booking cancelled again making
  // the second), so the provider's key is stable across retries.
  const nth = after.events.filter(
    (one) => one.type === 'booking.status_changed' && one.data.reason === GUEST_CANCELLED,
  ).length;
  await refundThroughProvider(ctx, after, recorded.through_provider, `g${nth > 1 ? nth : ''}`);
  await finishGuestRefunds(ctx, after);
  return recorded;
}

/**
 * Makes what the booking's changes gave back and the provider has not made yet (`guestRefundsDue`), each
 * under its change's refund ids: a confirm of a change or a cancel sent again finishes all of them.
 */
export async function finishGuestRefunds(
  ctx: GuestContext & { provider: PaymentProvider | undefined; caller: Caller },
  record: BookingRecord,
): Promise<void> {
  for (const { suffix, through, due } of guestRefunds(record)) {
    if (due <= 0) continue;
    // Read again: a refund just made (the cancel's, another change's) left less at the provider.
    const current = await findBooking(ctx.db, String(record.booking.booking_id), undefined);
    await refundThroughProvider(ctx, current, through, suffix);
  }
}

/**
 * Gives `amount` back through the provider, newest payment first, each payment's part under its own refund
 * id (`<payment_id>_<suffix>`, one suffix per cancel or change): a part recorded already counts as given, so
 * a retry refunds only what is missing.
 */
export async function refundThroughProvider(
  ctx: GuestContext & { provider: PaymentProvider | undefined; caller: Caller },
  record: BookingRecord,
  amount: number,
  suffix: string,
): Promise<void> {
  let left = amount;
  const staffCtx = { ...ctx, keys: [] };
  for (const attempt of refundable(record)) {
    if (left <= 0) return;
    const refundId = `${attempt.payment_id}_${suffix}`;
    const made = attempt.refunds?.find((one) => one.refund_id === refundId);
    if (made) {
      left -= made.amount;
      continue;
    }
    const part = Math.min(left, attempt.captured - attempt.refunded);
    if (part <= 0) continue;
    const after = await refundPayment(staffCtx, {
      reference: String(record.booking.booking_id),
      paymentId: attempt.payment_id,
      amount: part,
      method: 'provider',
      refundId,
    });
    // What the provider made under the key, which an earlier try may have made larger than this part.
    const given = after.attempts
      ?.find((one) => one.payment_id === attempt.payment_id)
      ?.refunds?.find((one) => one.refund_id === refundId);
    left -= given?.amount ?? part;
  }
}
