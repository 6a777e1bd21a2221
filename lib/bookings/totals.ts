import type { Tenant } from '../config/index.ts';
import { type LineAmounts, percentOf, toMinor } from '../kernel/money.ts';

/** What a line's money is computed from. */
export interface PricedLine {
  item_id: number;
  qty: number;
  /** Minor units per one of `qty`, before discount. */
  sub_total: number;
  discount?: { code?: string; type: 'percent' | 'amount'; value: string };
  /** The discount fixed for the line when it was booked (minor units); a booking's lines never change it. */
  discounted?: number;
}

/**
 * The discount of a line on its own: the one fixed when it was booked, else a percentage half-up or an
 * amount, never above the line.
 */
const ownDiscount = (line: PricedLine, decimals: number): number => {
  const subTotal = line.sub_total * line.qty;
  if (line.discounted !== undefined) return Math.min(subTotal, Math.max(0, line.discounted));
  if (!line.discount) return 0;
  return line.discount.type === 'percent'
    ? percentOf(subTotal, line.discount.value)
    : Math.min(subTotal, toMinor(line.discount.value, decimals));
};

/**
 * A line's money: sub_total × qty, its discount (`discount` when given, as `cartAmounts` works it out,
 * else the line's own), then each tax on what is left, rounded half-up per line; exclusive taxes are
 * added, inclusive ones only reported.
 */
export function lineAmounts(
  line: PricedLine,
  taxes: Tenant['taxes'],
  decimals: number,
  discount: number = ownDiscount(line, decimals),
): LineAmounts {
  const subTotal = line.sub_total * line.qty;
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

/**
 * Splits `amount` over parts in proportion to their sizes, in the order given: each share is the
 * half-up rounding of the running total less the shares before it, so the shares add up to `amount`
 * exactly, none is negative, and none exceeds its part when `amount` does not exceed their sum.
 */
export function spreadAmount(amount: number, sizes: readonly number[]): number[] {
  const whole = sizes.reduce((sum, size) => sum + size, 0);
  if (whole <= 0) return sizes.map(() => 0);
  const total = BigInt(amount);
  const denominator = BigInt(whole);
  let running = 0n;
  let given = 0;
  return sizes.map((size) => {
    running += BigInt(size);
    const upTo = Number((2n * total * running + denominator) / (2n * denominator));
    const share = upTo - given;
    given = upTo;
    return share;
  });
}

/**
 * The money of a cart's lines, in the order given. A percentage discount is each line's own; an amount
 * discount is taken once per cart for the lines that carry its code (on the same terms), never more than
 * those lines come to, and spread over them in proportion to what each comes to (`spreadAmount`), so the
 * discount does not depend on how the cart is split into lines. A booked line keeps the discount it was
 * booked with.
 */
export function cartAmounts(
  lines: readonly PricedLine[],
  taxes: Tenant['taxes'],
  decimals: number,
): LineAmounts[] {
  const discounts = lines.map((line) => ownDiscount(line, decimals));
  const groups = new Map<string, number[]>();
  lines.forEach((line, index) => {
    if (line.discounted !== undefined || line.discount?.type !== 'amount') return;
    // A line without a code (stored before codes were kept on lines) is a group of its own.
    const key = line.discount.code ? `${line.discount.code}|${line.discount.value}` : `#${index}`;
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  for (const members of groups.values()) {
    const first = lines[members[0] as number] as PricedLine;
    const sizes = members.map((index) => {
      const line = lines[index] as PricedLine;
      return line.sub_total * line.qty;
    });
    const amount = Math.min(
      toMinor(first.discount?.value ?? '0', decimals),
      sizes.reduce((sum, size) => sum + size, 0),
    );
    spreadAmount(amount, sizes).forEach((share, position) => {
      discounts[members[position] as number] = share;
    });
  }
  return lines.map((line, index) => lineAmounts(line, taxes, decimals, discounts[index]));
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

/** A booked line's money: as it was sold when the booking kept it, else worked out at the given rates. */
export const bookedAmounts = (
  line: PricedLine & { amounts?: LineAmounts | undefined },
  taxes: Tenant['taxes'],
  decimals: number,
): LineAmounts => line.amounts ?? lineAmounts(line, taxes, decimals);
