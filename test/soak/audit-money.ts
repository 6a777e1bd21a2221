import type Stripe from 'stripe';
import { isInactive } from '#lib/bookings/booking.ts';
import { auditChanges } from './audit-changes.ts';
import type { AuditResult } from './audits.ts';
import { keptAtProvider, type ProviderMoney } from './provider.ts';

// The soak's money audit (issue 43, items 8 and 9): from the table's records and the provider's own objects
// (read through Stripe's SDK), never from the service's counts. Every captured payment belongs to a booking
// and to the attempt that asked for it; every attempt is the provider's checkout and payment, with the same
// money; a booking's paid_total is exactly what the provider kept (captured less refunded); a booking that
// holds no stock keeps no money unless staff chose so (the attempt's `kept`, written with their cancel); no
// unpaid booking keeps its stock past its deadline; and the guests' changes add up (audit-changes.ts).

/** Slack past a payment deadline before an unpaid booking must have lapsed: the sweeper runs every 5 s. */
export const LAPSE_SLACK_SECONDS = 60;

const capped = (problems: string[]): string[] =>
  problems.length > 50 ? [...problems.slice(0, 50), `…and ${problems.length - 50} more`] : problems;

/** What a guest's cancel recorded on its event (lib/bookings/guest-cancel.ts), in minor units. */
interface GuestCancel {
  paid: number;
  refund: number;
  through_provider: number;
}

const refundedOf = (intent: Stripe.PaymentIntent): number =>
  (intent.latest_charge as Stripe.Charge | null)?.amount_refunded ?? 0;

/** The table's side: bookings, their payment attempts and rows, and their audit trails. */
export interface MoneyRecords {
  bookings: Record<string, any>[];
  /** `payment_attempt` records; `kept` says staff kept its money when they voided or cancelled the booking. */
  attempts: Record<string, any>[];
  /** `payment` rows (a point-of-sale payment is one; the provider's are counted from the provider). */
  payments: Record<string, any>[];
  /** The bookings' audit trails (`event` records), quoted in a problem so a failure reads on its own. */
  trail: Record<string, any>[];
}

