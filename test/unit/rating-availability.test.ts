import { describe, expect, it } from 'vitest';
import { calendarOf } from '#lib/catalog/calendar.ts';
import { cabin, kayak, makeTenantItem, rate } from '#test/support/rating.ts';

// Rating an item: its rules, stock, packages and calendar. The items: test/support/rating.ts.

describe('rules', () => {
  it('enforces minimum and maximum length unless rules are soft or off', () => {
    const item = cabin({ rules: { min_len: 2, max_len: 3 } });
    expect(rate(item, { start: '20270110' })).toMatchObject({
      status: 'RULE',
      errors: ['Stays are 2 nights at least; choose a later end date'],
    });
    expect(rate(item, { start: '20270110', end: '20270115' }).errors).toEqual([
      'Stays are 3 nights at most; choose an earlier end date',
    ]);
    expect(rate(item, { start: '20270110', rules: 'soft' }).status).toBe('AVAILABLE');
  });

  it('enforces lead time, the past and the advance limit', () => {
    const item = cabin({ rules: { lead_days: 2, advance_days: 30 } });
    expect(rate(item, { start: '20270105' }).errors).toEqual([
      'Book at least 2 days ahead; choose a later date',
    ]);
    expect(rate(cabin(), { start: '20270103' }).errors).toEqual([
      'Dates in the past cannot be booked; choose today or a later date',
    ]);
    expect(rate(item, { start: '20270206' }).errors).toEqual([
      'Book at most 30 days ahead; choose an earlier date',
    ]);
    expect(rate(item, { start: '20270206', rules: 'soft' }).status).toBe('AVAILABLE');
  });

  it('makes closed dates and days unavailable, relaxed by soft', () => {
    const item = cabin({ rules: { closed_dates: ['20270112'], closed_dow: [1] } });
    const result = rate(item, { start: '20270111', end: '20270114' });
    expect(result.status).toBe('UNAVAILABLE');
    expect(result.slots.map((entry) => entry.rate.status)).toEqual(['C', 'C', 'A']);
    expect(rate(item, { start: '20270111', end: '20270114', rules: 'soft' }).status).toBe('AVAILABLE');
  });

  it('checks parameters unless rules are off', () => {
    expect(rate(cabin(), { start: '20270110', params: { adults: 0 } }).errors).toEqual([
      'Adults: choose at least 1',
    ]);
    expect(rate(cabin(), { start: '20270110', params: { adults: 5 } }).errors).toEqual([
      'Adults: choose at most 4',
    ]);
    expect(rate(cabin(), { start: '20270110', params: { adults: 5 }, rules: 'soft' }).status).toBe('RULE');
    expect(rate(cabin(), { start: '20270110', params: { adults: 5 }, rules: 'off' }).status).toBe(
      'AVAILABLE',
    );
  });

  it('never relaxes stock, whatever the rules', () => {
    const result = rate(kayak({ stock: 1 }), { start: '20270110', params: { qty: 2 }, rules: 'off' });
    expect(result.status).toBe('SOLDOUT');
  });

  it('refuses a line that takes no stock at all', () => {
    const tour = makeTenantItem({
      params: {
        adults: { price: '65.00', counts_stock: true },
        children: { price: '35.00', counts_stock: true },
      },
    });
    expect(rate(tour, { start: '20270110', params: { adults: 0, children: 0 }, rules: 'off' }).status).toBe(
      'RULE',
    );
  });
});

describe('stock', () => {
  const used = (map: Record<string, number>) => (_itemId: number, slot: string) => map[slot] ?? 0;

  it('is exactly full at A = units and sold out one over', () => {
    const item = kayak({ stock: 3 });
    const full = rate(item, { start: '20270110', params: { qty: 1 } }, { stock: used({ '20270110': 2 }) });
    expect(full).toMatchObject({ status: 'AVAILABLE', available: 1 });
    expect(full.slots[0]?.rate.stock).toEqual({ T: 3, B: 2, A: 1 });
    const over = rate(item, { start: '20270110', params: { qty: 2 } }, { stock: used({ '20270110': 2 }) });
    expect(over.status).toBe('SOLDOUT');
  });

  it('takes the least availability over the span and per-date overrides of capacity', () => {
    const item = kayak({ stock: 5, stock_overrides: { '20270111': 2 } });
    const result = rate(item, { start: '20270110', end: '20270112' }, { stock: used({ '20270112': 4 }) });
    expect(result.slots.map((entry) => entry.rate.stock)).toEqual([
      { T: 5, B: 0, A: 5 },
      { T: 2, B: 0, A: 2 },
      { T: 5, B: 4, A: 1 },
    ]);
    expect(result.available).toBe(1);
  });

  it('reports A = 0 and T = B + A when a lowered stock leaves B above T', () => {
    const result = rate(kayak({ stock: 2 }), { start: '20270110' }, { stock: used({ '20270110': 3 }) });
    expect(result.slots[0]?.rate.stock).toEqual({ T: 2, B: 3, A: 0 });
    expect(result.status).toBe('SOLDOUT');
  });

  it('never refuses an unlimited item and reports its configured stock', () => {
    const result = rate(
      kayak({ unlimited: true, stock: 50 }),
      { start: '20270110', params: { qty: 6 } },
      { stock: used({ '20270110': 500 }) },
    );
    expect(result).toMatchObject({ status: 'AVAILABLE', available: 50 });
  });

  it('counts a seat per person toward stock', () => {
    const tour = makeTenantItem({
      stock: 12,
      params: {
        adults: { price: '65.00', counts_stock: true, def: 1 },
        children: { price: '35.00', counts_stock: true },
      },
    });
    expect(rate(tour, { start: '20270110', params: { adults: 2, children: 1 } }).units).toBe(3);
    expect(rate(cabin(), { start: '20270110', params: { adults: 2, children: 1 } }).units).toBe(1);
  });
});

