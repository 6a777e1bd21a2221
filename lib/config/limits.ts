/**
 * The default per-client limits of the public API, apart from the tenant schema so that reading them
 * does not bundle the full zod into every function.
 */
export const DEFAULT_LIMITS = {
  requests_per_minute: 120,
  writes_per_minute: 30,
  staff_requests_per_minute: 600,
  client_hold_share: 0.5,
  open_sessions_per_client: 3,
};

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
