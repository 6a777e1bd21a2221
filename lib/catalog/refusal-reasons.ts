import type { TenantItem } from '../config/index.ts';
import type { Ymd } from '../kernel/dates.ts';
import { type DateWords, datesInWords, listInWords } from '../kernel/guest-words.ts';
import type { Slot, Span } from './span.ts';

// Why a rated item is refused, in a guest's words: too little left, nothing chosen, a package's parts.

/** The reason an item without enough stock is refused: how many are left, or none, and what to do. */
export const soldOutReason = (span: Span, available: number): string => {
  const when = span.unit === 'H' ? 'these times' : 'these dates';
  return available > 0
    ? `Only ${available} left for ${when}; choose fewer`
    : `Sold out for ${when}; try other ${span.unit === 'H' ? 'times' : 'dates'}`;
};

/** The reason a line that counts nobody toward stock is refused, by the labels of what counts. */
export const nothingChosen = (item: TenantItem, labels: Record<string, string>, locale: string): string => {
  const counted = Object.entries(item.params)
    .filter(([, param]) => param.counts_stock)
    .map(([id]) => labels[id] ?? 'Quantity');
  return counted.length ? `${listInWords(counted, locale, 'or')}: choose at least 1` : 'Choose at least 1';
};

/** A package part rated slot by slot, as `rateItem` works it out. */
export interface PartRate {
  part: { item: TenantItem; qty: number; optional: boolean };
  included: boolean;
  perPackage: number;
  slots: { slot: Slot; stock: { A: number }; closed: boolean }[];
}

/**
 * Why a package's required parts refuse it: each part closed on some dates (when rules count closures),
 * each part with too little left for one package on some dates, named with those dates in words.
 */
export function partShortfalls(
  parts: PartRate[],
  options: { closedCounts: boolean; words: DateWords },
): { closed: string[]; soldOut: string[] } {
  const closed: string[] = [];
  const soldOut: string[] = [];
  for (const part of parts) {
    if (!part.included || part.part.optional) continue;
    const name = part.part.item.name;
    const dates = (test: (slot: PartRate['slots'][number]) => boolean): Ymd[] =>
      part.slots.filter(test).map(({ slot }) => slot.date);
    const closedOn = options.closedCounts ? dates((slot) => slot.closed) : [];
    if (closedOn.length)
      closed.push(`${name} is closed on ${datesInWords(closedOn, options.words)}; choose other dates`);
    const shortOn = dates(
      (slot) => !(options.closedCounts && slot.closed) && slot.stock.A < Math.max(1, part.perPackage),
    );
    if (shortOn.length)
      soldOut.push(`${name} is sold out on ${datesInWords(shortOn, options.words)}; try other dates`);
  }
  return { closed, soldOut };
}
