import { describe, expect, it } from 'vitest';
import { calendarOf } from '#lib/catalog/calendar.ts';
import type { StoredItem } from '#lib/config/model.ts';
import { catalogOf, DAY, used } from '#test/support/capacity.ts';
import { rate, TODAY } from '#test/support/rating.ts';

// Capacity without DynamoDB (issue 11, point 4): T, B and A per slot of an item, and of an hourly item in a
// calendar. Packages: package-capacity.test.ts.

/** An hourly item with 2 units, open from 08:00 to `close`. */
const boardOpenUntil = (close: string): StoredItem =>
  catalogOf({
    item_id: 1,
    sku: 'board',
    unit: 'H',
    stock: 2,
    hours: { open: '08:00', close },
  })[0] as StoredItem;

describe('capacity of an item', () => {
  const kayak = (overrides: Record<string, unknown> = {}) =>
    catalogOf({ item_id: 1, sku: 'kayak', stock: 3, ...overrides })[0] as StoredItem;
  const tour = (overrides: Record<string, unknown> = {}) =>
    catalogOf({
      item_id: 1,
      sku: 'tour',
      stock: 5,
      params: {
        adults: { price: '65.00', counts_stock: true, def: 1 },
        children: { price: '35.00', counts_stock: true },
      },
      ...overrides,
    })[0] as StoredItem;

  it.each([
    ['nothing is used', kayak(), 0, { qty: 1 }, 'AVAILABLE', { T: 3, B: 0, A: 3 }],
    [
      'the line takes exactly what is left (A = units)',
      kayak(),
      2,
      { qty: 1 },
      'AVAILABLE',
      { T: 3, B: 2, A: 1 },
    ],
    ['the line takes one more than is left', kayak(), 2, { qty: 2 }, 'SOLDOUT', { T: 3, B: 2, A: 1 }],
    ['the counter is exactly full (A = 0)', kayak(), 3, { qty: 1 }, 'SOLDOUT', { T: 3, B: 3, A: 0 }],
    ['the counter is one over its capacity', kayak(), 4, { qty: 1 }, 'SOLDOUT', { T: 3, B: 4, A: 0 }],
    ['the stock is 0', kayak({ stock: 0 }), 0, { qty: 1 }, 'SOLDOUT', { T: 0, B: 0, A: 0 }],
    [
      'the date has a higher override',
      kayak({ stock_overrides: { [DAY]: 5 } }),
      4,
      { qty: 1 },
      'AVAILABLE',
      { T: 5, B: 4, A: 1 },
    ],
    [
      'the date is overridden to 0',
      kayak({ stock_overrides: { [DAY]: 0 } }),
      0,
      { qty: 1 },
      'SOLDOUT',
      { T: 0, B: 0, A: 0 },
    ],
    [
      'another date is overridden',
      kayak({ stock_overrides: { '20270111': 0 } }),
      0,
      { qty: 3 },
      'AVAILABLE',
      { T: 3, B: 0, A: 3 },
    ],
    [
      'two counting parameters sum to A',
      tour(),
      2,
      { adults: 2, children: 1 },
      'AVAILABLE',
      { T: 5, B: 2, A: 3 },
    ],
    [
      'two counting parameters sum to A + 1',
      tour(),
      2,
      { adults: 2, children: 2 },
      'SOLDOUT',
      { T: 5, B: 2, A: 3 },
    ],
    [
      'an unlimited item is used past its stock and asked for more than it',
      kayak({ unlimited: true }),
      100,
      { qty: 6 },
      'AVAILABLE',
      { T: 3, B: 0, A: 3 },
    ],
    [
      'an unlimited item has a stock of 0',
      kayak({ unlimited: true, stock: 0 }),
      0,
      { qty: 1 },
      'AVAILABLE',
      { T: 0, B: 0, A: 0 },
    ],
    [
      'an unlimited item has an override',
      kayak({ unlimited: true, stock_overrides: { [DAY]: 7 } }),
      0,
      { qty: 1 },
      'AVAILABLE',
      { T: 7, B: 0, A: 7 },
    ],
  ])('rates a day when %s', (_case, item, booked, params, status, stock) => {
    const result = rate(item, { start: DAY, params }, { stock: used({ [`1|${DAY}`]: booked }) });
    expect(result.status).toBe(status);
    expect(result.slots[0]?.rate.stock).toEqual(stock);
    expect(result.available).toBe(stock.A);
  });

  it.each([
    [0, 'Sold out for these dates; try other dates'],
    [1, 'Only 1 left for these dates; choose fewer'],
    [2, 'Only 2 left for these dates; choose fewer'],
  ])('explains a sold-out line with A = %i: %s', (left, message) => {
    const result = rate(
      kayak(),
      { start: DAY, params: { qty: 3 } },
      { stock: used({ [`1|${DAY}`]: 3 - left }) },
    );
    expect(result.errors).toEqual([message]);
  });

  it.each([
    // 10:00 to 12:00 in Toronto in January: the counters 15Z and 16Z.
    ['a free hour and an hour with one left', { '1|20270110T16Z': 1 }, 'AVAILABLE', 1],
    ['a free hour and a full hour', { '1|20270110T16Z': 2 }, 'SOLDOUT', 0],
    ['an hour outside the span full', { '1|20270110T17Z': 2 }, 'AVAILABLE', 2],
  ])('rates an hourly span with %s by its least hour', (_case, byCounter, status, available) => {
    const result = rate(
      boardOpenUntil('20:00'),
      { start: DAY, startTime: 600, endTime: 720 },
      { stock: used(byCounter) },
    );
    expect(result).toMatchObject({ status, available });
  });
});

describe('an hourly item in a calendar', () => {
  const board = boardOpenUntil('11:00');

  it.each([
    ['every hour free', {}, 2],
    [
      'one hour with one left, the others full',
      { '1|20270110T13Z': 2, '1|20270110T14Z': 1, '1|20270110T15Z': 2 },
      1,
    ],
    ['every opening hour full', { '1|20270110T13Z': 2, '1|20270110T14Z': 2, '1|20270110T15Z': 2 }, 0],
    [
      'only an hour outside its opening free',
      { '1|20270110T13Z': 2, '1|20270110T14Z': 2, '1|20270110T15Z': 2, '1|20270110T16Z': 0 },
      0,
    ],
  ])('shows its best hour when %s', (_case, byCounter, available) => {
    const calendar = calendarOf({
      item: board,
      first: DAY,
      last: DAY,
      today: TODAY,
      timeZone: 'America/Toronto',
      stock: used(byCounter),
    });
    expect(calendar).toEqual({ [DAY]: available });
  });
});
