import { describe, expect, it } from 'vitest';
import type { CancellationSnapshot } from '#lib/bookings/cancellation.ts';
import { type CancellationWordsOptions, cancellationWords } from '#lib/bookings/cancellation-words.ts';
import { cancellationSchema } from '#lib/config/cancellation-schema.ts';
import { localInstant } from '#lib/kernel/dates.ts';

// The policy in words a guest reads (issue 44): lengths before the start without dates (booking/form without
// a cart), dates in the tenant's zone and locale with them (a cart, a booking).

const ZONE = 'America/Toronto';
const policyOf = (raw: Record<string, unknown>) => cancellationSchema.parse(raw);

const TYPICAL = {
  refunds: [
    { before: { hours: 48 }, percent: 50 },
    { before: { days: 14 }, percent: 100 },
  ],
  fee: 2_500,
  deposit_refundable: false,
  cutoff: { hours: 24 },
};

const single = (raw: Record<string, unknown> = TYPICAL): CancellationSnapshot => ({
  policies: [{ policy: policyOf(raw), lines: ['1'] }],
});

const words = (snapshot: CancellationSnapshot, options: Partial<CancellationWordsOptions> = {}) =>
  cancellationWords(snapshot, {
    timeZone: ZONE,
    dates: { locale: 'en-CA', today: '20270601' },
    currency: { symbol: '€', decimals: 2 },
    deposit: true,
    ...options,
  });

const START = localInstant('20270715', 0, ZONE);

describe('the words of a cancellation policy', () => {
  it('says each tier as a length before the start when there is no start', () => {
    expect(words(single())).toBe(
      'Full refund up to 14 days before the start; 50% back up to 48 hours before; no refund after that. ' +
        'A fee of €25.00 is kept from any refund. The deposit is not refunded. ' +
        'Changes and cancellations close 24 hours before the start.',
    );
  });

  it('calls a full refund with nothing kept free cancellation, and leaves out what does not apply', () => {
    const free = { refunds: TYPICAL.refunds };
    expect(words(single(free))).toBe(
      'Free cancellation up to 14 days before the start; 50% back up to 48 hours before; no refund after that.',
    );
    // A deposit that stays is said only of a booking paid by one.
    expect(words(single({ ...free, deposit_refundable: false }), { deposit: false })).toMatch(
      /^Free cancellation/,
    );
    expect(words(single({ refunds: [], cutoff: { days: 1 } }))).toBe(
      'No refund. Changes and cancellations close 1 day before the start.',
    );
  });

  it('names the dates in the tenant zone and locale when the start is known', () => {
    expect(words(single(), { start: START })).toBe(
      'Full refund before Thursday, July 1; 50% back before Tuesday, July 13; no refund after that. ' +
        'A fee of €25.00 is kept from any refund. The deposit is not refunded. ' +
        'Changes and cancellations are possible only before Wednesday, July 14.',
    );
    expect(
      words(single({ refunds: TYPICAL.refunds }), {
        start: START,
        dates: { locale: 'en-GB', today: '20270601' },
      }),
    ).toBe(
      'Free cancellation before Thursday 1 July; 50% back before Tuesday 13 July; no refund after that.',
    );
  });

  it('gives the time when a deadline is not a midnight (an hourly start, hours across a change of clocks)', () => {
    const tenAm = localInstant('20270715', 600, ZONE);
    expect(words(single({ refunds: [{ before: { hours: 2 }, percent: 100 }] }), { start: tenAm })).toBe(
      'Free cancellation before 8:00 a.m. on Thursday, July 15; no refund after that.',
    );
    // 48 hours before Tuesday 9 November, midnight, is 1 a.m. on the Sunday the clocks go back.
    const november = localInstant('20271109', 0, ZONE);
    expect(words(single({ refunds: [{ before: { hours: 48 }, percent: 100 }] }), { start: november })).toBe(
      'Free cancellation before 1:00 a.m. on Sunday, November 7; no refund after that.',
    );
  });

  it('leaves out what is past for a guest about to book', () => {
    const fiveDaysBefore = START - 5 * 86_400_000;
    expect(words(single(), { start: START, from: fiveDaysBefore })).toBe(
      '50% back before Tuesday, July 13; no refund after that. A fee of €25.00 is kept from any refund. ' +
        'The deposit is not refunded. Changes and cancellations are possible only before Wednesday, July 14.',
    );
    expect(words(single(), { start: START, from: START - 3_600_000 })).toBe(
      'No refund. A fee of €25.00 is kept from any refund. The deposit is not refunded. ' +
        'Once booked, it can no longer be changed or cancelled.',
    );
  });

  it("says whose terms are whose when the lines' policies differ, the fee once and the earliest cutoff", () => {
    const snapshot: CancellationSnapshot = {
      policies: [
        { policy: policyOf(TYPICAL), lines: ['1', '3'] },
        {
          policy: policyOf({
            refunds: [{ before: { days: 2 }, percent: 100 }],
            fee: 500,
            cutoff: { days: 3 },
          }),
          lines: ['2'],
        },
      ],
      uncovered: ['4'],
    };
    const names = { '1': 'Lakeside Cabin', '2': 'Touring Kayak', '3': 'Lakeside Cabin', '4': 'Boat Slip' };
    expect(words(snapshot, { start: START, names })).toBe(
      'Lakeside Cabin: full refund before Thursday, July 1; 50% back before Tuesday, July 13; no refund after that. ' +
        // The fee is the booking's, kept once whichever line it comes from: nothing is free.
        'Touring Kayak: full refund before Tuesday, July 13; no refund after that. ' +
        'Boat Slip: no refund. A fee of €25.00 is kept from any refund. ' +
        'The deposit is not refunded for Lakeside Cabin. ' +
        'Changes and cancellations are possible only before Monday, July 12.',
    );
  });
});
