import { describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_SETTINGS } from '#lib/config/limits.ts';
import { parseTenant } from '#lib/config/tenant-schema.ts';
import { matchesEvent, retryDelayMs, subscribersOf } from '#lib/webhooks/subscriptions.ts';
import { makeTenantJson } from '#test/support/tenant.ts';

const hook = (overrides: Record<string, unknown> = {}) => ({
  id: 'desk',
  url: 'https://hooks.example.com/in',
  events: ['booking.*'],
  ...overrides,
});

describe('webhook event patterns', () => {
  it.each([
    ['*', 'booking.created', true],
    ['*', 'webhook.disabled', true],
    ['booking.*', 'booking.created', true],
    ['booking.*', 'booking.status_changed', true],
    ['booking.*', 'payment.created', false],
    ['booking.*', 'booking', false],
    ['booking.created', 'booking.created', true],
    ['booking.created', 'booking.created.late', false],
    ['booking.created', 'booking.checked_in', false],
    ['payment.created', 'payment.created', true],
    ['*.created', 'booking.created', true],
    ['*.created', 'payment.created', true],
    ['*.created', 'booking.note_added', false],
    ['booking.*', 'booking.note.added', true],
  ])('matches %s against %s: %s', (pattern, type, expected) => {
    expect(matchesEvent(pattern, type)).toBe(expected);
  });

  it('subscribes only the enabled endpoints whose patterns match', () => {
    const config = {
      webhooks: [
        { ...hook({ id: 'a', events: ['booking.*'] }), format: 'standard' as const, enabled: true },
        { ...hook({ id: 'b', events: ['payment.created'] }), format: 'standard' as const, enabled: true },
        { ...hook({ id: 'c', events: ['*'] }), format: 'checkfront' as const, enabled: false },
      ],
    };
    expect(subscribersOf(config, 'booking.created')).toEqual(['a']);
    expect(subscribersOf(config, 'payment.created')).toEqual(['b']);
    expect(subscribersOf(config, 'webhook.disabled')).toEqual([]);
  });
});

describe('the retry schedule', () => {
  it('waits each delay of the schedule with at most 10 % jitter either way, then gives up', () => {
    const schedule = [10, 60];
    expect(retryDelayMs(schedule, 1, 0)).toBe(9_000);
    expect(retryDelayMs(schedule, 1, 0.5)).toBe(10_000);
    expect(retryDelayMs(schedule, 1, 1)).toBe(11_000);
    expect(retryDelayMs(schedule, 2, 0.5)).toBe(60_000);
    expect(retryDelayMs(schedule, 3, 0.5)).toBeUndefined();
  });

  it('retries for at least three days by default, even with the most jitter taken off', () => {
    const least = DEFAULT_WEBHOOK_SETTINGS.retry_seconds.reduce(
      (sum, _delay, index) => sum + (retryDelayMs(DEFAULT_WEBHOOK_SETTINGS.retry_seconds, index + 1, 0) ?? 0),
      0,
    );
    expect(least).toBeGreaterThanOrEqual(72 * 3_600_000);
    const delays = DEFAULT_WEBHOOK_SETTINGS.retry_seconds;
    expect(delays.every((delay, index) => index === 0 || delay >= (delays[index - 1] ?? 0))).toBe(true);
  });
});

describe('webhooks in the tenant file', () => {
  it('fills in the format, enabled flag and retry schedule', () => {
    const result = parseTenant(makeTenantJson({ webhooks: [hook()] }));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.tenant.webhooks).toEqual([{ ...hook(), format: 'standard', enabled: true }]);
    expect(result.tenant.settings.webhooks).toEqual(DEFAULT_WEBHOOK_SETTINGS);
  });

  it.each([
    ['a duplicate id', [hook(), hook()], 'webhooks'],
    ['an id with capitals', [hook({ id: 'Desk' })], 'webhooks[0].id'],
    ['a URL that is not http(s)', [hook({ url: 'ftp://hooks.example.com' })], 'webhooks[0].url'],
    ['a URL that does not parse', [hook({ url: 'hooks' })], 'webhooks[0].url'],
    ['no events', [hook({ events: [] })], 'webhooks[0].events'],
    ['an event with spaces', [hook({ events: ['booking created'] })], 'webhooks[0].events[0]'],
    ['an unknown format', [hook({ format: 'xml' })], 'webhooks[0].format'],
    ['eleven endpoints', Array.from({ length: 11 }, (_, index) => hook({ id: `h${index}` })), 'webhooks'],
  ])('refuses %s', (_case, webhooks, path) => {
    const result = parseTenant(makeTenantJson({ webhooks }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => problem.path)).toContain(path);
  });

  it('refuses an empty or negative retry schedule', () => {
    for (const retry_seconds of [[], [10, -1]]) {
      const result = parseTenant(
        makeTenantJson({ settings: { booking_code_prefix: 'TEST', webhooks: { retry_seconds } } }),
      );
      expect(result.ok).toBe(false);
    }
  });
});
