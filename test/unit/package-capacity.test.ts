import { describe, expect, it } from 'vitest';
import { counterId } from '#lib/db/stock-repository.ts';
import type { StoredItem } from '#lib/db/tenant-repository.ts';
import { partsOf } from '#lib/domain/catalog.ts';
import { calendarOf } from '#lib/rating/calendar.ts';
import type { StockLookup } from '#lib/rating/rate-item.ts';
import { rate } from '#test/support/rating.ts';
import { makeCatalog } from '#test/support/tenant.ts';

// Capacity and package availability without DynamoDB (issue 11, point 4): T, B and A per slot, and a
// package's A as the least floor(A_part / units per package) over its required parts, capped by its own
// stock.

const catalogOf = (...items: Record<string, unknown>[]): StoredItem[] => makeCatalog(...items);

/** Counter usage (B) by counter id, `<item>|<slot>`; counters not listed are unused. */
const used =
  (byCounter: Record<string, number> = {}): StockLookup =>
  (itemId, slot) =>
    byCounter[counterId(itemId, slot)] ?? 0;

/** An hourly item with 2 units, open from 08:00 to `close`. */
const boardOpenUntil = (close: string): StoredItem =>
  catalogOf({
    item_id: 1,
    sku: 'board',
    unit: 'H',
    stock: 2,
    hours: { open: '08:00', close },
  })[0] as StoredItem;

const TODAY = '20270104';
const DAY = '20270110';

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
    [0, 'Sold out for these dates'],
    [1, 'Only 1 available'],
    [2, 'Only 2 available'],
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

