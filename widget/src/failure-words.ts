import type { CallError } from './call-error.ts';

/**
 * The widget's own words, by error id, for what the API did not word for a guest: a lost connection, the
 * proof-of-work check, and answers without the API's envelope (the gateway's throttling). A refusal the
 * API worded (a 4xx with its envelope) is shown in the API's words, which say what to do.
 */
const MESSAGES: Record<string, string> = {
  rate_limited: 'Too many requests right now.',
  busy: 'Many guests are booking at this moment.',
  network: 'The booking service could not be reached. Check your connection.',
  challenge_failed:
    'Few are left, and this browser could not complete the quick check that holding one now needs.',
  challenge_required: 'Few are left: holding one needs a quick check that did not complete.',
  in_progress: 'Your booking is still being made. Wait a moment, then try again.',
};

/** What a failure of the service itself (5xx, or a 4xx without the API's words) says. */
const FAILED = 'The booking service could not do this just now.';

/**
 * Answers the widget words itself though the API sends an envelope (the check is the widget's own work; a
 * booking still in progress is worded for developers), and where asking again gets another answer.
 */
const OWN_WORDS = new Set(['challenge_failed', 'challenge_required', 'in_progress']);

/** How long to wait, in words a guest reads at a glance. */
const waitFor = (seconds: number): string =>
  seconds >= 90
    ? ` Please wait about ${Math.ceil(seconds / 60)} minutes and try again.`
    : ` Please wait ${seconds} seconds and try again.`;

/**
 * How a failed call reads, and whether "Try again" can help (now, or after `retryAfter` seconds: a
 * cooldown). A refusal that would repeat (`hold_limit` for unpaid bookings or open carts,
 * `validation_error`, `unavailable`) is shown in the API's words with no retry.
 */
export function describeFailure(error: CallError): { message: string; retry: 'now' | 'later' | 'no' } {
  const worded = error.fromEnvelope && error.status >= 400 && error.status < 500;
  const cooling = error.code === 'hold_limit' && error.fields.retry_after !== undefined;
  const own = OWN_WORDS.has(error.code);
  const wait = error.retryAfterSeconds ? waitFor(error.retryAfterSeconds) : '';
  const message =
    worded && !own
      ? error.message
      : `${MESSAGES[error.code] ?? (error.status === 0 ? MESSAGES.network : FAILED)}${wait}`;
  if (cooling) return { message, retry: 'later' };
  const again =
    error.status === 0 ||
    error.status >= 500 ||
    error.status === 429 ||
    own ||
    (!error.fromEnvelope && error.status === 409);
  return { message, retry: again ? 'now' : 'no' };
}
