import { z } from 'zod';

// Cancellation terms as `booking/form` and `GET booking/{id}` answer them (issue 44), composed into those
// responses by functions/responses.ts and functions/resource-schemas.ts.

// resource-schemas.ts's `int` and `money`, written again: that file imports this one.
const int = z.number().int();
const money = z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal amount such as "130.00"');

/** A length before the start: calendar days in the tenant's time zone, or elapsed hours. */
const policyLengthSchema = z.union([z.strictObject({ days: int }), z.strictObject({ hours: int })]);

/** A cancellation policy's fields as the wire shows them (issue 44). */
const policyTermsShape = {
  refunds: z
    .array(z.strictObject({ before: policyLengthSchema, percent: int }))
    .describe(
      'Longest first: cancelled at least `before` the start (at the deadline itself too), `percent` of what was paid comes back; later than the shortest, nothing.',
    ),
  fee: money.describe('Kept from any refund, once per booking (the largest of its policies).'),
  deposit_refundable: z
    .boolean()
    .describe('false: a deposit the booking was paid by stays with the business.'),
  cutoff: policyLengthSchema
    .optional()
    .describe(
      'After the start less this, the guest can neither change nor cancel (the earliest of its policies).',
    ),
  staff_override: z.boolean().optional().describe('Staff only: whether staff may break the policy.'),
};

/**
 * Cancellation terms: `text` in the words a guest reads; the policy's fields when one policy covers everything;
 * with lines (a cart, a booking), each policy and the line ids it covers, and the lines none covers.
 */
export const cancellationTermsSchema = z.strictObject({
  text: z.string(),
  refunds: policyTermsShape.refunds.optional(),
  fee: policyTermsShape.fee.optional(),
  deposit_refundable: policyTermsShape.deposit_refundable.optional(),
  cutoff: policyTermsShape.cutoff,
  staff_override: policyTermsShape.staff_override,
  policies: z.array(z.strictObject({ lines: z.array(z.string()), ...policyTermsShape })).optional(),
  uncovered: z.array(z.string()).optional().describe('Lines no policy covers: nothing of theirs comes back.'),
});
