import { z } from 'zod';
import { DEFAULT_WEBHOOK_SETTINGS } from './limits.ts';

/** An event name or pattern: dotted lower-case words, `*` standing for any one word or the rest. */
const eventPattern = z
  .string()
  .max(64)
  .regex(
    /^(\*|[a-z_]+(\.([a-z_]+|\*))*)$/,
    'an event name such as "booking.created", or a pattern such as "booking.*" or "*"',
  );

/** One webhook endpoint of the tenant file. */
export const webhookSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower case letters, digits, - and _'),
  url: z
    .string()
    .max(2000)
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'an http(s) URL'),
  events: z.array(eventPattern).min(1).max(50),
  format: z.enum(['standard', 'checkfront']).default('standard'),
  enabled: z.boolean().default(true),
});

/** How webhooks are delivered: the delays between attempts, and how long deliveries are kept. */
export const webhookSettingsSchema = z
  .strictObject({
    retry_seconds: z
      .array(z.number().positive().max(604_800))
      .min(1)
      .max(50)
      .default(DEFAULT_WEBHOOK_SETTINGS.retry_seconds),
    retention_days: z.number().int().positive().max(400).default(DEFAULT_WEBHOOK_SETTINGS.retention_days),
  })
  // A delivery (and its event) must outlive its last retry, jitter included, with a day to spare.
  .refine(
    (settings) =>
      settings.retention_days * 86_400 >=
      settings.retry_seconds.reduce((sum, delay) => sum + delay, 0) * 1.1 + 86_400,
    { path: ['retention_days'], message: 'must outlast the retry schedule (its sum, plus 10 % and a day)' },
  );
