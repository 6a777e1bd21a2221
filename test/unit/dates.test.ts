import { TZDate } from '@date-fns/tz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  dayOfWeek,
  daysBetween,
  describeDates,
  isRealYmd,
  localInstant,
  localParts,
  todayIn,
} from '#lib/kernel/dates.ts';
import { inProcessZone, wallClockOf } from '#test/support/wall-clock.ts';

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

  it("reads today through the process's zone and leaves that zone as it was, set or not", () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Tokyo';
      expect(todayIn('Pacific/Kiritimati', Date.UTC(2031, 0, 1, 9, 59))).toBe('20310101');
      expect(process.env.TZ).toBe('Asia/Tokyo');
      expect(new Date(Date.UTC(2031, 0, 1)).getTimezoneOffset()).toBe(-540);
      delete process.env.TZ;
      expect(todayIn('Pacific/Pago_Pago', Date.UTC(2031, 0, 1, 10, 59))).toBe('20301231');
      expect(process.env.TZ).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('describes each range, though it keeps the ranges it described', () => {
    expect(describeDates('20271005', '20271007')).toBe('Tue Oct 5 - Thu Oct 7, 2027');
    expect(describeDates('20271005', '20271007')).toBe('Tue Oct 5 - Thu Oct 7, 2027');
    expect(describeDates('20271231', '20280102')).toBe('Fri Dec 31, 2027 - Sun Jan 2, 2028');
    expect(describeDates('20271005', '20271005')).toBe('Tue Oct 5, 2027');
    for (let day = 0; day < 1_500; day += 1) describeDates('20270101', addDays('20270101', day));
    expect(describeDates('20271005', '20271007')).toBe('Tue Oct 5 - Thu Oct 7, 2027');
  });

  it('describes a range as en-US Intl writes it (less the comma after the weekday), without Intl', () => {
    const intl = (withYear: boolean) =>
      new Intl.DateTimeFormat('en-US', {
        weekday: 'short',
        month: 'short',
        day: 'numeric',
        ...(withYear ? { year: 'numeric' } : {}),
        timeZone: 'UTC',
      });
    const written = (day: string, withYear: boolean) =>
      intl(withYear)
        .format(new Date(`${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}T00:00:00Z`))
        .replace(/^(\w+),/, '$1');
    fc.assert(
      fc.property(ymd, fc.integer({ min: 0, max: 400 }), (first, days) => {
        const last = addDays(first, days);
        const sameYear = first.slice(0, 4) === last.slice(0, 4);
        const expected =
          first === last ? written(last, true) : `${written(first, !sameYear)} - ${written(last, true)}`;
        expect(describeDates(first, last)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  describe('local wall-clock times where the clocks change', () => {
    const HOUR = 3_600_000;
    const QUARTER = 900_000;
    /**
     * The instant the rule names, found by reading every quarter hour around the time: the first that
     * shows it, or, for a time the clocks skipped, the time moved forward by the gap (the offset before
     * the change applied to it).
     */
    const expected = (ymd: string, minutes: number, timeZone: string): number => {
      const wall = Date.UTC(+ymd.slice(0, 4), +ymd.slice(4, 6) - 1, +ymd.slice(6, 8)) + minutes * 60_000;
      let previous = wall - 16 * HOUR;
      for (let instant = previous + QUARTER; instant < wall + 16 * HOUR; instant += QUARTER) {
        const shown = wallClockOf(instant, timeZone);
        if (shown === wall) return instant;
        if (shown > wall) return wall - (wallClockOf(previous, timeZone) - previous);
        previous = instant;
      }
      throw new Error(`no reading of ${ymd} ${minutes} in ${timeZone}`);
    };
    // 2027's changes: an hour (both hemispheres, both sides of UTC), half an hour (Lord Howe), at 02:45
    // (Chatham), two hours (Troll), at midnight (Santiago), and a zone without changes.
    const changes: [string, string[]][] = [
      ['Europe/London', ['20270328', '20271031']],
      ['Europe/Berlin', ['20270328', '20271031']],
      ['America/Toronto', ['20270314', '20271107']],
      ['Australia/Sydney', ['20270404', '20271003']],
      ['Australia/Lord_Howe', ['20270404', '20271003']],
      ['Pacific/Chatham', ['20270404', '20270926']],
      ['Antarctica/Troll', ['20270328', '20271031']],
      ['America/Santiago', ['20270403', '20270404', '20270905']],
      ['Asia/Kolkata', ['20271031']],
    ];
    const systemZones = ['UTC', 'America/Denver', 'Europe/London', 'Asia/Tokyo', 'Australia/Sydney'];

    it('takes the first of a repeated time and moves a skipped one forward, whatever the process zone', () => {
      // 01:30 happens twice in London on 31 October: first in BST (00:30 UTC). 01:30 on 28 March never
      // happens: it is 02:30 BST (01:30 UTC). 02:30 happens twice in Sydney on 4 April: first in AEDT.
      const cases: [string, string, number, string][] = [
        ['Europe/London', '20271031', 90, '2027-10-31T00:30:00.000Z'],
        ['Europe/London', '20270328', 90, '2027-03-28T01:30:00.000Z'],
        ['America/Toronto', '20271107', 90, '2027-11-07T05:30:00.000Z'],
        ['America/Toronto', '20270314', 150, '2027-03-14T07:30:00.000Z'],
        ['Australia/Sydney', '20270404', 150, '2027-04-03T15:30:00.000Z'],
        ['Australia/Lord_Howe', '20270404', 105, '2027-04-03T14:45:00.000Z'],
        ['Antarctica/Troll', '20271031', 150, '2027-10-31T00:30:00.000Z'],
        ['America/Santiago', '20270905', 0, '2027-09-05T04:00:00.000Z'],
      ];
      for (const system of systemZones)
        inProcessZone(system, () => {
          for (const [zone, ymd, minutes, instant] of cases)
            expect([
              system,
              zone,
              ymd,
              minutes,
              new Date(localInstant(ymd, minutes, zone)).toISOString(),
            ]).toEqual([system, zone, ymd, minutes, instant]);
        });
    });

    it('agrees with the quarter hours read around each change, and reads its instants back', () => {
      const dates = changes.flatMap(([zone, days]) =>
        days.flatMap((day) => [-1, 0, 1].map((shift) => [zone, addDays(day, shift)] as const)),
      );
      for (const system of systemZones)
        inProcessZone(system, () => {
          fc.assert(
            fc.property(
              fc.constantFrom(...dates),
              fc.integer({ min: 0, max: 95 }),
              ([zone, ymd], quarter) => {
                const minutes = quarter * 15;
                const instant = localInstant(ymd, minutes, zone);
                expect(instant).toBe(expected(ymd, minutes, zone));
                // An instant that shows the time reads back as it; a skipped one as the time after the gap.
                const parts = localParts(instant, zone);
                expect(
                  Date.UTC(+parts.ymd.slice(0, 4), +parts.ymd.slice(4, 6) - 1, +parts.ymd.slice(6, 8)) +
                    parts.minutes * 60_000,
                ).toBe(wallClockOf(instant, zone));
                expect(todayIn(zone, instant)).toBe(parts.ymd);
              },
            ),
            { numRuns: 300 },
          );
        });
    });
  });
});

describe('date walks', () => {
  it('end past year 9999, where a nine-digit date sorts before the dates it follows', async () => {
    const { datesFrom } = await import('#lib/kernel/dates.ts');
    const { daysOfRanges } = await import('#lib/stock/repository.ts');
    const { monthsBetween } = await import('#lib/kernel/storage/keys.ts');
    expect(datesFrom('99991230', addDays('99991231', 1))).toEqual(['99991230', '99991231', '100000101']);
    expect(daysOfRanges([{ first: '99991231', last: '100000101' }])).toHaveLength(2);
    expect(daysOfRanges([{ first: '99991231T22Z', last: '99991231T23Z' }])).toEqual(['99991231']);
    expect(datesFrom('20270102', '20270101')).toEqual([]);
    const end = Date.UTC(10000, 1, 1) / 1000;
    expect(monthsBetween(Date.UTC(9999, 10, 15) / 1000, end).slice(-2)).toEqual(['999912', '999911']);
    expect(monthsBetween(Date.UTC(9999, 10, 15) / 1000, end)).toHaveLength(4);
  });
});
