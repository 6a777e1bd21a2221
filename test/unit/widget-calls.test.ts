import { describe, expect, it } from 'vitest';
import { CallError } from '#widget/src/call-error.ts';
import { describeFailure } from '#widget/src/failure-words.ts';

// Issue 32 review: a refusal the API worded for guests is shown in its words, and "Try again" is offered
// only where asking again can get another answer.

const refusal = (status: number, code: string, message: string, fields: Record<string, string> = {}) =>
  new CallError(status, code, message, fields, undefined, true);

describe('describeFailure', () => {
  it.each([
    [
      'a 4th unpaid booking (hold_limit)',
      refusal(
        409,
        'hold_limit',
        'You already have 3 unpaid bookings; pay one, or wait for one to be confirmed, first',
        { unpaid_bookings: '3' },
      ),
    ],
    [
      'too many open carts (hold_limit)',
      refusal(409, 'hold_limit', 'You already have 3 carts holding items; book or empty one first'),
    ],
    [
      'fewer left than asked (unavailable)',
      refusal(409, 'unavailable', 'Only 2 left for these dates; choose fewer'),
    ],
    ['a form the API refuses (validation_error)', refusal(400, 'validation_error', 'Enter an email address')],
  ])('shows %s in the API’s words, with no retry', (_, error) => {
    expect(describeFailure(error)).toEqual({ message: error.message, retry: 'no' });
  });

  it('shows a cooldown in the API’s words, with a retry once its wait is over', () => {
    const error = refusal(
      409,
      'hold_limit',
      'You let Touring Kayak on Mon, Jul 5 go unbooked a moment ago; you can hold it again in 2 minutes',
      { retry_after: '120' },
    );
    expect(describeFailure(error)).toEqual({ message: error.message, retry: 'later' });
  });

  it('shows a rate limit in the API’s words, with a retry', () => {
    const error = new CallError(
      429,
      'rate_limited',
      'Too many requests in a short time; try again in 2 seconds',
      {},
      2,
      true,
    );
    expect(describeFailure(error)).toEqual({ message: error.message, retry: 'now' });
  });

  it.each([
    [
      'a lost connection',
      new CallError(0, 'network', 'The booking service could not be reached.'),
      /could not be reached/,
    ],
    [
      'a 5xx',
      new CallError(500, 'internal_error', 'Internal error (request abc)', {}, undefined, true),
      /could not do this just now/,
    ],
    [
      'a gateway 429 without an envelope',
      new CallError(429, 'rate_limited', 'Too Many Requests', {}, 3),
      /Too many requests right now\. Please wait 3 seconds/,
    ],
    [
      'a gateway 409 without an envelope',
      new CallError(409, 'http_error', 'Conflict'),
      /could not do this just now/,
    ],
    [
      'a failed proof of work',
      new CallError(0, 'challenge_failed', 'This browser could not complete the check.'),
      /quick check/,
    ],
    [
      'a booking still in progress',
      refusal(409, 'in_progress', 'The same Idempotency-Key is still being processed'),
      /still being made/,
    ],
  ])('words %s itself, with a retry', (_, error, words) => {
    const described = describeFailure(error);
    expect(described.message).toMatch(words);
    expect(described.message).not.toMatch(/Idempotency-Key/);
    expect(described.retry).toBe('now');
  });
});
