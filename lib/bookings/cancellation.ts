import {
  type CancellationPolicy,
  nominalHours,
  type PolicyLength,
  type StoredConfig,
} from '../config/index.ts';
import { addDays, localInstant, localParts } from '../kernel/dates.ts';
import type { SessionLine } from '../sessions/index.ts';
import { bookedAmounts, spreadAmount } from './totals.ts';

// The one place a cancellation's refund and cutoff are worked out (issue 44). Pure: the caller gives the
// policies stored with the booking, its lines, what was paid and `now`. docs/bookings.md, "Cancellation
// policy", says how; docs/decisions.md, "Issue 44: the guest's own booking", why.

/**
 * The policies a booking was sold under, stored with it at create: each distinct policy with the lines it
 * covers (an item's own, or the tenant's), and the lines no policy covered (nothing comes back for those).
 */
export interface CancellationSnapshot {
  policies: { policy: CancellationPolicy; lines: string[] }[];
  uncovered?: string[];
}

/** A line as the policy reads it: which item, and when it starts. */
type PolicyLine = Pick<SessionLine, 'line_id' | 'item_id' | 'unit' | 'start_date' | 'payload'>;

// Policies read back from the table may list their keys in another order: compared by content.
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, field: unknown) =>
    field && typeof field === 'object' && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : 1)))
      : field,
  );

/**
 * The policy of each line (its item's own, else the tenant's) gathered into distinct policies; undefined
 * when no line has one, as with no policy configured anywhere.
 */
export function resolveCancellation(
  lines: PolicyLine[],
  options: { tenant: CancellationPolicy | undefined; items: ReadonlyMap<number, CancellationPolicy> },
): CancellationSnapshot | undefined {
  const policies: CancellationSnapshot['policies'] = [];
  const uncovered: string[] = [];
  for (const line of [...lines].sort((a, b) => Number(a.line_id) - Number(b.line_id))) {
    const policy = options.items.get(line.item_id) ?? options.tenant;
    if (!policy) {
      uncovered.push(line.line_id);
      continue;
    }
    const sorted = { ...policy, refunds: tiersOf(policy) };
    const text = canonical(sorted);
    const same = policies.find((entry) => canonical(entry.policy) === text);
    if (same) same.lines.push(line.line_id);
    else policies.push({ policy: sorted, lines: [line.line_id] });
  }
  if (!policies.length) return undefined;
  return uncovered.length ? { policies, uncovered } : { policies };
}

/**
 * When a booking starts (ms): its earliest line's start, the local midnight of its first date, or for an
 * hourly line its first hour. Undefined without lines.
 */
export function startOfLines(lines: PolicyLine[], timeZone: string): number | undefined {
  const starts = lines.map((line) =>
    localInstant(line.start_date, line.unit === 'H' ? (line.payload.startTime ?? 0) : 0, timeZone),
  );
  return starts.length ? Math.min(...starts) : undefined;
}

/**
 * The instant a length before `start` falls on: days are calendar days in the tenant's zone (the same local
 * time so many days earlier, 23 or 25 hours across a change of clocks), hours are elapsed hours.
 */
export function deadlineOf(start: number, length: PolicyLength, timeZone: string): number {
  if (length.days === undefined) return start - (length.hours ?? 0) * 3_600_000;
  const { ymd, minutes } = localParts(start, timeZone);
  return localInstant(addDays(ymd, -length.days), minutes, timeZone);
}

/** A policy's tiers, longest first. */
export const tiersOf = (policy: CancellationPolicy): CancellationPolicy['refunds'] =>
  [...policy.refunds].sort((a, b) => nominalHours(b.before) - nominalHours(a.before));

/**
 * The tier that applies at `now`: the longest one `now` is still at least that long before the start (at
 * its deadline exactly, it still applies); none past the shortest.
 */
export function tierAt(
  policy: CancellationPolicy,
  options: { start: number; now: number; timeZone: string },
): CancellationPolicy['refunds'][number] | undefined {
  return tiersOf(policy).find(
    (tier) => options.now <= deadlineOf(options.start, tier.before, options.timeZone),
  );
}

/** The fee a booking's cancellation keeps, once: the largest of its policies' fees. */
export const feeOf = (snapshot: CancellationSnapshot): number =>
  Math.max(0, ...snapshot.policies.map(({ policy }) => policy.fee));

/** When changes and cancellations close: the earliest cutoff of the policies (ms); none without one. */
export function cutoffOf(
  snapshot: CancellationSnapshot,
  start: number,
  timeZone: string,
): number | undefined {
  const cutoffs = snapshot.policies.flatMap(({ policy }) =>
    policy.cutoff ? [deadlineOf(start, policy.cutoff, timeZone)] : [],
  );
  return cutoffs.length ? Math.min(...cutoffs) : undefined;
}

