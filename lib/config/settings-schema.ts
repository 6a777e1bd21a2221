import { isIP } from 'node:net';
import { z } from 'zod';
import { alertsSchema } from './alerts-schema.ts';
import {
  DEFAULT_ALERTS,
  DEFAULT_LIMITS,
  DEFAULT_PAYMENT,
  DEFAULT_POW,
  DEFAULT_SETTINGS,
  DEFAULT_THROTTLE,
  DEFAULT_WEBHOOK_SETTINGS,
} from './limits.ts';
import { paymentSettingsSchema } from './payment-schema.ts';
import { webhookSettingsSchema } from './webhook-schema.ts';

const isAddressOrCidr = (value: string): boolean => {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
};
const proxySchema = z
  .string()
  .max(64)
  .refine(isAddressOrCidr, 'an IP address or CIDR such as "10.0.0.0/8" or "2001:db8::/32"');
const perMinute = (fallback: number) => z.number().int().positive().max(100_000).default(fallback);

const limitsSchema = z.strictObject({
  requests_per_minute: perMinute(DEFAULT_LIMITS.requests_per_minute),
  writes_per_minute: perMinute(DEFAULT_LIMITS.writes_per_minute),
  staff_requests_per_minute: perMinute(DEFAULT_LIMITS.staff_requests_per_minute),
  client_hold_share: z.number().positive().max(1).default(DEFAULT_LIMITS.client_hold_share),
  open_sessions_per_client: z
    .number()
    .int()
    .positive()
    .max(100)
    .default(DEFAULT_LIMITS.open_sessions_per_client),
  /** Unpaid bookings a customer client may have at once: until paid or confirmed, they hold its budget. */
  unpaid_bookings_per_client: z
    .number()
    .int()
    .positive()
    .max(1_000_000)
    .default(DEFAULT_LIMITS.unpaid_bookings_per_client),
  /** Whether a partner's unpaid bookings count against its credential's budgets as a customer's do. */
  partner_unpaid_budget: z.boolean().default(DEFAULT_LIMITS.partner_unpaid_budget),
  // Where ISPs hand each subscriber a /56 or /48, a /64 key would give one guest 256 or 65,536 budgets.
  ipv6_prefix: z.union([z.literal(48), z.literal(56), z.literal(64)]).default(DEFAULT_LIMITS.ipv6_prefix),
  giftcert_attempts_per_hour: z
    .number()
    .int()
    .positive()
    .max(1000)
    .default(DEFAULT_LIMITS.giftcert_attempts_per_hour),
  token_attempts_per_hour: z
    .number()
    .int()
    .positive()
    .max(1000)
    .default(DEFAULT_LIMITS.token_attempts_per_hour)
    .describe(
      "Wrong booking tokens (the guest's manage link) one client may try in an hour; past it, every token is 429 rate_limited until the hour ends.",
    ),
  rehold_cooldown_minutes: z
    .number()
    .min(0)
    .max(1440)
    .optional()
    .describe(
      'Minutes a client waits before it may hold an item-date again after its cart let go of it unbooked (expiry, end, clear or remove), having held it settings.hold_minutes or less; held longer without a break (a cart kept alive, carts that overlap), it waits this many minutes per settings.hold_minutes held. 0 disables. Default: twice settings.hold_minutes.',
    ),
});

const originSchema = z
  .string()
  .regex(/^https?:\/\/[^/*\s]+$/, 'an origin such as "https://www.example.com" (no path, never *)');

/** `settings` of the tenant file: holds, sessions, SLIPs, access, limits, throttling, webhooks, payment, alerts. */
export const settingsSchema = z.strictObject({
  hold_minutes: z.number().positive().max(1440).default(DEFAULT_SETTINGS.hold_minutes),
  max_session_minutes: z.number().positive().max(1440).default(DEFAULT_SETTINGS.max_session_minutes),
  /** Void a customer's booking still unpaid and unconfirmed this many hours after it was made (0: never). */
  void_unpaid_after_hours: z
    .number()
    .nonnegative()
    .max(8760)
    .default(DEFAULT_SETTINGS.void_unpaid_after_hours),
  slip_minutes: z.number().int().positive().max(10_080).default(DEFAULT_SETTINGS.slip_minutes),
  public_api: z.boolean().default(DEFAULT_SETTINGS.public_api),
  // A line of nobody at no charge holds stock for nothing; only a tenant that wants such bookings
  // (a free RSVP, a placeholder) allows them.
  allow_free_bookings: z.boolean().default(DEFAULT_SETTINGS.allow_free_bookings),
  cors_origins: z.array(originSchema).max(20).default([]),
  booking_code_prefix: z.string().regex(/^[A-Z]{2,6}$/, '2 to 6 upper case letters'),
  trusted_proxies: z.array(proxySchema).max(100).default([]),
  limits: limitsSchema.default(DEFAULT_LIMITS),
  throttle: z
    .strictObject({
      rate_limit: z.number().int().positive().max(10_000).default(DEFAULT_THROTTLE.rate_limit),
      burst_limit: z.number().int().positive().max(5_000).default(DEFAULT_THROTTLE.burst_limit),
    })
    .default(DEFAULT_THROTTLE),
  webhooks: webhookSettingsSchema.default(DEFAULT_WEBHOOK_SETTINGS),
  payment: paymentSettingsSchema.default(DEFAULT_PAYMENT),
  alerts: alertsSchema.default(DEFAULT_ALERTS),
  pow: z
    .strictObject({
      cost: z.number().int().positive().max(1_000_000).default(DEFAULT_POW.cost),
      max_counter: z.number().int().min(2).max(10_000_000).default(DEFAULT_POW.max_counter),
      expires_seconds: z.number().int().min(30).max(3600).default(DEFAULT_POW.expires_seconds),
    })
    .default(DEFAULT_POW)
    .describe(
      'The proof-of-work challenge of items with `pow`: PBKDF2/SHA-256 iterations per try (cost), the largest answer (max_counter; the answer is drawn between half of it and it) and how long a challenge may be used (expires_seconds).',
    ),
});
