import { describe, expect, it } from 'vitest';
import { calendarOf } from '#lib/catalog/calendar.ts';
import { partsOf } from '#lib/catalog/catalog.ts';
import type { StockLookup } from '#lib/catalog/rate-item.ts';
import type { TenantItem } from '#lib/config/tenant-schema.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { rate } from '#test/support/rating.ts';
import { makeCatalog } from '#test/support/tenant.ts';
import { wallClockOf } from '#test/support/wall-clock.ts';

// Calendars against the rules as stated, by an independent reference (an adversarial review's, stop 24):
// a date is bookable on or after today + lead_days, on or before today + advance_days, and not on a closed
// date or weekday; a daily item shows its units left, an hourly one its best opening hour, a package what
// its required parts allow at their default quantities. Over month, year, leap-day and DST edges.

const utc = (ymd: string) => Date.UTC(+ymd.slice(0, 4), +ymd.slice(4, 6) - 1, +ymd.slice(6, 8));
const ymdOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const daysApart = (a: string, b: string) => Math.round((utc(b) - utc(a)) / 86_400_000);
const allDates = (first: string, last: string) => {
  const out: string[] = [];
  for (let n = 0; n <= daysApart(first, last); n += 1) out.push(ymdOf(utc(first) + n * 86_400_000));
  return out;
};

const bookable = (item: TenantItem, date: string, today: string): boolean => {
  const { lead_days: lead = 0, advance_days: advance, closed_dates: dates, closed_dow: dows } = item.rules;
  const offset = daysApart(today, date);
  if (offset < lead) return false;
  if (advance !== undefined && offset > advance) return false;
  if (dates.includes(date)) return false;
  return !dows.includes(new Date(utc(date)).getUTCDay());
};

const localHM = (ms: number, timeZone: string) => {
  const wall = wallClockOf(ms, timeZone);
  return { ymd: ymdOf(wall), minutes: (wall % 86_400_000) / 60_000 };
};

/**
 * The instants (15-minute grid) whose local date is `date` and local time a whole hour that can be booked:
 * on or after `open`, ending by `close` (rating books whole hours only).
 */
const hourStarts = new Map<string, number[]>();
const openingInstants = (date: string, open: number, close: number, timeZone: string): number[] => {
  const key = `${date}|${open}|${close}|${timeZone}`;
  const kept = hourStarts.get(key);
  if (kept) return kept;
  const out: number[] = [];
  for (let ms = utc(date) - 15 * 3_600_000; ms < utc(date) + 39 * 3_600_000; ms += 900_000) {
    const local = localHM(ms, timeZone);
    if (local.ymd !== date || local.minutes < open || local.minutes + 60 > close) continue;
    if (local.minutes % 60 === 0) out.push(ms);
  }
  hourStarts.set(key, out);
  return out;
};

/** Units left on a date: the day counter, or the best UTC hour whose local start is within opening hours. */
const leftOn = (item: TenantItem, date: string, timeZone: string, stock: StockLookup): number => {
  const cap = (item.stock_overrides[date] ?? item.stock) as number;
  const left = (key: string) => (item.unlimited ? cap : Math.max(0, cap - stock(item.item_id, key)));
  if (item.unit !== 'H' || !item.hours) return left(date);
  const open = +item.hours.open.slice(0, 2) * 60 + +item.hours.open.slice(3, 5);
  const close = +item.hours.close.slice(0, 2) * 60 + +item.hours.close.slice(3, 5);
  let best = 0;
  for (const ms of openingInstants(date, open, close, timeZone)) {
    const key = `${new Date(ms).toISOString().slice(0, 13).replaceAll('-', '')}Z`;
    best = Math.max(best, left(key));
  }
  return best;
};

