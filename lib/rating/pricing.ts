import type { TenantItem } from '../config/tenant-schema.ts';
import { dayOfWeek, type Ymd } from '../core/dates.ts';
import { toMinor } from '../core/money.ts';

/** Whether a date lies in an optional inclusive window. */
export const inWindow = (date: Ymd, start?: Ymd, end?: Ymd): boolean =>
  (start === undefined || date >= start) && (end === undefined || date <= end);

/**
 * The prices of one slot's date: base prices, each overridden by the last matching tenant rate that
 * sets it. `sources` says which rate (1-based) priced each parameter; the base price has none.
 */
export function pricesOn(
  item: TenantItem,
  date: Ymd,
  decimals: number,
): { price: Record<string, number>; rate: number; sources: Record<string, number> } {
  const price: Record<string, number> = {};
  const sources: Record<string, number> = {};
  for (const [id, param] of Object.entries(item.params)) price[id] = toMinor(param.price, decimals);
  if (item.price.item !== undefined) price._item = toMinor(item.price.item, decimals);
  let applied = 0;
  item.rates.forEach((rate, index) => {
    if (!inWindow(date, rate.start_date, rate.end_date)) return;
    if (rate.dow && !rate.dow.includes(dayOfWeek(date))) return;
    applied = index + 1;
    for (const [id, amount] of Object.entries(rate.price.param)) {
      price[id] = toMinor(amount, decimals);
      sources[id] = index + 1;
    }
    if (rate.price.item !== undefined) {
      price._item = toMinor(rate.price.item, decimals);
      sources._item = index + 1;
    }
  });
  return { price, rate: applied, sources };
}

/** What one slot costs: each price times its parameter's quantity, the per-item price once. */
export const slotTotal = (price: Record<string, number>, quantities: Record<string, number>): number =>
  Object.entries(price).reduce(
    (sum, [id, amount]) => sum + amount * (id === '_item' ? 1 : (quantities[id] ?? 0)),
    0,
  );
