import type Stripe from 'stripe';
import { isInactive } from '#lib/bookings/booking.ts';
import type { MoneyRecords } from './audit-money.ts';
import { keptAtProvider, type ProviderMoney } from './provider.ts';

// The money of guests' changes (issue 44, item 4), part of the soak's money audit: from the table's records
// and the provider's own objects. What a change kept is what the booking keeps beyond its total; what it gave
// back went through the provider under the change's own refund ids; a booking a change gave money back to
// holds exactly its total (plus what was kept, and what is owed by hand); a change's payment counts only if
// its change was made, and is given back in full otherwise; no change waits past its deadline.

/** A change as its `booking.changed` event records it (lib/bookings/guest-change-apply.ts), minor units. */
interface GuestChange {
  refund: number;
  kept: number;
  through_provider: number;
  owed: number;
  /** The attempt that paid the difference, on a change that waited for it. */
  payment_id?: string;
}

/** The changes' problems, by name, and what was counted. */
export interface ChangeAudit {
  problems: string[];
  checked: Record<string, number>;
}

const amountOf = (value: unknown) => Number(value ?? 0);

/** The provider's refunds made for changes (`<payment_id>_c<n>`), summed by booking and change. */
function changeRefunds(provider: ProviderMoney, bookingOf: Map<string, number>) {
  const sums = new Map<string, number>();
  let count = 0;
  for (const refund of provider.refunds) {
    const nth = /_c(\d+)$/.exec(refund.metadata?.refund_id ?? '')?.[1];
    if (!nth || refund.status === 'failed' || refund.status === 'canceled') continue;
    const bookingId = bookingOf.get(refund.metadata?.payment_id ?? '') ?? -1;
    const key = `${bookingId}|${nth}`;
    sums.set(key, (sums.get(key) ?? 0) + refund.amount);
    count += 1;
  }
  return { sums, count };
}