describe('package availability', () => {
  // A day package: 2 tour seats per person (adults and children count on the tour), a guide who counts
  // nothing, an unlimited hamper and an optional bike per adult; its own stock is 6.
  const catalog = catalogOf(
    {
      item_id: 2,
      sku: 'tour',
      stock: 10,
      params: {
        adults: { price: '65.00', counts_stock: true, def: 1 },
        children: { price: '35.00', counts_stock: true },
      },
    },
    { item_id: 3, sku: 'guide', stock: 4, params: { adults: { price: '0.00' } } },
    { item_id: 5, sku: 'bike', stock: 8, params: { adults: { price: '35.00', counts_stock: true } } },
    { item_id: 6, sku: 'hamper', unlimited: true, stock: 50, params: { adults: { price: '18.00' } } },
    {
      item_id: 4,
      sku: 'pack',
      stock: 6,
      params: { adults: { price: '0.00', def: 1 }, children: { price: '0.00' } },
      package: {
        items: [
          { item_id: 2, qty: 2 },
          { item_id: 3, qty: 1 },
          { item_id: 6, qty: 1 },
          { item_id: 5, qty: 1, optional: true },
        ],
      },
    },
    {
      item_id: 7,
      sku: 'open-pack',
      unlimited: true,
      stock: 0,
      params: { adults: { price: '0.00', def: 1 } },
      package: { items: [{ item_id: 2, qty: 1 }] },
    },
    {
      item_id: 8,
      sku: 'hamper-pack',
      stock: 6,
      params: { adults: { price: '0.00', def: 1 } },
      package: { items: [{ item_id: 6, qty: 3 }] },
    },
  );
  const itemNamed = (sku: string): StoredItem => {
    const item = catalog.find((entry) => entry.sku === sku);
    if (!item) throw new Error(`no item ${sku}`);
    return item;
  };
  const ratePackage = (
    sku: string,
    params: Record<string, number>,
    byCounter: Record<string, number> = {},
    optIn: number[] = [],
  ) => {
    const item = itemNamed(sku);
    return rate(
      item,
      { start: DAY, params, optIn },
      { parts: partsOf(item, catalog), stock: used(byCounter) },
    );
  };

  it.each([
    // [case, params, used, optIn, A]; A = min(6 − B_pack, ⌊A_tour / (2 × persons)⌋, ⌊A_guide / 1⌋).
    ['the guide limits it: min(6, ⌊10/2⌋, 4)', { adults: 1 }, {}, [], 4],
    ['the tour limits it: min(6, ⌊10/4⌋, 4)', { adults: 2 }, {}, [], 2],
    ['children count on the tour too: ⌊10/4⌋', { adults: 1, children: 1 }, {}, [], 2],
    ['a tour part has exactly one package left: ⌊2/2⌋', { adults: 1 }, { [`2|${DAY}`]: 8 }, [], 1],
    ['a tour part has one unit less than a package: ⌊1/2⌋', { adults: 1 }, { [`2|${DAY}`]: 9 }, [], 0],
    ['a tour part has 2 packages and 1 unit left: ⌊5/2⌋', { adults: 1 }, { [`2|${DAY}`]: 5 }, [], 2],
    ['the guide is full', { adults: 1 }, { [`3|${DAY}`]: 4 }, [], 0],
    ['its own stock caps it at one', { adults: 1 }, { [`4|${DAY}`]: 5 }, [], 1],
    ['its own stock is full', { adults: 1 }, { [`4|${DAY}`]: 6 }, [], 0],
    ['the optional bike is sold out and not chosen', { adults: 1 }, { [`5|${DAY}`]: 8 }, [], 4],
    ['the optional bike is sold out and chosen', { adults: 1 }, { [`5|${DAY}`]: 8 }, [5], 4],
    ['the unlimited hamper is used past its stock', { adults: 1 }, { [`6|${DAY}`]: 500 }, [], 4],
  ])('gives a package the least its required parts allow when %s', (_case, params, byCounter, optIn, A) => {
    const result = ratePackage('pack', params, byCounter, optIn);
    expect(result.available).toBe(A);
    expect(result.status).toBe(A >= 1 ? 'AVAILABLE' : 'SOLDOUT');
  });

  it('reports a package T as its own stock and B as what it cannot take', () => {
    expect(ratePackage('pack', { adults: 2 }).slots[0]?.rate.stock).toEqual({ T: 6, B: 4, A: 2 });
  });

  it.each([
    ['a tour part with 5 seats left and 2 per package', { adults: 2 }, { [`2|${DAY}`]: 5 }, 'AVAILABLE', 2],
    ['a tour part with 1 seat left and 2 per package', { adults: 2 }, { [`2|${DAY}`]: 9 }, 'SOLDOUT', 0],
    ['a tour part with 1 seat left and 1 per package', { adults: 1 }, { [`2|${DAY}`]: 9 }, 'AVAILABLE', 1],
  ])('limits an unlimited package only by its parts: %s', (_case, params, byCounter, status, A) => {
    const result = ratePackage('open-pack', params, byCounter);
    expect(result.status).toBe(status);
    expect(result.slots[0]?.rate.stock).toEqual({ T: A, B: 0, A });
  });

  it.each([
    // [case, used, status, A]: 2 adults take 2 of the package's own stock and 2 tour seats per line.
    ['both have room', {}, 'AVAILABLE', 10],
    ['the tour has exactly one line left', { [`2|${DAY}`]: 8 }, 'AVAILABLE', 2],
    ['the tour has one seat less than a line', { [`2|${DAY}`]: 9 }, 'SOLDOUT', 0],
    ['its own stock has exactly one line left', { [`9|${DAY}`]: 8 }, 'AVAILABLE', 2],
    ['its own stock has one unit less than a line', { [`9|${DAY}`]: 9 }, 'SOLDOUT', 1],
  ])(
    'counts a package whose own parameters count in its own units when %s',
    (_case, byCounter, status, A) => {
      const pack = catalogOf(
        { item_id: 2, sku: 'tour', stock: 10, params: { adults: { price: '65.00', counts_stock: true } } },
        {
          item_id: 9,
          sku: 'counted-pack',
          stock: 10,
          params: { adults: { price: '0.00', counts_stock: true } },
          package: { items: [{ item_id: 2, qty: 1 }] },
        },
      );
      const item = pack[1] as StoredItem;
      const result = rate(
        item,
        { start: DAY, params: { adults: 2 } },
        { parts: partsOf(item, pack), stock: used(byCounter) },
      );
      expect(result).toMatchObject({ status, available: A });
    },
  );

  it('caps a package of an unlimited part by its own stock alone', () => {
    // ⌊50 / 3⌋ = 16 from the hamper's configured stock, whatever is used; 6 of its own.
    const result = ratePackage('hamper-pack', { adults: 1 }, { [`6|${DAY}`]: 1000 });
    expect(result).toMatchObject({ status: 'AVAILABLE', available: 6 });
  });

  it.each([
    ['nothing is used', {}, 4],
    ['a tour part has exactly one package left', { [`2|${DAY}`]: 8 }, 1],
    ['a tour part has one unit less than a package', { [`2|${DAY}`]: 9 }, 0],
    ['its own stock caps it', { [`4|${DAY}`]: 5 }, 1],
    ['the optional bike is sold out', { [`5|${DAY}`]: 8 }, 4],
  ])('shows in a calendar, at default quantities, what a package allows when %s', (_case, byCounter, A) => {
    const item = itemNamed('pack');
    const calendar = calendarOf({
      item,
      parts: partsOf(item, catalog),
      first: DAY,
      last: DAY,
      today: TODAY,
      timeZone: 'America/Toronto',
      stock: used(byCounter),
    });
    expect(calendar).toEqual({ [DAY]: A });
  });

  it.each([
    ['an unlimited package', 'open-pack', { [`2|${DAY}`]: 7 }, 3],
    ['a package of an unlimited part', 'hamper-pack', { [`6|${DAY}`]: 1000 }, 6],
    ['an unlimited item', 'hamper', { [`6|${DAY}`]: 1000 }, 50],
  ])('shows in a calendar %s by the same rules', (_case, sku, byCounter, A) => {
    const item = itemNamed(sku);
    const calendar = calendarOf({
      item,
      parts: partsOf(item, catalog),
      first: DAY,
      last: DAY,
      today: TODAY,
      timeZone: 'America/Toronto',
      stock: used(byCounter),
    });
    expect(calendar).toEqual({ [DAY]: A });
  });
});
