import { describe, expect, it } from 'vitest';
import { slotsTaken, unsellableRuns } from '#lib/channels/slots.ts';
import { localInstant, utcHourKey } from '#lib/kernel/dates.ts';
import { makeTenantItem } from '#test/support/rating.ts';

// Which counter slots a channel's events take (import), and which runs an item cannot be sold on (export).

const ZONE = 'Europe/Berlin';
const at = (ymd: string, hhmm: string) =>
  localInstant(ymd, Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)), ZONE);
const window = { timeZone: ZONE, first: '20310101', last: '20311231' };
const nightly = makeTenantItem({ unit: 'N', stock: 1 });
const daily = makeTenantItem({ unit: 'D', stock: 1 });
const hourly = makeTenantItem({ unit: 'H', stock: 1, hours: { open: '09:00', close: '12:00' } });

describe('slotsTaken', () => {
  it('takes an all-day event [DTSTART, DTEND) as dates, whatever the unit', async () => {
    const events = [{ kind: 'dates' as const, first: '20310105', endExclusive: '20310108' }];
    expect(await slotsTaken(events, { item: nightly, ...window })).toEqual([
      '20310105',
      '20310106',
      '20310107',
    ]);
    expect(await slotsTaken(events, { item: daily, ...window })).toEqual([
      '20310105',
      '20310106',
      '20310107',
    ]);
  });

  it('takes the nights a timed stay spans for a nightly item, the days it touches for a daily one', async () => {
    const stay = [
      { kind: 'instants' as const, start: at('20310105', '15:00'), end: at('20310108', '11:00') },
    ];
    expect(await slotsTaken(stay, { item: nightly, ...window })).toEqual([
      '20310105',
      '20310106',
      '20310107',
    ]);
    expect(await slotsTaken(stay, { item: daily, ...window })).toEqual([
      '20310105',
      '20310106',
      '20310107',
      '20310108',
    ]);
    // Midnight to midnight is the all-day event's days, for both.
    const whole = [
      { kind: 'instants' as const, start: at('20310105', '00:00'), end: at('20310107', '00:00') },
    ];
    expect(await slotsTaken(whole, { item: nightly, ...window })).toEqual(['20310105', '20310106']);
    expect(await slotsTaken(whole, { item: daily, ...window })).toEqual(['20310105', '20310106']);
  });

  it('takes every hour an hourly item sells on an all-day date, and the hours a timed event overlaps', async () => {
    const hours = (ymd: string, ...starts: string[]) => starts.map((hhmm) => utcHourKey(at(ymd, hhmm)));
    expect(
      await slotsTaken([{ kind: 'dates', first: '20310602', endExclusive: '20310603' }], {
        item: hourly,
        ...window,
      }),
    ).toEqual(hours('20310602', '09:00', '10:00', '11:00'));
    const overlap = [
      { kind: 'instants' as const, start: at('20310602', '10:30'), end: at('20310602', '11:15') },
    ];
    expect(await slotsTaken(overlap, { item: hourly, ...window })).toEqual(
      hours('20310602', '10:00', '11:00'),
    );
    const evening = [
      { kind: 'instants' as const, start: at('20310602', '18:00'), end: at('20310602', '22:00') },
    ];
    expect(await slotsTaken(evening, { item: hourly, ...window })).toEqual([]);
  });

  it('keeps only the window, ignores empty events, and lists each slot once, sorted', async () => {
    const events = [
      { kind: 'dates' as const, first: '20301230', endExclusive: '20310103' },
      { kind: 'dates' as const, first: '20310102', endExclusive: '20310104' },
      { kind: 'dates' as const, first: '20311231', endExclusive: '20320105' },
      { kind: 'instants' as const, start: at('20310301', '10:00'), end: at('20310301', '10:00') },
    ];
    expect(await slotsTaken(events, { item: nightly, ...window })).toEqual([
      '20310101',
      '20310102',
      '20310103',
      '20311231',
    ]);
  });
});

describe('unsellableRuns', () => {
  it('joins sold-out and closed dates into runs, ignores the lead time, and counts what a reader leaves out', async () => {
    const item = makeTenantItem({ unit: 'N', stock: 2, rules: { closed_dates: ['20310110'], lead_days: 5 } });
    const used = new Map([
      ['20310108', 2],
      ['20310109', 2],
      ['20310112', 1],
    ]);
    const runs = unsellableRuns({
      item,
      parts: [],
      first: '20310101',
      last: '20310115',
      timeZone: ZONE,
      stock: (_id, slot) => used.get(slot) ?? 0,
    });
    expect(runs).toEqual([{ kind: 'dates', first: '20310108', last: '20310110' }]);
  });

  it('writes an hourly item as runs of unsellable hours', async () => {
    const sold = new Set([utcHourKey(at('20310602', '10:00')), utcHourKey(at('20310602', '11:00'))]);
    const runs = unsellableRuns({
      item: hourly,
      parts: [],
      first: '20310602',
      last: '20310603',
      timeZone: ZONE,
      stock: (_id, slot) => (sold.has(slot) ? 1 : 0),
    });
    expect(runs).toEqual([{ kind: 'hours', start: at('20310602', '10:00'), end: at('20310602', '12:00') }]);
  });
});