const reference = (
  item: TenantItem,
  parts: { item: TenantItem; qty: number; optional: boolean }[],
  first: string,
  last: string,
  today: string,
  timeZone: string,
  stock: StockLookup,
) => {
  const out: Record<string, number> = {};
  for (const date of allDates(first, last)) {
    if (!bookable(item, date, today)) {
      out[date] = 0;
      continue;
    }
    let limit = Number.POSITIVE_INFINITY;
    for (const part of parts.filter((entry) => !entry.optional)) {
      const counting = Object.values(part.item.params).filter((param) => param.counts_stock);
      const def = counting.length ? counting.reduce((sum, param) => sum + (param.def ?? 0), 0) : 1;
      const per = part.qty * def;
      limit = Math.min(
        limit,
        per > 0 && bookable(part.item, date, today)
          ? Math.floor(leftOn(part.item, date, timeZone, stock) / per)
          : 0,
      );
    }
    const own = leftOn(item, date, timeZone, stock);
    out[date] = limit === Number.POSITIVE_INFINITY ? own : item.unlimited ? limit : Math.min(own, limit);
  }
  return out;
};

/** A deterministic pseudo-random usage per counter, so dates differ. */
const noisy =
  (seed: number): StockLookup =>
  (itemId, slot) => {
    let h = seed ^ itemId;
    for (const c of slot) h = Math.imul(h ^ c.charCodeAt(0), 2654435761) >>> 0;
    return h % 4;
  };

const diff = (got: Record<string, number>, want: Record<string, number>) =>
  Object.keys({ ...got, ...want })
    .filter((date) => got[date] !== want[date])
    .map((date) => `${date}: got ${got[date]} want ${want[date]}`);

