import { TZDate } from '@date-fns/tz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, dayOfWeek, daysBetween, describeDates, isRealYmd, todayIn } from '#lib/core/dates.ts';

/** A calendar date from 1900 to 9998, as `YYYYMMDD` (400 days from it stay in four-digit years). */
const ymd = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('9998-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10).replaceAll('-', ''));

// Rating reads dates thousands of times per list, so the date helpers format fields directly and keep
// their last answers; these hold them to the plain Date arithmetic they replaced.
describe('dates', () => {
  it('adds days and names weekdays as Date does', () => {
    fc.assert(
      fc.property(ymd, fc.integer({ min: -400, max: 400 }), (day, days) => {
        const utc = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)));
        const expected = new Date(utc + days * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
        expect(addDays(day, days)).toBe(expected);
        expect(daysBetween(day, expected)).toBe(days);
        expect(dayOfWeek(day)).toBe(new Date(utc).getUTCDay());
        expect(isRealYmd(day)).toBe(true);
      }),
    );
  });

  it('refuses dates that do not exist', () => {
    for (const value of ['20270230', '20271301', '20270000', '2027011', 'tomorrow', '00000101'])
      expect(isRealYmd(value)).toBe(false);
  });

  it('answers today for each instant and time zone, though it keeps its last answer', () => {
    const instant = Date.UTC(2027, 0, 1, 3, 0);
    expect(todayIn('America/Toronto', instant)).toBe('20261231');
    expect(todayIn('America/Toronto', instant)).toBe('20261231');
    expect(todayIn('Europe/Berlin', instant)).toBe('20270101');
    expect(todayIn('Europe/Berlin', instant - 5 * 3_600_000)).toBe('20261231');
  });

  it('keeps the date of each zone for a quarter hour without crossing a local midnight or an offset change', () => {
    // Zones with half- and three-quarter-hour offsets, a half-hour daylight saving shift, and the usual.
    const zones = [
      'Asia/Kathmandu',
      'Pacific/Chatham',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
      'America/St_Johns',
    ];
    const quarter = 900_000;
    fc.assert(
      fc.property(
        fc.constantFrom(...zones, 'America/Toronto', 'Europe/Berlin', 'Pacific/Kiritimati'),
        fc.integer({ min: Date.UTC(2000, 0, 1) / quarter, max: Date.UTC(2100, 0, 1) / quarter }),
        fc.integer({ min: 0, max: quarter - 1 }),
        (zone, quarters, into) => {
          const local = (instant: number) => {
            const date = new TZDate(instant, zone);
            return `${date.getFullYear()}${String(date.getMonth() + 1).padStart(2, '0')}${String(date.getDate()).padStart(2, '0')}`;
          };
          // The quarter's first instant is asked first, so the later one is answered from what was kept.
          expect(todayIn(zone, quarters * quarter)).toBe(local(quarters * quarter));
          expect(todayIn(zone, quarters * quarter + into)).toBe(local(quarters * quarter + into));
        },
      ),
      { numRuns: 2_000 },
    );
    // Around local midnights of a +5:45 zone: 18:15 UTC.
    const midnight = Date.UTC(2027, 0, 1, 18, 15);
    expect(todayIn('Asia/Kathmandu', midnight - 1)).toBe('20270101');
    expect(todayIn('Asia/Kathmandu', midnight)).toBe('20270102');
  });

  it('describes each range, though it keeps the ranges it described', () => {
    expect(describeDates('20271005', '20271007')).toBe('Tue Oct 5 - Thu Oct 7, 2027');
    expect(describeDates('20271005', '20271007')).toBe('Tue Oct 5 - Thu Oct 7, 2027');
    expect(describeDates('20271231', '20280102')).toBe('Fri Dec 31, 2027 - Sun Jan 2, 2028');
    expect(describeDates('20271005', '20271005')).toBe('Tue Oct 5, 2027');
    for (let day = 0; day < 1_500; day += 1) describeDates('20270101', addDays('20270101', day));
    expect(describeDates('20271005', '20271007')).toBe('Tue Oct 5 - Thu Oct 7, 2027');
  });
});
