import { z } from 'zod';
import { DEFAULT_PAYMENT } from './limits.ts';

// `settings.payment` of the tenant file (issue 43): whether a guest pays at booking, how much, by when, and
// whether the money is taken at once or only authorised. docs/payments.md describes each field.

const days = z.number().int().nonnegative().max(365);

/** A deposit: a percent of the total, or a fixed amount in minor units; never more than the total. */
const depositSchema = z.union([
  z.strictObject({ percent: z.number().positive().max(100) }),
  z.strictObject({ amount: z.number().int().positive().max(100_000_000) }),
]);

/** `settings.payment`: `take` none (default), full or deposit, the deadline, capture and the lapse. */
export const paymentSettingsSchema = z
  .strictObject({
    take: z.enum(['none', 'full', 'deposit']).default(DEFAULT_PAYMENT.take),
    deposit: depositSchema.optional(),
    pay_within_minutes: z.number().int().min(5).max(1440).default(DEFAULT_PAYMENT.pay_within_minutes),
    capture: z.enum(['automatic', 'manual']).default(DEFAULT_PAYMENT.capture),
    capture_days_before_start: days.optional(),
    balance_due_days_before_start: days.optional(),
    lapse_status: z.enum(['VOID', 'CANCELLED']).default(DEFAULT_PAYMENT.lapse_status),
  })
  .superRefine((payment, context) => {
    const problem = (path: string, message: string) =>
      context.addIssue({ code: 'custom', path: [path], message });
    if (payment.take === 'deposit' && !payment.deposit) problem('deposit', 'required when take is "deposit"');
    if (payment.take !== 'deposit' && payment.deposit) problem('deposit', 'only when take is "deposit"');
    if (payment.capture_days_before_start !== undefined && payment.capture !== 'manual')
      problem('capture_days_before_start', 'only with capture "manual"');
    if (payment.balance_due_days_before_start !== undefined && payment.take !== 'deposit')
      problem('balance_due_days_before_start', 'only when take is "deposit"');
  });

/** `settings.payment` as the service keeps it, defaults filled in. */
export type PaymentSettings = z.infer<typeof paymentSettingsSchema>;
