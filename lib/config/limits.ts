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