/** Audits the guests' changes; `now` in milliseconds, `slackSeconds` past a deadline for the sweeper. */
export function auditChanges(
  records: MoneyRecords,
  provider: ProviderMoney,
  options: { now: number; slackSeconds: number },
): ChangeAudit {
  const problems: string[] = [];
  const nowSeconds = Math.floor(options.now / 1000);
  const bookings = new Map(records.bookings.map((booking) => [Number(booking.booking_id), booking]));
  const codeOf = (bookingId: number) => String(bookings.get(bookingId)?.code ?? `#${bookingId}`);
  // Each booking's changes in the order they were made: the nth names its refunds `_c<n>`.
  const changes = new Map<number, GuestChange[]>();
  const paidFor = new Set<string>();
  const lapsed = new Set<string>();
  // Bookings whose money moved after their last change otherwise than by its refunds: a cancel (and a revival
  // since), a payment or a refund of another kind.
  const movedSince = new Set<number>();
  for (const event of [...records.trail].sort((a, b) => String(a.sk).localeCompare(String(b.sk)))) {
    const bookingId = Number(event.booking_id);
    if (event.type === 'booking.changed') {
      const change = (event.data?.guest_change ?? {}) as GuestChange;
      changes.set(bookingId, [...(changes.get(bookingId) ?? []), change]);
      if (change.payment_id) paidFor.add(change.payment_id);
      movedSince.delete(bookingId);
    } else if (
      changes.has(bookingId) &&
      ((String(event.type).startsWith('payment.') && !/_c\d+$/.test(String(event.data?.refund_id ?? ''))) ||
        (event.type === 'booking.status_changed' && isInactive(String(event.data?.to))))
    )
      movedSince.add(bookingId);
    if (event.type === 'booking.change_lapsed') lapsed.add(String(event.data?.payment_id));
  }

  for (const booking of records.bookings) {
    const bookingId = Number(booking.booking_id);
    const made = changes.get(bookingId) ?? [];
    const code = String(booking.code);
    // What the booking keeps beyond its total is what its changes kept, to the minor unit.
    const kept = made.reduce((sum, change) => sum + amountOf(change.kept), 0);
    if (amountOf(booking.change_kept) !== kept)
      problems.push(
        `booking ${code}: change_kept ${amountOf(booking.change_kept)}, its changes kept ${kept}`,
      );
    const status = String(booking.status_id);
    const last = made.at(-1);
    if (last && !isInactive(status)) {
      // Paid beyond the total and beyond what the policy kept: after a change that gave money back, exactly
      // what is owed by hand (the rest went back), unless money moved since; after any other, nothing.
      const beyond =
        amountOf(booking.paid_total) - amountOf(booking.change_kept) - amountOf(booking.totals?.total);
      const gaveBack = amountOf(last.refund) + amountOf(last.kept) > 0;
      const exact = gaveBack && !movedSince.has(bookingId);
      if (exact ? beyond !== amountOf(last.owed) : beyond > amountOf(last.owed))
        problems.push(
          `booking ${code}: paid_total ${booking.paid_total} less change_kept ${amountOf(booking.change_kept)} is ${beyond} beyond its total ${booking.totals?.total}, after a change that ${gaveBack ? `gave back ${last.refund}, kept ${last.kept} and owes ${last.owed}` : 'gave nothing back'}`,
        );
    }
    if (
      booking.change &&
      !isInactive(status) &&
      Number(booking.change.deadline) <= nowSeconds - options.slackSeconds
    )
      problems.push(
        `booking ${code}: its change waits ${nowSeconds - Number(booking.change.deadline)} s past its deadline`,
      );
  }

  // What each change gave back through the provider is what the provider refunded under its id.
  const bookingOf = new Map(
    records.attempts.map((attempt) => [String(attempt.payment_id), Number(attempt.booking_id)]),
  );
  const refunds = changeRefunds(provider, bookingOf);
  for (const [bookingId, made] of changes)
    made.forEach((change, index) => {
      const key = `${bookingId}|${index + 1}`;
      const refunded = refunds.sums.get(key) ?? 0;
      refunds.sums.delete(key);
      if (refunded !== amountOf(change.through_provider))
        problems.push(
          `booking ${codeOf(bookingId)}: its change ${index + 1} sent ${amountOf(change.through_provider)} back through the provider, which refunded ${refunded} under _c${index + 1}`,
        );
    });
  for (const [key, refunded] of refunds.sums) {
    const [bookingId = '', nth = ''] = key.split('|');
    problems.push(
      `booking ${codeOf(Number(bookingId))}: ${refunded} refunded under _c${nth}, for no change of it`,
    );
  }

  // A change's payment counts only if its change was made; otherwise the provider keeps none of it.
  const intents = new Map<string, Stripe.PaymentIntent>(
    provider.intents.map((intent) => [intent.metadata?.payment_id ?? '', intent]),
  );
  for (const attempt of records.attempts) {
    if (attempt.kind !== 'change') continue;
    const paymentId = String(attempt.payment_id);
    const intent = intents.get(paymentId);
    const held = intent ? keptAtProvider(intent) : 0;
    const name = `booking ${codeOf(Number(attempt.booking_id))}: change attempt ${paymentId}`;
    // Made: what the provider keeps of it is applied, all of it (a later refund, a cancel's, takes from
    // both).
    if (paidFor.has(paymentId)) {
      if (intent?.status !== 'succeeded' || amountOf(attempt.applied) !== held)
        problems.push(
          `${name} made its change, its money ${intent?.status ?? 'unknown'} at the provider, which keeps ${held}, applied ${attempt.applied} (booking ${bookings.get(Number(attempt.booking_id))?.status_id})`,
        );
      continue;
    }
    const booking = bookings.get(Number(attempt.booking_id));
    const why = lapsed.has(paymentId)
      ? 'its change lapsed'
      : booking?.change?.payment_id === paymentId
        ? 'its change still waits'
        : 'its change was never made';
    if (held !== 0 || amountOf(attempt.applied) !== 0)
      problems.push(
        `${name}: ${why}, yet the provider keeps ${held} of it and ${attempt.applied} was applied`,
      );
  }
  return {
    problems,
    checked: {
      changesMade: [...changes.values()].reduce((sum, made) => sum + made.length, 0),
      changesPaidFor: paidFor.size,
      changesWaiting: records.bookings.filter((b) => b.change && !isInactive(String(b.status_id))).length,
      changesLapsed: lapsed.size,
      changeRefunds: refunds.count,
      changeKept: records.bookings.filter((booking) => amountOf(booking.change_kept) > 0).length,
    },
  };
}
