import { describe, expect, it } from 'vitest';
import { formatAmount, percentOf, toMinor } from '#lib/core/money.ts';
import { calendarOf } from '#lib/rating/calendar.ts';
import { makeTenantItem, NOW, rate } from '#test/support/rating.ts';

const keys = (result: ReturnType<typeof rate>) => result.slots.map((entry) => entry.slot.key);
const cabin = (overrides: Record<string, unknown> = {}) =>
  makeTenantItem({
    unit: 'N',
    stock: 4,
    params: {
      adults: { price: '60.00', def: 2, req: true, min: 1, max: 4 },
      children: { price: '25.00', max: 3 },
    },
    ...overrides,
  });
const kayak = (overrides: Record<string, unknown> = {}) =>
  makeTenantItem({
    unit: 'D',
    stock: 10,
    params: { qty: { price: '45.00', counts_stock: true, def: 1, req: true, max: 6 } },
    ...overrides,
  });

describe('spans', () => {
  it('counts nights [start, end) and days inclusively', () => {
    expect(keys(rate(cabin(), { start: '20270105', end: '20270107' }))).toEqual(['20270105', '20270106']);
    expect(keys(rate(kayak(), { start: '20270105', end: '20270107' }))).toEqual([
      '20270105',
      '20270106',
      '20270107',
    ]);
  });

  it('reads date alone as one night or one day', () => {
    expect(keys(rate(cabin(), { start: '20270105' }))).toEqual(['20270105']);
    expect(keys(rate(cabin(), { start: '20270105', end: '20270105' }))).toEqual(['20270105']);
    expect(keys(rate(kayak(), { start: '20270105' }))).toEqual(['20270105']);
    expect(rate(cabin(), { start: '20270105' }).span?.end).toBe('20270106');
  });

  it('crosses a leap day and a year end', () => {
    expect(keys(rate(cabin(), { start: '20280228', end: '20280301' }))).toEqual(['20280228', '20280229']);
    expect(keys(rate(kayak(), { start: '20280228', end: '20280301' }))).toEqual([
      '20280228',
      '20280229',
      '20280301',
    ]);
    expect(keys(rate(cabin(), { start: '20271230', end: '20280102' }))).toEqual([
      '20271230',
      '20271231',
      '20280101',
    ]);
  });

  it('counts the real hours of both DST change days', () => {
    const board = makeTenantItem({
      unit: 'H',
      stock: 6,
      hours: { open: '00:00', close: '23:00' },
      params: { qty: { price: '20.00', counts_stock: true, def: 1 } },
    });
    const spring = rate(
      board,
      { start: '20270314', startTime: 60, endTime: 240 },
      { now: Date.UTC(2027, 2, 1) },
    );
    expect(spring.slots.map((entry) => entry.slot.label)).toEqual([
      '2027-03-14T01:00-05:00',
      '2027-03-14T03:00-04:00',
    ]);
    expect(keys(spring)).toEqual(['20270314T06Z', '20270314T07Z']);
    expect(spring.subTotal).toBe(4000);
    const autumn = rate(
      board,
      { start: '20271107', startTime: 60, endTime: 240 },
      { now: Date.UTC(2027, 9, 1) },
    );
    expect(autumn.slots.map((entry) => entry.slot.label)).toEqual([
      '2027-11-07T01:00-04:00',
      '2027-11-07T01:00-05:00',
      '2027-11-07T02:00-05:00',
      '2027-11-07T03:00-05:00',
    ]);
    expect(autumn.subTotal).toBe(8000);
    // East of UTC too: the repeated hour is a slot of its own (it had been lost where TZDate took the later
    // reading of the opening time).
    const london = rate(
      board,
      { start: '20271031', startTime: 60, endTime: 240 },
      { now: Date.UTC(2027, 9, 1), tenant: { timeZone: 'Europe/London', decimals: 2, discounts: [] } },
    );
    expect(london.slots.map((entry) => entry.slot.label)).toEqual([
      '2027-10-31T01:00+01:00',
      '2027-10-31T01:00+00:00',
      '2027-10-31T02:00+00:00',
      '2027-10-31T03:00+00:00',
    ]);
    const sydney = rate(
      board,
      { start: '20270404', startTime: 120, endTime: 240 },
      { now: Date.UTC(2027, 2, 1), tenant: { timeZone: 'Australia/Sydney', decimals: 2, discounts: [] } },
    );
    expect(sydney.slots.map((entry) => entry.slot.label)).toEqual([
      '2027-04-04T02:00+11:00',
      '2027-04-04T02:00+10:00',
      '2027-04-04T03:00+10:00',
    ]);
    expect(sydney.subTotal).toBe(6000);
  });

  it('refuses an hourly item without times, or with part hours', () => {
    const board = makeTenantItem({ unit: 'H', hours: { open: '08:00', close: '20:00' } });
    expect(rate(board, { start: '20270110' })).toMatchObject({
      status: 'UNAVAILABLE',
      errors: ['Hourly items need start_time and end_time'],
    });
    expect(rate(board, { start: '20270110', startTime: 600, endTime: 630 }).status).toBe('UNAVAILABLE');
  });
});

