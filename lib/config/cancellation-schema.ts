import { z } from 'zod';
import { nominalHours, type PolicyLength } from './policy-length.ts';

// A cancellation policy machines can read (issue 44): `policy.cancellation` of the tenant file, or an item's
// own `cancellation`, which replaces the tenant's for that item's lines. docs/configuration.md describes it.

/** At most this many refund tiers in one policy. */
export const MAX_REFUND_TIERS = 10;

/**
 * A length of time before the start: whole calendar days in the tenant's time zone (the same local time so
 * many days earlier), or elapsed hours. Exactly one of the two.
 */
const beforeSchema = z
  .strictObject({
    days: z.number().int('whole days').min(0, 'at least 0 days').max(730, 'at most 730 days').optional(),
    hours: z
      .number()
      .int('whole hours')
      .min(0, 'at least 0 hours')
      .max(17_520, 'at most 17520 hours')
      .optional(),
  })
  .refine(
    (before) => (before.days === undefined) !== (before.hours === undefined),
    'exactly one of days or hours',
  )
  // The refinement's rule in the JSON Schema too, so an editor flags it.
  .meta({ minProperties: 1, maxProperties: 1 });

const describeLength = (length: PolicyLength): string =>
  length.days === undefined ? `${length.hours} hours` : `${length.days} days`;

const tierSchema = z.strictObject({
  before: beforeSchema,
  percent: z
    .number()
    .int('a whole percent')
    .min(0, 'a percent from 0 to 100')
    .max(100, 'a percent from 0 to 100'),
});

/** The cancellation policy: refund tiers, a fee, whether a deposit comes back, the cutoff, staff's latitude. */
export const cancellationSchema = z
  .strictObject({
    refunds: z
      .array(tierSchema)
      .max(MAX_REFUND_TIERS, `at most ${MAX_REFUND_TIERS} tiers`)
      .describe(
        'Cancelled at least `before` the start: `percent` of what was paid comes back. Later than the shortest tier: nothing.',
      ),
    fee: z
      .number()
      .int('minor units, a whole number')
      .min(0, 'minor units, 0 or more')
      .max(100_000_000, 'at most 100000000 minor units')
      .default(0)
      .describe('Kept from any refund, once per booking (minor units).'),
    deposit_refundable: z
      .boolean()
      .default(true)
      .describe('false: a booking paid by a deposit (settings.payment take "deposit") keeps the deposit.'),
    cutoff: beforeSchema
      .optional()
      .describe(
        'After the start less this, the guest can neither change nor cancel (staff can, see staff_override).',
      ),
    staff_override: z.boolean().default(false).describe('Whether staff may break the policy.'),
  })
  .superRefine((policy, ctx) => {
    const problem = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const seen = new Map<number, number>();
    policy.refunds.forEach((tier, index) => {
      const hours = nominalHours(tier.before);
      const first = seen.get(hours);
      if (first === undefined) seen.set(hours, index);
      else
        problem(
          ['refunds', index, 'before'],
          `${describeLength(tier.before)} is the length of tier ${first} already: one tier per length`,
        );
    });
    // A shorter tier refunding more than a longer one would pay a guest to wait before cancelling.
    const byLength = [...policy.refunds].sort((a, b) => nominalHours(b.before) - nominalHours(a.before));
    byLength.forEach((tier, index) => {
      const longer = byLength[index - 1];
      if (longer && tier.percent > longer.percent)
        problem(
          ['refunds', policy.refunds.indexOf(tier), 'percent'],
          `${tier.percent}% ${describeLength(tier.before)} before is more than the ${longer.percent}% of the longer tier (${describeLength(longer.before)})`,
        );
    });
  });

/** A cancellation policy as the service keeps it, defaults filled in. */
export type CancellationPolicy = z.infer<typeof cancellationSchema>;
