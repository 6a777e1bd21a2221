import { describe, expect, it } from 'vitest';
import { lineAmounts, sumAmounts } from '#lib/domain/totals.ts';

const taxes = [
  { tax_id: 'hst', name: 'HST', rate: 13, inclusive: false },
  { tax_id: 'city', name: 'City', rate: 4, inclusive: true, item_ids: [1] },
];

describe('lineAmounts', () => {
  it('multiplies by qty, discounts by percent half-up, then taxes what is left per line', () => {
    const line = lineAmounts(
      { item_id: 1, qty: 3, sub_total: 3335, discount: { type: 'percent', value: '10' } },
      taxes,
      2,
    );
    // 10005 − 1001 (1000.5 rounded up) = 9004; HST 13 % = 1170.52 → 1171; city tax inside 9004 = 346.3 → 346.
    expect(line).toEqual({
      subTotal: 10005,
      discount: 1001,
      tax: 1171,
      taxIncluded: 346,
      total: 10175,
      taxes: { hst: 1171, city: 346 },
    });
  });

  it('never discounts an amount above the line, and applies item-filtered taxes only to their items', () => {
    const line = lineAmounts(
      { item_id: 2, qty: 1, sub_total: 300, discount: { type: 'amount', value: '5.00' } },
      taxes,
      2,
    );
    expect(line).toEqual({
      subTotal: 300,
      discount: 300,
      tax: 0,
      taxIncluded: 0,
      total: 0,
      taxes: { hst: 0 },
    });
  });

  it('adds exclusive taxes to the total and only reports inclusive ones', () => {
    const line = lineAmounts({ item_id: 1, qty: 1, sub_total: 10400 }, taxes, 2);
    expect(line.total).toBe(10400 + 1352);
    expect(line.taxIncluded).toBe(400);
  });
});

describe('sumAmounts', () => {
  it('sums every amount and every tax over the lines', () => {
    const a = lineAmounts({ item_id: 1, qty: 1, sub_total: 1000 }, taxes, 2);
    const b = lineAmounts({ item_id: 2, qty: 2, sub_total: 500 }, taxes, 2);
    expect(sumAmounts([a, b])).toEqual({
      subTotal: 2000,
      discount: 0,
      tax: 260,
      taxIncluded: 38,
      total: 2260,
      taxes: { hst: 260, city: 38 },
    });
  });
});