describe('prices', () => {
  it('sums each date price times its quantity', () => {
    const result = rate(cabin(), { start: '20270105', end: '20270108', params: { adults: 2, children: 1 } });
    expect(result.subTotal).toBe(3 * (2 * 6000 + 2500));
    expect(result.slots.every((entry) => entry.rate.subTotal === 14500)).toBe(true);
  });

  it('uses the default quantity of a parameter not sent', () => {
    expect(rate(cabin(), { start: '20270105' }).quantities).toEqual({ adults: 2, children: 0 });
  });

  it('adds a per-item price under _item', () => {
    const loft = cabin({ params: { adults: { price: '0.00', def: 2 } }, price: { item: '220.00' } });
    const result = rate(loft, { start: '20270105', end: '20270107' });
    expect(result.slots[0]?.rate.price).toEqual({ adults: 0, _item: 22000 });
    expect(result.subTotal).toBe(44000);
  });

  it('prices each night of a span crossing a season edge by its own rate, and reports the event', () => {
    const item = cabin({
      rates: [
        {
          name: 'Winter',
          start_date: '20270101',
          end_date: '20270110',
          price: { param: { adults: '50.00' } },
        },
      ],
    });
    const result = rate(item, { start: '20270109', end: '20270112', params: { adults: 2 } });
    expect(result.slots.map((entry) => entry.rate.price.adults)).toEqual([5000, 5000, 6000]);
    expect(result.slots.map((entry) => entry.rate.rate)).toEqual([1, 1, 0]);
    expect(result.subTotal).toBe(2 * 5000 * 2 + 2 * 6000);
    expect(result.events).toEqual([{ adults: { amount: 5000, days: 2 } }]);
  });

  it('applies a weekend rate on its days of the week, the last matching rate winning', () => {
    const item = cabin({
      rates: [
        { name: 'Weekend', dow: [5, 6], price: { param: { adults: '75.00' } } },
        { name: 'Saturday special', dow: [6], price: { param: { adults: '70.00' } } },
      ],
    });
    const result = rate(item, { start: '20270107', end: '20270110', params: { adults: 1 } });
    expect(result.slots.map((entry) => [entry.rate.dow, entry.rate.price.adults])).toEqual([
      [4, 6000],
      [5, 7500],
      [6, 7000],
    ]);
    expect(result.events).toEqual([
      { adults: { amount: 7500, days: 1 } },
      { adults: { amount: 7000, days: 1 } },
    ]);
  });
});