/** What a cancellation at `now` would give back, and why. */
export interface CancellationQuote {
  /** Minor units given back: never negative, never more than was paid, rounded down to the minor unit. */
  refund: number;
  /** Each policy's (and the uncovered lines') share of what was paid, and the tier applied to it. */
  parts: {
    lines: string[];
    paid: number;
    /** The percent applied: the tier's, 0 past every tier or for uncovered lines. */
    percent: number;
    /** The tier applied; none past the shortest tier, or for uncovered lines. */
    tier?: CancellationPolicy['refunds'][number];
  }[];
  /** The fee kept: the largest of the policies' fees, at most what the tiers gave back. */
  fee: number;
  /** The deposit kept, where a policy says the deposit does not come back. */
  deposit_kept: number;
  /** When changes and cancellations close (Unix ms), the earliest cutoff; none without one. */
  cutoff_at?: number;
  /** Whether `now` is past the cutoff: the guest can no longer change or cancel. */
  cutoff_passed: boolean;
}

/** What `quoteCancellation` needs: the stored policies, the lines' money and start, what was paid. */
export interface QuoteInput {
  snapshot: CancellationSnapshot;
  /** Each line's total (minor units): the share of what was paid that each policy covers follows it. */
  lineTotals: Record<string, number>;
  /** When the booking starts (ms, `startOfLines`). */
  start: number;
  /** What was paid (`paid_total`, minor units). */
  paid: number;
  /** The deposit taken, when the booking was paid by a deposit (`payment.kind` "deposit"); 0 otherwise. */
  deposit: number;
  now: number;
  timeZone: string;
}

/**
 * The refund of a cancellation at `now`. What was paid (and the deposit) is shared among the policies pro
 * rata to their lines' totals; each share less its kept deposit gets its own policy's tier; the sum is
 * rounded down to the minor unit once; the largest fee is kept once; the result is within 0 and what was paid.
 */
export function quoteCancellation(input: QuoteInput): CancellationQuote {
  const groups = [
    ...input.snapshot.policies,
    ...(input.snapshot.uncovered?.length ? [{ policy: undefined, lines: input.snapshot.uncovered }] : []),
  ];
  const weights = groups.map(({ lines }) =>
    lines.reduce((total, line) => total + (input.lineTotals[line] ?? 0), 0),
  );
  // Lines worth nothing (all free) still share what was paid, equally.
  const sizes = weights.some((weight) => weight > 0)
    ? weights.map((weight) => Math.max(0, weight))
    : weights.map(() => 1);
  const paid = Math.max(0, input.paid);
  const paidShares = spreadAmount(paid, sizes);
  const depositShares = spreadAmount(Math.min(Math.max(0, input.deposit), paid), sizes);
  let hundredths = 0;
  let depositKept = 0;
  const parts = groups.map(({ policy, lines }, index) => {
    const share = paidShares[index] ?? 0;
    const tier = policy
      ? tierAt(policy, { start: input.start, now: input.now, timeZone: input.timeZone })
      : undefined;
    const kept = policy && !policy.deposit_refundable ? Math.min(depositShares[index] ?? 0, share) : 0;
    const percent = tier?.percent ?? 0;
    depositKept += kept;
    hundredths += (share - kept) * percent;
    return { lines, paid: share, percent, ...(tier ? { tier } : {}) };
  });
  const beforeFee = Math.floor(hundredths / 100);
  const fee = Math.min(beforeFee, feeOf(input.snapshot));
  const cutoff = cutoffOf(input.snapshot, input.start, input.timeZone);
  return {
    refund: Math.min(paid, Math.max(0, beforeFee - fee)),
    parts,
    fee,
    deposit_kept: depositKept,
    ...(cutoff === undefined ? {} : { cutoff_at: cutoff }),
    cutoff_passed: cutoff !== undefined && input.now > cutoff,
  };
}

/** The quote of a stored booking's cancellation at `now`; undefined when it was sold under no policy. */
export function quoteBookingCancellation(
  booking: {
    lines: Record<string, SessionLine>;
    paid_total: number;
    payment?: { kind: 'deposit' | 'full'; amount: number };
    cancellation_policy?: CancellationSnapshot;
  },
  options: { config: StoredConfig; now: number },
): CancellationQuote | undefined {
  const { config } = options;
  const lines = Object.values(booking.lines);
  const start = startOfLines(lines, config.company.timezone);
  if (!booking.cancellation_policy || start === undefined) return undefined;
  return quoteCancellation({
    snapshot: booking.cancellation_policy,
    lineTotals: Object.fromEntries(
      lines.map((line) => [line.line_id, bookedAmounts(line, config.taxes, config.locale.decimals).total]),
    ),
    start,
    paid: booking.paid_total,
    deposit: booking.payment?.kind === 'deposit' ? booking.payment.amount : 0,
    now: options.now,
    timeZone: config.company.timezone,
  });
}
