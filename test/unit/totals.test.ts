import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cartAmounts, lineAmounts, type PricedLine, spreadAmount, sumAmounts } from '#lib/bookings/totals.ts';

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

describe('spreadAmount', () => {
  it.each([
    { amount: 1000, sizes: [8000, 4000, 4000], shares: [500, 250, 250] },
    { amount: 1000, sizes: [4000, 4000, 4000], shares: [333, 334, 333] },
    { amount: 1, sizes: [1, 1], shares: [1, 0] },
    { amount: 0, sizes: [500, 500], shares: [0, 0] },
    { amount: 300, sizes: [100, 200], shares: [100, 200] },
    { amount: 5, sizes: [0, 10, 0], shares: [0, 5, 0] },
    { amount: 7, sizes: [], shares: [] },
  ])('spreads $amount over $sizes as $shares', ({ amount, sizes, shares }) => {
    expect(spreadAmount(amount, sizes)).toEqual(shares);
  });

  it('adds up exactly, stays within a unit of each exact share and never exceeds a part', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000_000_000 }), { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sizes, fraction) => {
          const whole = sizes.reduce((sum, size) => sum + size, 0);
          const amount = Math.floor(whole * fraction);
          const shares = spreadAmount(amount, sizes);
          expect(shares.reduce((sum, share) => sum + share, 0)).toBe(whole ? amount : 0);
          shares.forEach((share, index) => {
            const size = sizes[index] ?? 0;
            expect(share).toBeGreaterThanOrEqual(0);
            expect(share).toBeLessThanOrEqual(size);
            if (whole) expect(Math.abs(share - (amount * size) / whole)).toBeLessThanOrEqual(1);
          });
        },
      ),
    );
  });
});

describe('cartAmounts', () => {
  const ten = { code: 'PADDLE10', type: 'amount' as const, value: '10.00' };
  const kayak = (qty: number, discount: PricedLine['discount'] | null = ten): PricedLine => ({
    item_id: 1,
    qty,
    sub_total: 4000,
    ...(discount ? { discount } : {}),
  });
  const discountOf = (lines: PricedLine[]) => sumAmounts(cartAmounts(lines, taxes, 2)).discount;

  it('takes an amount once for five lines of one kayak, as for one line of five', () => {
    expect(discountOf([kayak(5)])).toBe(1000);
    expect(discountOf([kayak(1), kayak(1), kayak(1), kayak(1), kayak(1)])).toBe(1000);
    expect(
      cartAmounts([kayak(1), kayak(1), kayak(1), kayak(1), kayak(1)], taxes, 2).map((a) => a.discount),
    ).toEqual([200, 200, 200, 200, 200]);
  });

  it('never takes more than the lines that carry the code come to', () => {
    const cheap = { item_id: 2, qty: 1, sub_total: 300, discount: ten };
    expect(cartAmounts([cheap, { ...cheap }], taxes, 2).map((amounts) => amounts.discount)).toEqual([
      300, 300,
    ]);
  });

  it('takes each code on its own, and leaves lines without it alone', () => {
    const five = { code: 'FIVE', type: 'amount' as const, value: '5.00' };
    const amounts = cartAmounts([kayak(1), kayak(1, five), kayak(1, null), kayak(1)], taxes, 2);
    expect(amounts.map((line) => line.discount)).toEqual([500, 500, 0, 500]);
  });

  it('leaves percent discounts per line, as each line alone', () => {
    const tenth = { code: 'TENTH', type: 'percent' as const, value: '10' };
    const lines = [
      kayak(1, tenth),
      kayak(3, tenth),
      { item_id: 2, qty: 1, sub_total: 3335, discount: tenth },
    ];
    expect(cartAmounts(lines, taxes, 2)).toEqual(lines.map((line) => lineAmounts(line, taxes, 2)));
  });

  it('keeps the discount a booked line was charged', () => {
    const booked = [
      { ...kayak(1), discounted: 200 },
      { ...kayak(4), discounted: 800 },
    ];
    expect(cartAmounts(booked, taxes, 2).map((line) => line.discount)).toEqual([200, 800]);
    expect(lineAmounts(booked[1] as PricedLine, taxes, 2).discount).toBe(800);
  });

  it('does not depend on how a cart is split into lines', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 12 }),
        fc.stringMatching(/^[0-9]{1,4}\.[0-9]{2}$/),
        (price, parts, value) => {
          const discount = { code: 'SPLIT', type: 'amount' as const, value };
          const qty = parts.reduce((sum, part) => sum + part, 0);
          const line = (n: number): PricedLine => ({ item_id: 1, qty: n, sub_total: price, discount });
          const whole = discountOf([line(qty)]);
          expect(discountOf(parts.map(line))).toBe(whole);
          expect(discountOf(Array.from({ length: qty }, () => line(1)))).toBe(whole);
          expect(whole).toBe(Math.min(Number(value.replace('.', '')), price * qty));
        },
      ),
    );
  });
});
