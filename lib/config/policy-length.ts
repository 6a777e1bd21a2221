// A length of a cancellation policy (issue 44), apart from its zod schema: the functions that read a policy
// use it without bundling zod's schema builders.

/** A length of time before the start: calendar days in the tenant's time zone, or elapsed hours (one of them). */
export interface PolicyLength {
  days?: number | undefined;
  hours?: number | undefined;
}

/** A length's nominal hours (a day is 24), to order and compare lengths as a guest reads them. */
export const nominalHours = (length: PolicyLength): number =>
  length.days === undefined ? (length.hours ?? 0) : length.days * 24;
