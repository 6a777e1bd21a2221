// Every default of the tenant settings lives here, apart from the tenant schema so that reading them does
// not bundle the full zod into every function: the schema fills them into a tenant file, and the tenant
// repository into a configuration stored before a setting existed, both from these objects.

/**
 * The defaults of the plain tenant settings (`settings.*`); `settings.limits.rehold_cooldown_minutes` has
 * none of its own (twice `hold_minutes`, see `reholdCooldownSeconds`).
 */
export const DEFAULT_SETTINGS = {
  hold_minutes: 15,
  /** The longest a session holds stock, from its first hold, however often it changes. */
  max_session_minutes: 60,
  /** 0: unpaid bookings are never voided. */
  void_unpaid_after_hours: 0,
  slip_minutes: 120,
  public_api: true,
  allow_free_bookings: false,
};

/** The default API Gateway stage throttling of a tenant stack (`settings.throttle`). */
export const DEFAULT_THROTTLE = { rate_limit: 50, burst_limit: 100 };

/** The default per-client limits of the public API (`settings.limits`). */
export const DEFAULT_LIMITS = {
  requests_per_minute: 120,
  writes_per_minute: 30,
  staff_requests_per_minute: 600,
  client_hold_share: 0.5,
  open_sessions_per_client: 3,
  unpaid_bookings_per_client: 3,
  partner_unpaid_budget: false,
  /** An IPv6 client is counted by its /64 unless the tenant widens it to /56 or /48. */
  ipv6_prefix: 64 as 48 | 56 | 64,
  giftcert_attempts_per_hour: 10,
  /** Wrong booking tokens (a guest's invoice or manage link) a client may try in an hour (issue 44). */
  token_attempts_per_hour: 20,
};

/**
 * The default proof-of-work challenge (`settings.pow`): PBKDF2/SHA-256 with `cost` iterations per try, the
 * answer a random try between max_counter / 2 and max_counter; about a third of a second of a guest's
 * Chromium on the machine it was measured on (`npm run bench:pow`).
 */
export const DEFAULT_POW = { cost: 1000, max_counter: 2000, expires_seconds: 300 };

/**
 * The default webhook settings: exponential delays with a 12-hour ceiling, about 87 hours in all (at
 * least 72 with the most jitter takes away), and deliveries kept 30 days.
 */
export const DEFAULT_WEBHOOK_SETTINGS = {
  retry_seconds: [
    5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200, 43_200, 43_200, 43_200, 43_200,
  ],
  retention_days: 30,
};

/**
 * The default alarm thresholds of a tenant stack (`settings.alerts`): what a small business's traffic
 * should never reach on a healthy day, so that an alarm means a look is due (docs/decisions.md, "Issue
 * 15: operations").
 */
export const DEFAULT_ALERTS = {
  api_5xx_percent: 1,
  rated_list_p99_ms: 1500,
  booking_create_p99_ms: 3000,
  busy_per_5_minutes: 10,
  function_errors_per_5_minutes: 1,
  function_throttles_per_5_minutes: 1,
  dynamodb_throttles_per_5_minutes: 1,
  dynamodb_system_errors_per_5_minutes: 1,
  sweeper_lag_seconds: 300,
};

/**
 * How long (ms) an instance keeps the tenant configuration, and the catalogue read with it, before reading
 * it again, unless `CONFIG_CACHE_MS` says otherwise (0, as in tests, reads it for every request).
 */
export const DEFAULT_CONFIG_CACHE_MS = 15_000;

/**
 * What `settings.payment` is when the tenant file leaves it out: no payment is taken (today's behaviour). Here,
 * not beside its schema, so a function that reads it loads no zod.
 */
export const DEFAULT_PAYMENT = {
  take: 'none' as const,
  pay_within_minutes: 30,
  capture: 'automatic' as const,
  lapse_status: 'VOID' as const,
};
