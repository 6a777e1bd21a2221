import { describe, expect, it } from 'vitest';
import { linkedDates } from '#widget/src/deep-link.ts';

// Issue 32 review: `nights` counts units from `start-date`, as each unit reads a span.

const TODAY = '2027-01-01';

describe('linkedDates', () => {
  it.each([
    [
      'nightly: the check-out is start + nights',
      { start: '2027-07-05', nights: '3' },
      'N',
      { start: '2027-07-05', end: '2027-07-08' },
    ],
    [
      'daily: the last day is start + nights − 1 (inclusive)',
      { start: '2027-07-05', nights: '3' },
      'D',
      { start: '2027-07-05', end: '2027-07-07' },
    ],
    [
      'daily, one day: the start alone',
      { start: '2027-07-05', nights: '1' },
      'D',
      { start: '2027-07-05', end: '2027-07-05' },
    ],
    [
      'hourly: the date alone',
      { start: '2027-07-05', nights: '3' },
      'H',
      { start: '2027-07-05', end: '2027-07-05' },
    ],
    [
      'several units: the nightly meaning',
      { start: '2027-07-05', nights: '3' },
      undefined,
      { start: '2027-07-05', end: '2027-07-08' },
    ],
    [
      'across a leap day',
      { start: '2028-02-28', nights: '2' },
      'N',
      { start: '2028-02-28', end: '2028-03-01' },
    ],
    [
      'end-date keeps its meaning',
      { start: '2027-07-05', end: '2027-07-09', nights: '3' },
      'D',
      { start: '2027-07-05', end: '2027-07-09' },
    ],
    [
      'a nightly end on the start: the start alone',
      { start: '2027-07-05', end: '2027-07-05' },
      'N',
      { start: '2027-07-05' },
    ],
    ['no end: the first date chosen', { start: '2027-07-05' }, 'N', { start: '2027-07-05' }],
    [
      'zero nights: the first date chosen',
      { start: '2027-07-05', nights: '0' },
      'N',
      { start: '2027-07-05' },
    ],
    [
      '367 nights: the first date chosen',
      { start: '2027-07-05', nights: '367' },
      'N',
      { start: '2027-07-05' },
    ],
    ['a date that is not one', { start: '2027-02-30', nights: '3' }, 'N', undefined],
    ['a start in the past', { start: '2026-12-31', nights: '3' }, 'N', undefined],
    ['no start', { nights: '3' }, 'N', undefined],
  ] as const)('%s', (_, link, unit, dates) => {
    expect(linkedDates(link, unit, TODAY)).toEqual(dates);
  });
});
