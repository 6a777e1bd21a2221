import type { StoredItem } from '../config/index.ts';
import { localParts } from '../kernel/dates.ts';

/** The capacity of a counter from the item's configuration (the date's override or its stock). */
export function capacityOf(item: StoredItem, slot: string, timeZone: string): number {
  const date =
    slot.length === 8
      ? slot
      : localParts(
          Date.UTC(+slot.slice(0, 4), +slot.slice(4, 6) - 1, +slot.slice(6, 8), +slot.slice(9, 11)),
          timeZone,
        ).ymd;
  return item.stock_overrides[date] ?? item.stock;
}