describe('discounts', () => {
  const discounts = [
    { code: 'TEN', name: 'Ten', type: 'percent' as const, value: '10' },
    { code: 'FIVE', name: 'Five', type: 'amount' as const, value: '5.00', item_ids: [1] },
    {
      code: 'JUNE',
      name: 'June',
      type: 'percent' as const,
      value: '50',
      start_date: '20270601',
      end_date: '20270630',
    },
  ];
  const tenant = { timeZone: 'America/Toronto', decimals: 2, discounts };

  it('takes a percentage per line, rounded half-up, and reports it apart from sub_total', () => {
    const item = kayak({ params: { qty: { price: '10.05', counts_stock: true, def: 1 } } });
    const result = rate(item, { start: '20270105', discountCode: 'ten' }, { tenant });
    expect(result.subTotal).toBe(1005);
    expect(result.discount).toBe(101);
    expect(result.total).toBe(904);
    expect(result.discountCode).toBe('TEN');
  });

  it('takes an amount, never more than the line', () => {
    const result = rate(kayak(), { start: '20270105', discountCode: 'FIVE' }, { tenant });
    expect(result.discount).toBe(500);
  });

  it('explains an unknown, out-of-window or other-item code and leaves the price undiscounted', () => {
    for (const [code, message] of [
      ['NOPE', 'Discount code NOPE is not valid'],
      ['JUNE', 'Discount code JUNE is not valid for these dates'],
    ]) {
      const result = rate(kayak(), { start: '20270105', discountCode: code }, { tenant });
      expect(result).toMatchObject({ discount: 0, discountError: message, status: 'AVAILABLE' });
    }
    const other = rate(
      kayak({ item_id: 2, sku: 'two' }),
      { start: '20270105', discountCode: 'FIVE' },
      { tenant },
    );
    expect(other.discountError).toMatch(/does not apply/);
  });
});

describe('rules', () => {
  it('enforces minimum and maximum length unless rules are soft or off', () => {
    const item = cabin({ rules: { min_len: 2, max_len: 3 } });
    expect(rate(item, { start: '20270110' })).toMatchObject({
      status: 'RULE',
      errors: ['Minimum stay is 2 nights'],
    });
    expect(rate(item, { start: '20270110', end: '20270115' }).errors).toEqual(['Maximum stay is 3 nights']);
    expect(rate(item, { start: '20270110', rules: 'soft' }).status).toBe('AVAILABLE');
  });

  it('enforces lead time, the past and the advance limit', () => {
    const item = cabin({ rules: { lead_days: 2, advance_days: 30 } });
    expect(rate(item, { start: '20270105' }).errors).toEqual(['Book at least 2 days ahead']);
    expect(rate(cabin(), { start: '20270103' }).errors).toEqual(['Dates in the past cannot be booked']);
    expect(rate(item, { start: '20270206' }).errors).toEqual(['Bookable at most 30 days ahead']);
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
      'Adults: at least 1 required',
    ]);
    expect(rate(cabin(), { start: '20270110', params: { adults: 5 } }).errors).toEqual(['Adults: at most 4']);
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

describe('money', () => {
  it('parses and writes decimal amounts exactly', () => {
    expect(toMinor('40', 2)).toBe(4000);
    expect(toMinor('40.5', 2)).toBe(4050);
    expect(toMinor('0.07', 2)).toBe(7);
    expect(toMinor('1000', 0)).toBe(1000);
    expect(() => toMinor('1.005', 2)).toThrow();
    expect(formatAmount(13000, 2)).toBe('130.00');
    expect(formatAmount(5, 2)).toBe('0.05');
    expect(formatAmount(1000, 0)).toBe('1000');
  });

  it('rounds percentages half-up', () => {
    expect(percentOf(1005, '10')).toBe(101);
    expect(percentOf(1004, '10')).toBe(100);
    expect(percentOf(10000, '7.5')).toBe(750);
    expect(percentOf(333, '13')).toBe(43);
  });

  it('uses an injected clock only', () => {
    expect(rate(cabin(), { start: '20270104' }, { now: NOW }).errors).toEqual([]);
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
      'Book at least 3000000 days ahead',
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