describe('packages', () => {
  const tour = makeTenantItem({
    item_id: 2,
    sku: 'tour',
    stock: 5,
    params: { adults: { price: '65.00', counts_stock: true, def: 1 } },
  });
  const extra = makeTenantItem({
    item_id: 3,
    sku: 'extra',
    unlimited: true,
    stock: 99,
    params: { adults: { price: '10.00' } },
  });
  const pack = makeTenantItem({
    item_id: 4,
    sku: 'pack',
    stock: 10,
    params: { adults: { price: '0.00', def: 1 } },
    price: { item: '5.00' },
  });
  const parts = [
    { item: tour, qty: 1, optional: false },
    { item: extra, qty: 1, optional: true },
  ];

  it('prices a package from its required parts and its own price, optional parts only when opted in', () => {
    const result = rate(pack, { start: '20270110', params: { adults: 2 } }, { parts });
    expect(result.subTotal).toBe(500 + 2 * 6500);
    const withExtra = rate(pack, { start: '20270110', params: { adults: 2 }, optIn: [3] }, { parts });
    expect(withExtra.subTotal).toBe(500 + 2 * 6500 + 2 * 1000);
    expect(withExtra.parts.map((part) => part.included)).toEqual([true, true]);
  });

  it('is limited by a nearly sold-out part', () => {
    const stock = (itemId: number) => (itemId === 2 ? 4 : 0);
    expect(rate(pack, { start: '20270110', params: { adults: 1 } }, { parts, stock })).toMatchObject({
      status: 'AVAILABLE',
      available: 1,
    });
    const two = rate(pack, { start: '20270110', params: { adults: 2 } }, { parts, stock });
    expect(two).toMatchObject({ status: 'SOLDOUT', available: 0 });
    expect(two.slots[0]?.rate.stock).toEqual({ T: 10, B: 10, A: 0 });
  });
});

describe('a calendar', () => {
  it('reads a lead time or advance limit that ends past the year 9999 as a booking does', () => {
    // 3,000,000 days from 2027 is the year 10240: a nine-digit date that compares below "2027…" as text.
    const calendarFor = (rules: Record<string, number>) =>
      calendarOf({
        item: cabin({ rules }),
        first: '20270110',
        last: '20270111',
        today: '20270104',
        timeZone: 'America/Toronto',
        stock: () => 0,
      });
    expect(calendarFor({ advance_days: 3_000_000 })).toEqual({ '20270110': 4, '20270111': 4 });
    expect(rate(cabin({ rules: { advance_days: 3_000_000 } }), { start: '20270110' }).errors).toEqual([]);
    expect(calendarFor({ lead_days: 3_000_000 })).toEqual({ '20270110': 0, '20270111': 0 });
    expect(rate(cabin({ rules: { lead_days: 3_000_000 } }), { start: '20270110' }).errors).toEqual([
      'Book at least 3000000 days ahead; choose a later date',
    ]);
  });

  it('closes what a booking would refuse: before the lead time, past the advance limit, closed days', () => {
    // Monday 4 January 2027: bookable from the 6th (2 days' lead) to the 9th (5 days ahead), both
    // included, never on the 7th nor on a Friday (the 8th).
    const item = cabin({
      rules: { lead_days: 2, advance_days: 5, closed_dates: ['20270107'], closed_dow: [5] },
    });
    const calendar = calendarOf({
      item,
      first: '20270103',
      last: '20270111',
      today: '20270104',
      timeZone: 'America/Toronto',
      stock: (itemId, slot) => (itemId === item.item_id && slot === '20270109' ? 3 : 0),
    });
    expect(calendar).toEqual({
      '20270103': 0,
      '20270104': 0,
      '20270105': 0,
      '20270106': 4,
      '20270107': 0,
      '20270108': 0,
      '20270109': 1,
      '20270110': 0,
      '20270111': 0,
    });
  });
  it("counts both of an hourly item's repeated hours where the clocks go back", () => {
    // London's 31 October: open 01:00 to 02:00 is two hours, 00 and 01 UTC. The second is taken.
    const board = makeTenantItem({ unit: 'H', stock: 1, hours: { open: '01:00', close: '02:00' } });
    const calendar = calendarOf({
      item: board,
      first: '20271031',
      last: '20271031',
      today: '20271001',
      timeZone: 'Europe/London',
      stock: (_, slot) => (slot === '20271031T01Z' ? 1 : 0),
    });
    expect(calendar).toEqual({ '20271031': 1 });
  });
});
