import type { Tenant } from '../config/tenant-schema.ts';
import { percentOf, toMinor } from '../core/money.ts';

/** The money of one line, in minor units. */
export interface LineAmounts {
  subTotal: number;
  discount: number;
  /** Exclusive taxes, added to the total. */
  tax: number;
  /** Inclusive taxes, reported only. */
  taxIncluded: number;
  total: number;
  /** Each tax of the line by tax id, in minor units. */
  taxes: Record<string, number>;
}

/** What a line's money is computed from. */
export interface PricedLine {
  item_id: number;
  qty: number;
  /** Minor units per one of `qty`, before discount. */
  sub_total: number;
  discount?: { type: 'percent' | 'amount'; value: string };
}

/**
 * A line's money: sub_total × qty, the discount on it (a percentage half-up, or an amount never above the
 * line), then each tax on what is left, rounded half-up per line; exclusive taxes are added, inclusive
 * ones only reported.
 */
export function lineAmounts(line: PricedLine, taxes: Tenant['taxes'], decimals: number): LineAmounts {
  const subTotal = line.sub_total * line.qty;
  const discount = !line.discount
    ? 0
    : line.discount.type === 'percent'
      ? percentOf(subTotal, line.discount.value)
      : Math.min(subTotal, toMinor(line.discount.value, decimals));
  const taxable = subTotal - discount;
  let tax = 0;
  let taxIncluded = 0;
  const byTax: Record<string, number> = {};
  for (const entry of taxes) {
    if (entry.item_ids && !entry.item_ids.includes(line.item_id)) continue;
    // An inclusive tax is the part of the price that is tax: price × r / (100 + r), half-up.
    const amount = entry.inclusive
      ? Math.floor((2 * taxable * entry.rate + (100 + entry.rate)) / (2 * (100 + entry.rate)))
      : percentOf(taxable, entry.rate);
    byTax[entry.tax_id] = amount;
    if (entry.inclusive) taxIncluded += amount;
    else tax += amount;
  }
  return { subTotal, discount, tax, taxIncluded, total: taxable + tax, taxes: byTax };
}

/** The totals of several lines: each amount summed over the lines. */
export function sumAmounts(amounts: LineAmounts[]): LineAmounts {
  return amounts.reduce(
    (sum, line) => {
      const taxes = { ...sum.taxes };
      for (const [id, amount] of Object.entries(line.taxes)) taxes[id] = (taxes[id] ?? 0) + amount;
      return {
        subTotal: sum.subTotal + line.subTotal,
        discount: sum.discount + line.discount,
        tax: sum.tax + line.tax,
        taxIncluded: sum.taxIncluded + line.taxIncluded,
        total: sum.total + line.total,
        taxes,
      };
    },
    { subTotal: 0, discount: 0, tax: 0, taxIncluded: 0, total: 0, taxes: {} as Record<string, number> },
  );
}
