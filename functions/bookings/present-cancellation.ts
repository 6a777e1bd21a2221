import type { CancellationSnapshot } from '#lib/bookings/index.ts';
import { cancellationWords, tiersOf } from '#lib/bookings/index.ts';
import type { CancellationPolicy, StoredConfig } from '#lib/config/index.ts';
import { todayIn } from '#lib/kernel/dates.ts';
import { localeTag } from '#lib/kernel/guest-words.ts';
import { formatAmount } from '#lib/kernel/money.ts';

/** A policy as the wire shows it: tiers longest first, the fee as money; staff also see `staff_override`. */
const termsOf = (policy: CancellationPolicy, config: StoredConfig, staff: boolean) => ({
  refunds: tiersOf(policy),
  fee: formatAmount(policy.fee, config.locale.decimals),
  deposit_refundable: policy.deposit_refundable,
  ...(policy.cutoff ? { cutoff: policy.cutoff } : {}),
  ...(staff ? { staff_override: policy.staff_override } : {}),
});

/**
 * Cancellation terms as `booking/form` and `GET booking/{id}` show them (docs/bookings.md): `text` in words,
 * the policy's fields when one policy covers everything, and with lines, each policy and the lines it covers.
 */
export function presentCancellation(
  snapshot: CancellationSnapshot,
  context: {
    config: StoredConfig;
    now: number;
    /** When the booking (or the cart) starts, ms: the words name dates. */
    start?: number | undefined;
    /** Leave out of the words what is past at `now` (a guest about to book). */
    fromNow?: boolean;
    names?: Record<string, string> | undefined;
    /** Whether the booking is (or would be) paid by a deposit. */
    deposit: boolean;
    staff: boolean;
  },
) {
  const { config, now, start, staff } = context;
  const timeZone = config.company.timezone;
  const text = cancellationWords(snapshot, {
    ...(start === undefined ? {} : { start }),
    ...(context.fromNow ? { from: now } : {}),
    timeZone,
    dates: { locale: localeTag(config.locale.id), today: todayIn(timeZone, now) },
    currency: { symbol: config.locale.currency_symbol, decimals: config.locale.decimals },
    deposit: context.deposit,
    ...(context.names ? { names: context.names } : {}),
  });
  const [only] = snapshot.policies;
  const single = only && snapshot.policies.length === 1 && !snapshot.uncovered?.length;
  return {
    text,
    ...(single ? termsOf(only.policy, config, staff) : {}),
    ...(start === undefined
      ? {}
      : {
          policies: snapshot.policies.map(({ policy, lines }) => ({
            lines,
            ...termsOf(policy, config, staff),
          })),
          ...(snapshot.uncovered?.length ? { uncovered: snapshot.uncovered } : {}),
        }),
  };
}