/** The money audit; `now` in milliseconds. */
export function auditMoney(records: MoneyRecords, provider: ProviderMoney, now: number): AuditResult {
  const problems: string[] = [];
  const nowSeconds = Math.floor(now / 1000);
  const bookings = new Map(records.bookings.map((booking) => [Number(booking.booking_id), booking]));
  const attempts = new Map(records.attempts.map((attempt) => [String(attempt.payment_id), attempt]));
  const intentOf = new Map<string, Stripe.PaymentIntent>();
  const codeOf = (bookingId: number) => String(bookings.get(bookingId)?.code ?? `#${bookingId}`);

  // Every payment at the provider belongs to a booking, and to the attempt that asked for it.
  for (const intent of provider.intents) {
    const paymentId = intent.metadata?.payment_id ?? '';
    const bookingId = Number(intent.metadata?.booking_id);
    if (paymentId) intentOf.set(paymentId, intent);
    const money = intent.amount_received;
    if (!bookings.has(bookingId)) {
      if (money > 0)
        problems.push(
          `payment ${intent.id}: ${money} captured for booking ${bookingId}, which does not exist`,
        );
      continue;
    }
    const attempt = attempts.get(paymentId);
    if (!attempt || Number(attempt.booking_id) !== bookingId)
      problems.push(
        `payment ${intent.id} of booking ${codeOf(bookingId)}: no attempt ${paymentId} records it`,
      );
  }
  const checkouts = new Map(provider.checkouts.map((checkout) => [checkout.id, checkout]));

  // Every attempt is the provider's checkout and payment, with the same money.
  const keptBy = new Map<number, number>();
  for (const attempt of records.attempts) {
    const bookingId = Number(attempt.booking_id);
    const name = `attempt ${attempt.payment_id} of booking ${codeOf(bookingId)}`;
    if (attempt.checkout_id) {
      const checkout = checkouts.get(String(attempt.checkout_id));
      if (checkout?.metadata?.payment_id !== attempt.payment_id)
        problems.push(`${name}: checkout ${attempt.checkout_id} is not the provider's for it`);
    }
    const intent = intentOf.get(String(attempt.payment_id));
    if (attempt.provider_payment_id && intent?.id !== attempt.provider_payment_id)
      problems.push(`${name}: payment ${attempt.provider_payment_id} is not the provider's for it`);
    const captured = intent?.status === 'succeeded' ? intent.amount_received : 0;
    const refunded = intent ? refundedOf(intent) : 0;
    if (Number(attempt.captured) !== captured || Number(attempt.refunded) !== refunded)
      problems.push(
        `${name}: recorded captured ${attempt.captured} refunded ${attempt.refunded}, the provider's ${captured} and ${refunded}`,
      );
    if (intent) keptBy.set(bookingId, (keptBy.get(bookingId) ?? 0) + keptAtProvider(intent));
  }

  const pos = new Map<number, number>();
  for (const row of records.payments)
    if (row.method === 'pos')
      pos.set(Number(row.booking_id), (pos.get(Number(row.booking_id)) ?? 0) + Number(row.amount));

  const trails = new Map<number, string[]>();
  const guestCancels = new Map<number, GuestCancel>();
  // The accounts whose status changes took each booking to each status (the service's own are account 0).
  const changedBy = new Map<string, Set<number>>();
  const changersOf = (bookingId: number, to: string) => changedBy.get(`${bookingId}|${to}`) ?? new Set();
  for (const event of [...records.trail].sort((a, b) => String(a.sk).localeCompare(String(b.sk)))) {
    const steps = trails.get(Number(event.booking_id)) ?? [];
    const data = (event.data ?? {}) as { to?: string; reason?: string; amount?: number };
    steps.push(
      `${event.type}${data.to ? ` to ${data.to}` : ''}${data.reason ? ` (${data.reason})` : ''} by ${event.account_id}`,
    );
    trails.set(Number(event.booking_id), steps);
    // A guest's cancel (issue 44): the policy's share of the money is kept by account 0, the rest refunded.
    if (event.type === 'booking.status_changed' && data.reason === 'guest_cancelled')
      guestCancels.set(Number(event.booking_id), (event.data as { guest_cancel: GuestCancel }).guest_cancel);
    if (event.type === 'booking.status_changed' && data.to)
      changedBy.set(
        `${event.booking_id}|${data.to}`,
        changersOf(Number(event.booking_id), data.to).add(Number(event.account_id)),
      );
  }
  let pastDeadline = 0;
  for (const booking of records.bookings) {
    const bookingId = Number(booking.booking_id);
    const code = String(booking.code);
    const held = keptBy.get(bookingId) ?? 0;
    // paid_total is exact: what the provider kept, and what staff recorded at the desk.
    const expected = held + (pos.get(bookingId) ?? 0);
    if (Number(booking.paid_total) !== expected)
      problems.push(`booking ${code}: paid_total ${booking.paid_total}, captured less refunded ${expected}`);
    const status = String(booking.status_id);
    // No unpaid booking keeps its stock past its deadline (a slack for the sweeper). One the business's staff
    // moved to PAID or PART is paid otherwise and keeps it (docs/decisions.md, "A booking paid otherwise does not
    // lapse"): its trail shows a staff account's change to that status.
    const attempt = booking.payment ? attempts.get(String(booking.payment.payment_id)) : undefined;
    const deadline = Number(booking.payment?.deadline ?? Number.POSITIVE_INFINITY);
    const paidOtherwise =
      ['PAID', 'PART'].includes(status) &&
      [...changersOf(bookingId, status)].some((account) => account !== 0);
    if (attempt && deadline <= nowSeconds - LAPSE_SLACK_SECONDS) pastDeadline += 1;
    if (
      attempt &&
      !isInactive(status) &&
      !paidOtherwise &&
      !['captured', 'authorised'].includes(String(attempt.status)) &&
      Number(booking.paid_total) === 0 &&
      deadline <= nowSeconds - LAPSE_SLACK_SECONDS
    )
      problems.push(
        `booking ${code}: unpaid ${nowSeconds - deadline} s past its deadline, still ${status}: ${(trails.get(bookingId) ?? []).join(', ')}`,
      );
  }
  // A booking that holds no stock keeps no captured money, per attempt, unless staff kept it when they voided
  // or cancelled it: the attempt then names who, and the trail shows that account's change to VOID or CANCELLED.
  let keptByStaff = 0;
  let keptByPolicy = 0;
  // What a guest's cancel keeps at the provider is exactly what it did not send back there.
  for (const [bookingId, cancel] of guestCancels) {
    const booking = bookings.get(bookingId);
    if (!booking || String(booking.status_id) !== 'CANCELLED') continue;
    // What the cancel shared out (`paid`) leaves out what earlier changes kept (change_kept): the provider
    // holds that too.
    const expected =
      cancel.paid + Number(booking.change_kept ?? 0) - (pos.get(bookingId) ?? 0) - cancel.through_provider;
    const held = keptBy.get(bookingId) ?? 0;
    if (held !== expected)
      problems.push(
        `booking ${booking.code}: its guest cancelled it, refunding ${cancel.through_provider} of ${cancel.paid} through the provider, which keeps ${held}, not ${expected}: ${(trails.get(bookingId) ?? []).join(', ')}`,
      );
  }
  for (const attempt of records.attempts) {
    const bookingId = Number(attempt.booking_id);
    const booking = bookings.get(bookingId);
    const intent = intentOf.get(String(attempt.payment_id));
    const held = intent ? keptAtProvider(intent) : 0;
    if (!booking || !isInactive(String(booking.status_id)) || held <= 0) continue;
    const trail = (trails.get(bookingId) ?? []).join(', ');
    const name = `booking ${booking.code} (${booking.status_id}) holds no stock and keeps ${held} captured`;
    const keeper = Number(attempt.kept?.account_id ?? 0);
    if (!attempt.kept) problems.push(`${name} on attempt ${attempt.payment_id}, not kept: ${trail}`);
    else if (keeper === 0 && guestCancels.has(bookingId)) keptByPolicy += 1;
    else if (
      keeper === 0 ||
      !(changersOf(bookingId, 'VOID').has(keeper) || changersOf(bookingId, 'CANCELLED').has(keeper))
    )
      problems.push(
        `${name} on attempt ${attempt.payment_id}, kept by account ${keeper}, which never voided or cancelled it: ${trail}`,
      );
    else keptByStaff += 1;
  }
  // The guests' changes (issue 44): what they kept, refunded and charged.
  const changes = auditChanges(records, provider, { now, slackSeconds: LAPSE_SLACK_SECONDS });
  problems.push(...changes.problems);
  return {
    name: 'money: every payment matched, paid_total exact, none kept without stock',
    ok: problems.length === 0,
    checked: {
      providerPayments: provider.intents.length,
      captured: provider.intents.filter((intent) => intent.status === 'succeeded').length,
      attempts: records.attempts.length,
      lapsed: records.attempts.filter((attempt) => attempt.status === 'lapsed').length,
      keptByStaff,
      keptByPolicy,
      guestCancelled: guestCancels.size,
      pastDeadline,
      ...changes.checked,
    },
    problems: capped(problems),
  };
}
