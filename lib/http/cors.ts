/** Request headers a browser script on an allowed origin may send (the preflight's allow list). */
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'x-on-behalf', 'idempotency-key'];

/** Response headers a browser script may read: the request id, and what tells it to slow down. */
export const CORS_EXPOSE_HEADERS = [
  'x-request-id',
  'x-ignored-parameters',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
];
