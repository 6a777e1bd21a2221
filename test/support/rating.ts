import { type RateItemInput, type RateRequest, rateItem } from '#lib/catalog/rate-item.ts';
import type { TenantItem } from '#lib/config/tenant-schema.ts';
import { makeItem, makeTenant, makeTenantJson } from './tenant.ts';

/** A validated item (defaults filled in) from raw overrides. */
export function makeTenantItem(overrides: Record<string, unknown> = {}): TenantItem {
  const tenant = makeTenant(
    makeTenantJson({
      params: { qty: { lbl: 'Quantity' }, adults: { lbl: 'Adults' }, children: { lbl: 'Children' } },
      items: [makeItem(overrides)],
    }),
  );
  const [item] = tenant.items;
  if (!item) throw new Error('no item');
  return item;
}

/** A fixed "now": 2027-01-04 12:00 in Toronto (a Monday). */
export const NOW = Date.UTC(2027, 0, 4, 17, 0);

/** The date of NOW in Toronto. */
export const TODAY = '20270104';

/** Rates an item with test defaults: Toronto, 2 decimals, no discounts, nothing used. */
export function rate(
  item: TenantItem,
  request: Partial<RateRequest> & { start: string },
  extra: Partial<Omit<RateItemInput, 'item' | 'request'>> = {},
) {
  return rateItem({
    item,
    request: { params: {}, rules: 'on', ...request },
    stock: () => 0,
    tenant: { timeZone: 'America/Toronto', decimals: 2, discounts: [] },
    labels: { qty: 'Quantity', adults: 'Adults', children: 'Children' },
    now: NOW,
    ...extra,
  });
}

/** The slot keys a rating covers, in order. */
export const keys = (result: ReturnType<typeof rate>) => result.slots.map((entry) => entry.slot.key);
/** A nightly cabin for up to four adults and three children, with overrides. */
export const cabin = (overrides: Record<string, unknown> = {}) =>
  makeTenantItem({
    unit: 'N',
    stock: 4,
    params: {
      adults: { price: '60.00', def: 2, req: true, min: 1, max: 4 },
      children: { price: '25.00', max: 3 },
    },
    ...overrides,
  });
/** A daily kayak by the quantity, up to six, with overrides. */
export const kayak = (overrides: Record<string, unknown> = {}) =>
  makeTenantItem({
    unit: 'D',
    stock: 10,
    params: { qty: { price: '45.00', counts_stock: true, def: 1, req: true, max: 6 } },
    ...overrides,
  });
