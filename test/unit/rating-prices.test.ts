import { describe, expect, it } from 'vitest';
import { formatAmount, percentOf, toMinor } from '#lib/kernel/money.ts';
import { cabin, kayak, keys, makeTenantItem, NOW, rate } from '#test/support/rating.ts';

// Rating an item: the span it covers, its prices, discounts and money. The items: test/support/rating.ts.

const labelsOf = (result: ReturnType<typeof rate>) => result.slots.map((entry) => entry.slot.label);

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
    expect(labelsOf(spring)).toEqual(['2027-03-14T01:00-05:00', '2027-03-14T03:00-04:00']);
    expect(keys(spring)).toEqual(['20270314T06Z', '20270314T07Z']);
    expect(spring.subTotal).toBe(4000);
    const autumn = rate(
      board,
      { start: '20271107', startTime: 60, endTime: 240 },
      { now: Date.UTC(2027, 9, 1) },
    );
    expect(labelsOf(autumn)).toEqual([
      '2027-11-07T01:00-04:00',
      '2027-11-07T01:00-05:00',
      '2027-11-07T02:00-05:00',
      '2027-11-07T03:00-05:00',
    ]);
    expect(autumn.subTotal).toBe(8000);
    // East of UTC too: the repeated hour is a slot of its own (it had been lost where TZDate took the later
    // reading of the opening time).
    const rateIn = (timeZone: string, start: string, startTime: number, now: number) =>
      rate(
        board,
        { start, startTime, endTime: 240 },
        { now, tenant: { timeZone, decimals: 2, discounts: [] } },
      );
    const london = rateIn('Europe/London', '20271031', 60, Date.UTC(2027, 9, 1));
    expect(labelsOf(london)).toEqual([
      '2027-10-31T01:00+01:00',
      '2027-10-31T01:00+00:00',
      '2027-10-31T02:00+00:00',
      '2027-10-31T03:00+00:00',
    ]);
    const sydney = rateIn('Australia/Sydney', '20270404', 120, Date.UTC(2027, 2, 1));
    expect(labelsOf(sydney)).toEqual([
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
      errors: ['Choose a start and end time for this item'],
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
      ['NOPE', 'Discount code NOPE is not valid; check it or leave it out'],
      ['JUNE', 'Discount code JUNE does not apply to these dates; choose other dates or leave it out'],
    ]) {
      const result = rate(kayak(), { start: '20270105', discountCode: code }, { tenant });
      expect(result).toMatchObject({ discount: 0, discountError: message, status: 'AVAILABLE' });
    }
    const other = rate(
      kayak({ item_id: 2, sku: 'two' }),
      { start: '20270105', discountCode: 'FIVE' },
      { tenant },
    );
    expect(other.discountError).toBe('Discount code FIVE does not apply to Kayak; leave it out');
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
