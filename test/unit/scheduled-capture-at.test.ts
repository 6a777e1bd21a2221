import { describe, expect, it } from 'vitest';
import { scheduledCaptureAt } from '#lib/bookings/payment-capture-mark.ts';
import type { StoredConfig } from '#lib/config/index.ts';

// Issue 43 item 2: when the sweeper captures an authorisation (`capture_days_before_start`): the local midnight
// N days before the first date, in the tenant's zone (DST included), or 6 days after the authorisation when
// that comes first (Stripe keeps an online card authorisation 7 days; a day is kept for retries).

const configWith = (payment: Record<string, unknown>) =>
  ({
    company: { timezone: 'America/Toronto' },
    settings: { payment: { take: 'full', capture: 'manual', ...payment } },
  }) as unknown as StoredConfig;
const at = (iso: string) => Date.parse(iso) / 1000;
const DAY = 86_400;

describe('scheduledCaptureAt', () => {
  const three = configWith({ capture_days_before_start: 3 });
  const early = at('2027-03-10T12:00:00Z');

  it.each([
    // Toronto goes from EST (-5) to EDT (-4) on 14 March 2027, at 2:00.
    ['before the change', '20270312', '2027-03-09T05:00:00Z'],
    ['the day of the change', '20270317', '2027-03-14T05:00:00Z'],
    ['after the change', '20270318', '2027-03-15T04:00:00Z'],
  ])('is the local midnight three days before a start %s', (_, start, expected) => {
    expect(scheduledCaptureAt(three, { start_date: start }, early)).toBe(at(expected));
  });

  it('is the start’s own midnight with 0 days', () => {
    const zero = configWith({ capture_days_before_start: 0 });
    expect(scheduledCaptureAt(zero, { start_date: '20270312' }, early)).toBe(at('2027-03-12T05:00:00Z'));
  });

  it('is 6 days after the authorisation when the start is further away than N days and that', () => {
    expect(scheduledCaptureAt(three, { start_date: '20270319' }, early)).toBe(at('2027-03-16T04:00:00Z'));
    expect(scheduledCaptureAt(three, { start_date: '20270320' }, early)).toBe(early + 6 * DAY);
    expect(scheduledCaptureAt(three, { start_date: '20271224' }, early)).toBe(early + 6 * DAY);
  });

  it('is the time of the authorisation itself (due at once) when the start is already N days away or less', () => {
    const start = '20270311';
    expect(scheduledCaptureAt(three, { start_date: start }, early)).toBe(at('2027-03-08T05:00:00Z'));
  });

  it('is 6 days after the authorisation for a booking with no first date', () => {
    expect(scheduledCaptureAt(three, { start_date: '' }, early)).toBe(early + 6 * DAY);
  });

  it('is nothing when capture is left to staff', () => {
    expect(scheduledCaptureAt(configWith({}), { start_date: '20270312' }, early)).toBeUndefined();
  });
});
