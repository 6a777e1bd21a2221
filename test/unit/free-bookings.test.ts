import { describe, expect, it } from 'vitest';
import { NOTHING_FOR_NOTHING } from '#lib/catalog/rate-item.ts';
import { makeTenantItem, rate } from '#test/support/rating.ts';

// A line of nobody at no charge (a cabin priced per guest, asked for no guests) held a unit for free.
const perGuest = () =>
  makeTenantItem({
    unit: 'N',
    stock: 2,
    params: { adults: { price: '60.00', def: 2 }, children: { price: '25.00', def: 0 } },
  });
const nobody = { adults: 0, children: 0 };
const FREE = { tenant: { timeZone: 'America/Toronto', decimals: 2, discounts: [], allowFreeBookings: true } };

describe('a line of nobody at no charge', () => {
  it('is a RULE, with no price to pay and the reason, unless the tenant allows free bookings', () => {
    const refused = rate(perGuest(), { start: '20270301', end: '20270303', params: nobody });
    expect(refused.status).toBe('RULE');
    expect(refused.errors).toEqual([NOTHING_FOR_NOTHING]);
    expect(refused.total).toBe(0);
    const allowed = rate(perGuest(), { start: '20270301', end: '20270303', params: nobody }, FREE);
    expect(allowed.status).toBe('AVAILABLE');
    expect(allowed.total).toBe(0);
  });

  it('is refused under rules=off too: it is not a rule staff relax but what a booking is', () => {
    const offRules = rate(perGuest(), { start: '20270301', end: '20270303', params: nobody, rules: 'off' });
    expect(offRules.status).toBe('RULE');
  });

  it.each([
    ['a guest at a price', { adults: 1, children: 0 }, {}, 6000],
    ['the item’s own price for nobody (a suite by the night)', nobody, { price: { item: '220.00' } }, 22_000],
    [
      'seats of a free tour (price 0 with people)',
      { adults: 2, children: 0 },
      { params: { adults: { price: '0.00', counts_stock: true, def: 1 } } },
      0,
    ],
    ['an item without parameters at price 0 (the item itself)', {}, { params: {} }, 0],
  ])('does not catch %s', (_, params, overrides, total) => {
    const item = makeTenantItem({
      unit: 'N',
      stock: 2,
      params: { adults: { price: '60.00', def: 2 }, children: { price: '25.00', def: 0 } },
      ...overrides,
    });
    const rated = rate(item, { start: '20270301', end: '20270302', params });
    expect(rated.status, rated.errors.join()).toBe('AVAILABLE');
    expect(rated.total).toBe(total);
  });

  it('gives one reason when a rule already refuses the line (a required guest)', () => {
    const required = makeTenantItem({
      unit: 'N',
      params: { adults: { price: '60.00', def: 2, req: true, min: 1 }, children: { price: '25.00' } },
    });
    expect(rate(required, { start: '20270301', params: nobody }).errors).toEqual([
      'Adults: choose at least 1',
    ]);
  });

  it('says once, by label, to choose at least 1 for an item whose parameters count stock', () => {
    const seats = makeTenantItem({ params: { adults: { price: '0.00', counts_stock: true, def: 1 } } });
    const rated = rate(seats, { start: '20270301', params: { adults: 0 } });
    expect(rated.status).toBe('RULE');
    expect(rated.errors).toEqual(['Adults: choose at least 1']);
  });
});
