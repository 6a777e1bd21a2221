import { describe, expect, it } from 'vitest';
import { partsOf, ratingTenant } from '#lib/catalog/catalog.ts';
import { rateItem } from '#lib/catalog/rate-item.ts';
import type { StoredConfig, StoredItem } from '#lib/config/model.ts';
import { countOf, datesInWords, localeTag, unitCount, waitOf } from '#lib/kernel/guest-words.ts';
import { addLines, sessionActorOf } from '#lib/sessions/lines.ts';
import { coolingDown, holdLimitCounter, unavailableCounter } from '#lib/sessions/refusals.ts';
import type { SessionLine } from '#lib/sessions/repository.ts';
import type { SlipPayload } from '#lib/slip/codec.ts';
import { cabin, kayak, makeTenantItem, rate } from '#test/support/rating.ts';
import { demoTenantJson, makeTenant } from '#test/support/tenant.ts';

// The words a guest reads (issue 32): plurals, dates in the tenant's locale, lists capped, and a reason
// for every refused item, packages included. NOW in test/support/rating.ts is Monday 4 January 2027.

const words = (id: string, today = '20261101') => ({ locale: localeTag(id), today });

describe('counts', () => {
  it.each([
    [1, 'N', '1 night'],
    [2, 'N', '2 nights'],
    [1, 'D', '1 day'],
    [2, 'D', '2 days'],
    [1, 'H', '1 hour'],
    [2, 'H', '2 hours'],
  ] as const)('counts %i of unit %s as "%s"', (count, unit, text) => {
    expect(unitCount(unit, count)).toBe(text);
  });

  it('counts other nouns and waits the same way', () => {
    expect([countOf(1, 'cart'), countOf(3, 'cart'), countOf(0, 'unpaid booking')]).toEqual([
      '1 cart',
      '3 carts',
      '0 unpaid bookings',
    ]);
    expect([waitOf(1), waitOf(45), waitOf(60), waitOf(61), waitOf(7200)]).toEqual([
      '1 second',
      '45 seconds',
      '1 minute',
      '2 minutes',
      '2 hours',
    ]);
  });
});

describe('dates in words', () => {
  it.each([
    ['en_CA', 'Thursday, December 24 and Friday, December 25'],
    ['en_GB', 'Thursday 24 December and Friday 25 December'],
    ['fr_CA', 'jeudi 24 décembre and vendredi 25 décembre'],
  ])('names dates in %s: %s', (locale, text) => {
    expect(datesInWords(['20261225', '20261224', '20261224'], words(locale))).toBe(text);
  });

  it('adds the year to a date outside this month and the next 11, in either direction', () => {
    expect(datesInWords(['20271031'], words('en_CA'))).toBe('Sunday, October 31');
    expect(datesInWords(['20271101'], words('en_CA'))).toBe('Monday, November 1, 2027');
    expect(datesInWords(['20261031'], words('en_CA'))).toBe('Saturday, October 31, 2026');
    expect(datesInWords(['20270104'], words('fr_CA'))).toBe('lundi 4 janvier');
    expect(datesInWords(['20280104'], words('en_GB'))).toBe('Tuesday, 4 January 2028');
  });

  it('never shifts a date by the time zone of the process or the tenant', () => {
    expect(datesInWords(['20270101'], words('en_CA', '20261231'))).toBe('Friday, January 1');
  });

  it('names four dates, and of more names three and counts the rest', () => {
    const december = ['20261201', '20261202', '20261203', '20261204'];
    expect(datesInWords(december, words('en_CA'))).toBe(
      'Tuesday, December 1, Wednesday, December 2, Thursday, December 3 and Friday, December 4',
    );
    const sixty = Array.from({ length: 60 }, (_, index) => `202612${String(index + 1).padStart(2, '0')}`);
    expect(datesInWords(sixty.slice(0, 31), words('en_GB'))).toBe(
      'Tuesday 1 December, Wednesday 2 December, Thursday 3 December and 28 more dates',
    );
  });
});

describe('rated items say why, in guest words', () => {
  it.each([
    [{ min_len: 2 }, { start: '20270110' }, 'Stays are 2 nights at least; choose a later end date'],
    [
      { min_len: 3, max_len: 5 },
      { start: '20270110' },
      'Stays are 3 nights at least; choose a later end date',
    ],
    [
      { max_len: 1 },
      { start: '20270110', end: '20270112' },
      'Stays are 1 night at most; choose an earlier end date',
    ],
    [{ lead_days: 1 }, { start: '20270104' }, 'Book at least 1 day ahead; choose a later date'],
    [{ advance_days: 1 }, { start: '20270110' }, 'Book at most 1 day ahead; choose an earlier date'],
    [
      { closed_dates: ['20270112', '20270111'] },
      { start: '20270110', end: '20270114' },
      'Closed on Monday, January 11 and Tuesday, January 12; choose other dates',
    ],
    [
      { closed_dates: ['20280111'] },
      { start: '20280111' },
      'Closed on Tuesday, January 11, 2028; choose other dates',
    ],
  ])('refuses a cabin with rules %j for %j: "%s"', (rules, span, text) => {
    expect(rate(cabin({ rules }), span).errors).toEqual([text]);
  });

  it('counts a daily item in days and an hourly one in hours', () => {
    expect(rate(kayak({ rules: { min_len: 2 } }), { start: '20270110' }).errors).toEqual([
      'Bookings are 2 days at least; choose a later end date',
    ]);
    const board = makeTenantItem({
      unit: 'H',
      hours: { open: '08:00', close: '20:00' },
      rules: { max_len: 1 },
    });
    expect(rate(board, { start: '20270110', startTime: 600, endTime: 720 }).errors).toEqual([
      'Bookings are 1 hour at most; choose an earlier end time',
    ]);
  });

  it('asks for times when an hourly item is rated without them', () => {
    const board = makeTenantItem({ unit: 'H', hours: { open: '08:00', close: '20:00' } });
    expect(rate(board, { start: '20270110' }).errors).toEqual(['Choose a start and end time for this item']);
  });

  it('names parameters by their labels and says how many to choose', () => {
    const errors = rate(cabin(), { start: '20270110', params: { adults: 0, children: 4 } }).errors;
    expect(errors).toEqual(['Adults: choose at least 1', 'Children: choose at most 3']);
  });

  it('says how many are left, or that none are, and what to do', () => {
    const full = (left: number) =>
      rate(kayak(), { start: '20270110', params: { qty: 2 } }, { stock: () => 10 - left }).errors;
    expect([full(0), full(1)]).toEqual([
      ['Sold out for these dates; try other dates'],
      ['Only 1 left for these dates; choose fewer'],
    ]);
  });
});