describe('calendars against the rules', () => {
  const todays = [
    '20271229',
    '20271231',
    '20280101',
    '20280131',
    '20280226',
    '20280228',
    '20280229',
    '20280301',
    '20270310',
    '20270314',
    '20271028',
    '20271105',
    '20271107',
    '20260101',
    '20291231',
  ];
  const rulesets = [
    { closed_dates: [], closed_dow: [] },
    { lead_days: 0, advance_days: 1, closed_dates: [], closed_dow: [] },
    { lead_days: 1, advance_days: 2, closed_dates: ['20280229', '20280101'], closed_dow: [0] },
    { lead_days: 2, closed_dates: ['20271231'], closed_dow: [6] },
    { lead_days: 30, advance_days: 59, closed_dates: [], closed_dow: [1, 3] },
    { advance_days: 365, closed_dates: ['20290228'], closed_dow: [] },
    { lead_days: 366, advance_days: 366, closed_dates: [], closed_dow: [] },
  ];

  // Thousands of ratings: 10 s alone, past 30 s on two cores shared with the browser tests (CI, 26 Nov).
  it('daily, nightly and hourly items agree with the rules over month, year, leap and DST edges', {
    timeout: 120_000,
  }, () => {
    const problems: string[] = [];
    for (const [r, rules] of rulesets.entries()) {
      const catalog = makeCatalog(
        { item_id: 1, sku: 'day', stock: 3, rules },
        { item_id: 2, sku: 'night', unit: 'N', stock: 3, rules },
        { item_id: 3, sku: 'hour', unit: 'H', stock: 3, hours: { open: '01:00', close: '04:00' }, rules },
        { item_id: 4, sku: 'hour2', unit: 'H', stock: 3, hours: { open: '00:30', close: '23:30' }, rules },
      );
      for (const today of todays) {
        for (const item of catalog) {
          // Zones west and east of UTC and one with a 45-minute offset, each changing its clocks in range; UTC.
          for (const tz of ['America/Toronto', 'Europe/London', 'Pacific/Chatham', 'UTC']) {
            const first = addDays(today, -3);
            const last = addDays(first, 100);
            const stock = noisy(r * 31 + item.item_id);
            const got = calendarOf({ item, first, last, today, timeZone: tz, stock });
            const want = reference(item, [], first, last, today, tz, stock);
            for (const line of diff(got, want).slice(0, 3))
              problems.push(`${item.sku} ${tz} today ${today} rules ${r}: ${line}`);
            if (item.unit === 'D' && tz === 'America/Toronto') {
              // a booking of that date must be refused exactly where the calendar says 0 for an empty stock
              const empty = calendarOf({ item, first, last, today, timeZone: tz, stock: () => 0 });
              const now = Date.UTC(+today.slice(0, 4), +today.slice(4, 6) - 1, +today.slice(6, 8), 17);
              for (const date of Object.keys(empty).filter((_, n) => n % 7 === 0 || n < 5)) {
                const rated = rate(item, { start: date, params: { qty: 1 } }, { now });
                if ((rated.status === 'AVAILABLE') !== (empty[date] as number) > 0)
                  problems.push(
                    `rate/cal disagree ${item.sku} today ${today} rules ${r} ${date}: ${rated.status} vs ${empty[date]}`,
                  );
              }
            }
          }
        }
      }
    }
    expect(problems.slice(0, 20)).toEqual([]);
  });

  it('packages whose parts have their own windows, hours and closed days', () => {
    const problems: string[] = [];
    const catalog = makeCatalog(
      {
        item_id: 2,
        sku: 'tour',
        stock: 9,
        params: { qty: { price: '1.00', counts_stock: true, def: 2 } },
        rules: { lead_days: 3, advance_days: 10, closed_dates: ['20280229'], closed_dow: [6] },
      },
      {
        item_id: 3,
        sku: 'boat',
        stock: 7,
        params: { adults: { price: '1.00', def: 1 } },
        rules: { advance_days: 20, closed_dates: [], closed_dow: [0] },
      },
      { item_id: 5, sku: 'opt', stock: 1, rules: { lead_days: 100, closed_dates: [], closed_dow: [] } },
      {
        item_id: 6,
        sku: 'free',
        unlimited: true,
        stock: 4,
        rules: { advance_days: 5, closed_dates: [], closed_dow: [] },
      },
      {
        item_id: 4,
        sku: 'pack',
        stock: 5,
        rules: { lead_days: 1, advance_days: 15, closed_dates: ['20280101'], closed_dow: [] },
        package: {
          items: [
            { item_id: 2, qty: 1 },
            { item_id: 3, qty: 2 },
            { item_id: 5, qty: 1, optional: true },
            { item_id: 6, qty: 1 },
          ],
        },
      },
      {
        item_id: 7,
        sku: 'upack',
        unlimited: true,
        stock: 0,
        rules: { closed_dates: [], closed_dow: [] },
        package: {
          items: [
            { item_id: 2, qty: 1 },
            { item_id: 3, qty: 1 },
          ],
        },
      },
      {
        item_id: 8,
        sku: 'hboat',
        unit: 'H',
        stock: 5,
        hours: { open: '01:00', close: '05:00' },
        rules: { lead_days: 2, advance_days: 12, closed_dates: ['20271107'], closed_dow: [] },
      },
      {
        item_id: 9,
        sku: 'hguide',
        unit: 'H',
        stock: 4,
        hours: { open: '03:00', close: '04:00' },
        params: { adults: { price: '1.00', def: 1 } },
        rules: { closed_dates: [], closed_dow: [2] },
      },
      {
        item_id: 10,
        sku: 'hpack',
        unit: 'H',
        stock: 6,
        hours: { open: '00:00', close: '06:00' },
        rules: { advance_days: 30, closed_dates: [], closed_dow: [] },
        package: {
          items: [
            { item_id: 8, qty: 1 },
            { item_id: 9, qty: 1 },
          ],
        },
      },
    );
    for (const name of ['pack', 'upack', 'hpack']) {
      const item = catalog.find((entry) => entry.sku === name) as TenantItem;
      const parts = partsOf(item as never, catalog as never) as {
        item: TenantItem;
        qty: number;
        optional: boolean;
      }[];
      for (const today of todays) {
        for (const tz of ['America/Toronto', 'Europe/London']) {
          const first = addDays(today, -2);
          const last = addDays(today, 40);
          for (const seed of [0, 1, 2]) {
            const stock = seed === 0 ? () => 0 : noisy(seed);
            const got = calendarOf({ item, parts, first, last, today, timeZone: tz, stock });
            const want = reference(item, parts, first, last, today, tz, stock);
            for (const line of diff(got, want).slice(0, 3))
              problems.push(`${name} ${tz} today ${today} seed ${seed}: ${line}`);
          }
        }
      }
    }
    expect(problems.slice(0, 20)).toEqual([]);
  });
});
