import { describe, expect, it } from 'vitest';
import { readTimeFilter } from '#functions/bookings/list.ts';
import { calendarOf, slotsOfDate } from '#lib/catalog/calendar.ts';
import type { StockLookup } from '#lib/catalog/rate-item.ts';
import { resolveSpan } from '#lib/catalog/span.ts';
import type { StoredConfig } from '#lib/config/model.ts';
import {
  changeDays,
  H,
  hhmm,
  hourlyItem,
  hourStartsOf,
  hoursBetween,
  isoLabel,
  localYmd,
  nextDay,
  Q,
  tenantIn,
  utcKey,
  utcOf,
  ZONES,
} from '#test/support/clock-changes.ts';
import { rate, TODAY } from '#test/support/rating.ts';
import { inProcessZone } from '#test/support/wall-clock.ts';

// Hourly items where the clocks change, in unusual zones and under any process time zone (from an
// adversarial review, stop 25). An hourly item sells the whole local hours from the start time up to the
// end time, as the clocks show them: an hour they repeat twice, an hour they skip not at all. Every
// expected value is read back through Intl.DateTimeFormat, independently of lib/kernel/dates.ts
// (test/support/clock-changes.ts).

describe('hourly items where the clocks change', () => {
  it('sell each whole local hour that happens, with its label and UTC-hour counter, on every 2027 change day', () => {
    const problems: string[] = [];
    for (const zone of ZONES) {
      for (const ymd of changeDays(zone)) {
        for (let start = 0; start < 23; start += 1) {
          for (let end = start + 1; end <= 23; end += 1) {
            const want = hourStartsOf(ymd, zone)
              .filter(({ hour }) => hour >= start && hour < end)
              .map(({ key, label }) => ({ key, date: ymd, label }));
            const requested = { start: ymd, startTime: start * 60, endTime: end * 60 };
            let got: typeof want | string;
            try {
              got = resolveSpan('H', requested, zone).slots.map((slot) => ({
                key: slot.key,
                date: slot.date,
                label: slot.label ?? '',
              }));
            } catch (error) {
              got = (error as Error).message;
            }
            const refused = 'The clocks go forward on that date and skip those hours; choose other times';
            if (JSON.stringify(got) !== JSON.stringify(want.length ? want : refused))
              problems.push(
                `${zone} ${ymd} ${start}-${end}: got ${JSON.stringify(got)} want ${JSON.stringify(want)}`,
              );
            if (typeof got !== 'string' && new Set(got.map((slot) => slot.key)).size !== got.length)
              problems.push(`${zone} ${ymd} ${start}-${end}: two hours share a counter`);
          }
        }
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('refuse a request whose hours the clocks skip, rather than sell no hours for nothing', () => {
    const board = hourlyItem('00:00', '23:00');
    const cases: [string, string, number, number][] = [
      ['Europe/London', '20270328', 1, 2], // 01:00 BST does not happen: 01:00 GMT is 02:00 BST
      ['America/Toronto', '20270314', 2, 3],
      ['America/Santiago', '20270905', 0, 1], // local midnight does not happen
      ['Antarctica/Troll', '20270328', 1, 3], // two hours skipped
      ['Antarctica/Troll', '20270328', 2, 3],
      ['Australia/Lord_Howe', '20271003', 2, 3], // 02:00 to 02:30 skipped: the 02:00 hour never begins
    ];
    for (const [zone, ymd, start, end] of cases) {
      expect(hoursBetween(ymd, start, end, zone)).toEqual([]);
      const rated = rate(board, { start: ymd, startTime: start * 60, endTime: end * 60 }, tenantIn(zone));
      expect([zone, ymd, rated.status, rated.errors, rated.total]).toEqual([
        zone,
        ymd,
        'UNAVAILABLE',
        ['The clocks go forward on that date and skip those hours; choose other times'],
        0,
      ]);
    }
  });

  it("London's 31 October 2027 from 01:00 has both 01:00 hours, in rating and the calendar", () => {
    const item = hourlyItem('01:00', '03:00');
    const slots = slotsOfDate(item, '20271031', 'Europe/London').map((slot) => slot.key);
    const rated = rate(item, { start: '20271031', startTime: 60, endTime: 180 }, tenantIn('Europe/London'));
    expect(rated.slots.map((entry) => entry.slot.label)).toEqual([
      '2027-10-31T01:00+01:00',
      '2027-10-31T01:00+00:00',
      '2027-10-31T02:00+00:00',
    ]);
    expect(slots).toEqual(['20271031T00Z', '20271031T01Z', '20271031T02Z']);
    expect(rated.slots.map((entry) => entry.slot.key)).toEqual(slots);
    expect(rated.status).toBe('AVAILABLE');
  });

  it('count in a calendar the counters rating the whole opening takes, for every opening on every change day', () => {
    const problems: string[] = [];
    const items = new Map<string, ReturnType<typeof hourlyItem>>();
    for (const zone of ZONES) {
      for (const ymd of changeDays(zone)) {
        for (let open = 0; open < 23; open += 1) {
          for (let close = open + 1; close <= 23; close += 1) {
            const hours = `${hhmm(open * 60)}-${hhmm(close * 60)}`;
            let item = items.get(hours);
            if (!item) {
              item = hourlyItem(hhmm(open * 60), hhmm(close * 60));
              items.set(hours, item);
            }
            const calendar = slotsOfDate(item, ymd, zone).map((slot) => slot.key);
            const whole = rate(
              item,
              { start: ymd, startTime: open * 60, endTime: close * 60 },
              tenantIn(zone),
            );
            const rated = whole.slots.map((entry) => entry.slot.key);
            if (JSON.stringify(calendar) !== JSON.stringify(rated))
              problems.push(`${zone} ${ymd} ${hours}: calendar ${calendar} rating ${rated}`);
          }
        }
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('do not make two bookings that follow each other share a counter (Lord Howe, 30 minutes back)', () => {
    const zone = 'Australia/Lord_Howe';
    const item = hourlyItem('00:00', '23:00', 1);
    // 01:00 LHDT is 14:00Z; at 15:00Z the clocks go back to 01:30, so 02:00 LHST is 15:30Z.
    expect(hoursBetween('20270404', 1, 3, zone).map((ms) => new Date(ms).toISOString())).toEqual([
      '2027-04-03T14:00:00.000Z',
      '2027-04-03T15:30:00.000Z',
    ]);
    const booked = rate(item, { start: '20270404', startTime: 60, endTime: 120 }, tenantIn(zone));
    expect(booked.status).toBe('AVAILABLE');
    const held = new Set(booked.slots.map((entry) => entry.slot.key));
    const next = rate(
      item,
      { start: '20270404', startTime: 120, endTime: 180 },
      { ...tenantIn(zone), stock: (_id, key) => (held.has(key) ? 1 : 0) },
    );
    expect([next.status, next.slots.map((entry) => entry.slot.label)]).toEqual([
      'AVAILABLE',
      ['2027-04-04T02:00+10:30'],
    ]);
  });

  it('agree between the calendar and the opening hours inside a two-hour gap (Troll)', () => {
    const zone = 'Antarctica/Troll';
    const date = '20270328';
    // 01:00 to 03:00 never happens that day; 03:00 does, at 01:00Z.
    expect(hoursBetween(date, 0, 5, zone).map((instant) => isoLabel(instant, zone))).toEqual([
      '2027-03-28T00:00+00:00',
      '2027-03-28T03:00+02:00',
      '2027-03-28T04:00+02:00',
    ]);
    const late = hourlyItem('02:00', '04:00');
    const lateCalendar = calendarOf({
      item: late,
      first: date,
      last: date,
      today: TODAY,
      timeZone: zone,
      stock: () => 0,
    });
    expect([
      rate(late, { start: date, startTime: 180, endTime: 240 }, tenantIn(zone)).status,
      lateCalendar[date],
    ]).toEqual(['AVAILABLE', 1]);
    // Open 00:00 to 02:00 with the 00:00 hour taken: nothing left, in the calendar as in rating.
    const early = hourlyItem('00:00', '02:00');
    const taken = utcKey(hoursBetween(date, 0, 1, zone)[0] as number);
    const stock: StockLookup = (_id, key) => (key === taken ? 1 : 0);
    const earlyCalendar = calendarOf({
      item: early,
      first: date,
      last: date,
      today: TODAY,
      timeZone: zone,
      stock,
    });
    expect(earlyCalendar[date]).toBe(0);
    expect(
      rate(early, { start: date, startTime: 0, endTime: 120 }, { ...tenantIn(zone), stock }).status,
    ).toBe('SOLDOUT');
  });

  it('count in a calendar only the whole hours an opening at a half hour can sell', () => {
    const zone = 'Europe/London';
    const date = '20270301';
    const item = hourlyItem('09:30', '12:00');
    // The bookable hours are 10:00 and 11:00; both taken. The 09:00 hour is free but outside the hours.
    const taken = new Set(hoursBetween(date, 10, 12, zone).map(utcKey));
    const stock: StockLookup = (_id, key) => (taken.has(key) ? 1 : 0);
    const statuses = [9, 10, 11].map(
      (hour) =>
        rate(
          item,
          { start: date, startTime: hour * 60, endTime: hour * 60 + 60 },
          { ...tenantIn(zone), stock },
        ).status,
    );
    expect(statuses).toEqual(['RULE', 'SOLDOUT', 'SOLDOUT']);
    const calendar = calendarOf({ item, first: date, last: date, today: TODAY, timeZone: zone, stock });
    expect(calendar[date]).toBe(0);
  });

  it('give the same spans, labels, counters and calendars under any process time zone', () => {
    const cases: [string, string, number, number][] = [
      ['Europe/London', '20271031', 0, 4],
      ['Europe/London', '20270328', 0, 4],
      ['America/Toronto', '20271107', 0, 4],
      ['Australia/Sydney', '20270404', 1, 4],
      ['Australia/Lord_Howe', '20270404', 0, 4],
      ['Australia/Lord_Howe', '20271003', 0, 4],
      ['Antarctica/Troll', '20271031', 0, 5],
      ['America/Santiago', '20270905', 0, 3],
      ['America/Santiago', '20270403', 20, 23],
      ['America/Havana', '20271107', 0, 3],
      ['Asia/Beirut', '20271031', 0, 3],
      ['Pacific/Chatham', '20270926', 1, 5],
    ];
    const item = hourlyItem('00:00', '23:00', 3);
    const used: StockLookup = (_id, key) => key.charCodeAt(10) % 3;
    const snapshot = () =>
      cases.map(([zone, ymd, start, end]) => {
        const span = resolveSpan('H', { start: ymd, startTime: start * 60, endTime: end * 60 }, zone);
        const calendar = calendarOf({
          item,
          first: ymd,
          last: nextDay(ymd),
          today: TODAY,
          timeZone: zone,
          stock: used,
        });
        return { zone, slots: span.slots.map((slot) => `${slot.key} ${slot.label} ${slot.date}`), calendar };
      });
    const baseline = inProcessZone('UTC', snapshot);
    // The baseline is itself right: every label is the Intl reading of its slot.
    for (const { zone, slots } of baseline)
      for (const slot of slots) {
        const [, label = ''] = slot.split(' ');
        expect(isoLabel(Date.parse(label), zone)).toBe(label);
      }
    for (const system of [
      'America/Denver',
      'Europe/London',
      'Asia/Tokyo',
      'Australia/Lord_Howe',
      'America/Santiago',
      'Pacific/Chatham',
      'Antarctica/Troll',
      'Asia/Kolkata',
      'America/St_Johns',
      'Pacific/Kiritimati',
    ])
      expect([system, inProcessZone(system, snapshot)]).toEqual([system, baseline]);
  });

  it("make a date filter (and a booking's start_at) cover the whole local day where midnight is skipped or repeated", () => {
    const dates: [string, string][] = [
      ['America/Santiago', '20270905'], // midnight skipped (00:00 -> 01:00)
      ['America/Santiago', '20270904'],
      ['America/Santiago', '20270403'], // 23:00 Saturday happens twice
      ['America/Santiago', '20270404'],
      ['America/Havana', '20270314'], // midnight skipped
      ['America/Havana', '20271107'], // midnight repeated
      ['Asia/Beirut', '20270328'], // midnight skipped
      ['Asia/Beirut', '20271030'],
      ['Asia/Beirut', '20271031'],
      ['Australia/Lord_Howe', '20270404'],
      ['Pacific/Kiritimati', '20270101'],
      ['Pacific/Pago_Pago', '20270101'],
    ];
    const firstInstantOf = (ymd: string, zone: string) => {
      for (let instant = utcOf(ymd) - 16 * H; ; instant += Q)
        if (localYmd(instant, zone) === ymd) return instant;
    };
    for (const [zone, ymd] of dates) {
      const config = { company: { timezone: zone } } as unknown as StoredConfig;
      expect([zone, ymd, readTimeFilter(ymd, config, Date.UTC(2027, 0, 4))]).toEqual([
        zone,
        ymd,
        { from: firstInstantOf(ymd, zone) / 1000, to: firstInstantOf(nextDay(ymd), zone) / 1000 },
      ]);
    }
  });
});