describe('a package on the demo tenant', () => {
  const demo = makeTenant(demoTenantJson());
  const config = { ...demo, updated_at: 0 } as unknown as StoredConfig;
  const all = demo.items as StoredItem[];
  const getaway = all.find((item) => item.item_id === 8) as StoredItem;
  // 1 November 2026, noon in Toronto: Christmas is this year's, named without a year.
  const now = Date.UTC(2026, 10, 1, 17);
  const rateGetaway = (start: string, end: string, used = 0) =>
    rateItem({
      item: getaway,
      parts: partsOf(getaway, all),
      request: { start, end, params: { adults: 2 }, rules: 'on' },
      stock: (itemId) => (itemId === 1 ? used : 0),
      tenant: ratingTenant(config),
      labels: { adults: 'Adults', children: 'Children', qty: 'Quantity' },
      now,
    });

  it('says at Christmas that its cabin is closed, naming the dates in the tenant locale', () => {
    const rated = rateGetaway('20261223', '20261227');
    expect(rated.status).toBe('UNAVAILABLE');
    expect(rated.errors).toEqual([
      'Lakeside Cabin is closed on Thursday, December 24 and Friday, December 25; choose other dates',
    ]);
  });

  it('says its cabin is sold out, rather than only that the package is', () => {
    const rated = rateGetaway('20261110', '20261112', 99);
    expect(rated.status).toBe('SOLDOUT');
    expect(rated.errors).toEqual([
      'Lakeside Cabin is sold out on Tuesday, November 10 and Wednesday, November 11; try other dates',
    ]);
  });

  it('refuses a SLIP for those dates in the cart with the same words, in details and data', () => {
    const payload = {
      tenant: 'demo',
      itemId: 8,
      start: '20261223',
      end: '20261227',
      params: { adults: 2 },
      expiresAt: Math.floor(now / 1000) + 3600,
    } as SlipPayload;
    const session = { id: 'session-1', status: 'open', version: 0, created_at: now, updated_at: now };
    const ctx = { config, now, actor: sessionActorOf({ kind: 'customer' }, '203.0.113.1') };
    const text =
      'Lakeside Cabin is closed on Thursday, December 24 and Friday, December 25; choose other dates';
    expect(() =>
      addLines(ctx, {
        session: { ...session, expires_at: 0, next_line: 1, lines: {}, holds: {} } as never,
        all,
        slips: ['s1.x'],
        payloads: [payload],
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'unavailable',
        message: text,
        data: expect.objectContaining({ reason: text }),
      }),
    );
  });
});

describe('hold refusals on the demo tenant', () => {
  const demo = makeTenant(demoTenantJson());
  const config = { ...demo, updated_at: 0 } as unknown as StoredConfig;
  const now = Date.UTC(2026, 10, 1, 17);
  // Line 1 is the package (its cabin is a part), line 2 the paddleboard by the hour.
  const at = {
    owners: { '1|20261224': '1', '5|20261115T15Z': '2' },
    lines: {
      '1': {
        item_id: 8,
        name: 'Cabin & Breakfast Getaway',
        parts: { '1': { item_id: 1, name: 'Lakeside Cabin' } },
      },
      '2': { item_id: 5, name: 'Stand-up Paddleboard', parts: {} },
    } as unknown as Record<string, SessionLine>,
    config,
    now,
  };

  it.each([
    [
      () => unavailableCounter('1|20261224', at),
      'Not enough of Lakeside Cabin is left on Thursday, December 24; choose fewer or other dates',
    ],
    [
      () => holdLimitCounter('5|20261115T15Z', at, { allowance: 2 }),
      'You can hold at most 2 of Stand-up Paddleboard on Sunday, November 15 at 10:00; choose fewer',
    ],
    [
      () => holdLimitCounter('1|20261224', at, { sessions: 1 }),
      'You already have 1 cart holding items; book or empty one first',
    ],
    [
      () => coolingDown('1|20261224', at, { until: 1_000_090, now: 1_000_000 }),
      'You let Lakeside Cabin on Thursday, December 24 go unbooked a moment ago; you can hold it again in 2 minutes',
    ],
  ])('words a refusal for the guest (%#)', (refuse, text) => {
    const refusal = refuse();
    expect(refusal.message).toBe(text);
    expect(refusal.data).toMatchObject({ line: expect.any(String), date: expect.stringMatching(/^\d{8}$/) });
  });
});
