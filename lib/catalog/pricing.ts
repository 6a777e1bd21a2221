import type { Tenant, TenantItem } from '../config/index.ts';
import { dayOfWeek, type Ymd } from '../kernel/dates.ts';
import { percentOf, toMinor } from '../kernel/money.ts';

/** Whether a date lies in an optional inclusive window. */
export const inWindow = (date: Ymd, start?: Ymd, end?: Ymd): boolean =>
  (start === undefined || date >= start) && (end === undefined || date <= end);

/** An item's prices in minor units, parsed once: base prices, then each tenant rate's. */
interface ItemPrices {
  decimals: number;
  base: [string, number][];
  item?: number;
  rates: { start?: Ymd; end?: Ymd; dow?: number[]; param: [string, number][]; item?: number }[];
}

const parsedPrices = new WeakMap<TenantItem, ItemPrices>();

/** The item's prices in minor units, kept with the item (items are never changed once read). */
function pricesOf(item: TenantItem, decimals: number): ItemPrices {
  const kept = parsedPrices.get(item);
  if (kept?.decimals === decimals) return kept;
  const prices: ItemPrices = {
    decimals,
    base: Object.entries(item.params).map(([id, param]) => [id, toMinor(param.price, decimals)]),
    ...(item.price.item !== undefined ? { item: toMinor(item.price.item, decimals) } : {}),
    rates: item.rates.map((rate) => ({
      ...(rate.start_date !== undefined ? { start: rate.start_date } : {}),
      ...(rate.end_date !== undefined ? { end: rate.end_date } : {}),
      ...(rate.dow ? { dow: rate.dow } : {}),
      param: Object.entries(rate.price.param).map(([id, amount]) => [id, toMinor(amount, decimals)]),
      ...(rate.price.item !== undefined ? { item: toMinor(rate.price.item, decimals) } : {}),
    })),
  };
  parsedPrices.set(item, prices);
  return prices;
}

/**
 * The prices of one slot's date: base prices, each overridden by the last matching tenant rate that
 * sets it. `sources` says which rate (1-based) priced each parameter; the base price has none.
 */
export function pricesOn(
  item: TenantItem,
  date: Ymd,
  decimals: number,
): { price: Record<string, number>; rate: number; sources: Record<string, number> } {
  const prices = pricesOf(item, decimals);
  const price: Record<string, number> = {};
  const sources: Record<string, number> = {};
  for (const [id, amount] of prices.base) price[id] = amount;
  if (prices.item !== undefined) price._item = prices.item;
  let applied = 0;
  prices.rates.forEach((rate, index) => {
    if (!inWindow(date, rate.start, rate.end)) return;
    if (rate.dow && !rate.dow.includes(dayOfWeek(date))) return;
    applied = index + 1;
    for (const [id, amount] of rate.param) {
      price[id] = amount;
      sources[id] = index + 1;
    }
    if (rate.item !== undefined) {
      price._item = rate.item;
      sources._item = index + 1;
    }
  });
  return { price, rate: applied, sources };
}

/** What one slot costs: each price times its parameter's quantity, the per-item price once. */
export function slotTotal(price: Record<string, number>, quantities: Record<string, number>): number {
  let sum = 0;
  for (const id in price) sum += (price[id] ?? 0) * (id === '_item' ? 1 : (quantities[id] ?? 0));
  return sum;
}

/**
 * A discount code applied to a line's subtotal (minor units): the amount off and the code, or why it does
 * not apply, in a guest's words.
 */
export const applyDiscount = (options: {
  item: TenantItem;
  /** The first date of the span the code must cover. */
  start: Ymd;
  subTotal: number;
  code: string | undefined;
  tenant: { discounts: Tenant['discounts']; decimals: number };
}): { discount: number; code?: string; error?: string } => {
  const { item, subTotal, tenant } = options;
  if (!options.code) return { discount: 0 };
  const code = options.code.trim().toUpperCase();
  const found = tenant.discounts.find((discount) => discount.code === code);
  if (!found) return { discount: 0, error: `Discount code ${code} is not valid; check it or leave it out` };
  if (!inWindow(options.start, found.start_date, found.end_date)) {
    return {
      discount: 0,
      error: `Discount code ${code} does not apply to these dates; choose other dates or leave it out`,
    };
  }
  if (found.item_ids && !found.item_ids.includes(item.item_id)) {
    return { discount: 0, error: `Discount code ${code} does not apply to ${item.name}; leave it out` };
  }
  const discount =
    found.type === 'percent'
      ? percentOf(subTotal, found.value)
      : Math.min(toMinor(found.value, tenant.decimals), subTotal);
  return { discount, code };
};
