import { describe, expect, it } from 'vitest';
import { calendarOf } from '#lib/catalog/calendar.ts';
import { partsOf } from '#lib/catalog/catalog.ts';
import type { StoredItem } from '#lib/config/model.ts';
import { catalogOf, DAY, used } from '#test/support/capacity.ts';
import { rate, TODAY } from '#test/support/rating.ts';

// Package availability without DynamoDB (issue 11, point 4): a package's A as the least
// floor(A_part / units per package) over its required parts, capped by its own stock. Items:
// item-capacity.test.ts.

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
