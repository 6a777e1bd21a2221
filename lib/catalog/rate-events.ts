import type { StoredConfig, StoredItem } from '../config/index.ts';

/** A rate event as API 3.0's `event` resource shows it: a seasonal rate, a discount or a closed date. */
export interface RateEvent {
  event_id: number;
  name: string;
  type: 'rate' | 'discount' | 'closed';
  /** YYYYMMDD, or '' when the event has no such bound. */
  start_date: string;
  end_date: string;
  /** `A` when it applies now or later, `E` when it ended before today. */
  status: 'A' | 'E';
  enabled: 0 | 1;
  /** `none`, or `weekly` for events limited to days of the week (`dow` lists them, Sunday 0). */
  repeat: 'none' | 'weekly';
  dow: string[];
  apply_to: { item_id: number[]; category_id: number[] };
}

const apply = (items: StoredItem[]) => ({
  item_id: [...new Set(items.map((item) => item.item_id))].sort((a, b) => a - b),
  category_id: [...new Set(items.map((item) => item.category_id))].sort((a, b) => a - b),
});

/**
 * The tenant's rate events, derived from the tenant file: one per seasonal or day-of-week rate (items
 * sharing the same rate share the event), one per discount, one per closed date and one per set of
 * closed weekdays. Ids follow that order (rates, discounts, closed days), stable while the file is.
 */
export function rateEvents(config: StoredConfig, items: StoredItem[], today: string): RateEvent[] {
  const enabledItems = items.filter((item) => item.enabled);
  const status = (end: string | undefined): 'A' | 'E' => (end && end < today ? 'E' : 'A');
  const drafts: Omit<RateEvent, 'event_id'>[] = [];

  const rates = new Map<string, { rate: StoredItem['rates'][number]; items: StoredItem[] }>();
  for (const item of enabledItems) {
    for (const rate of item.rates) {
      const key = JSON.stringify([rate.name, rate.start_date ?? '', rate.end_date ?? '', rate.dow ?? []]);
      const entry = rates.get(key) ?? { rate, items: [] };
      entry.items.push(item);
      rates.set(key, entry);
    }
  }
  for (const { rate, items: using } of rates.values()) {
    drafts.push({
      name: rate.name,
      type: 'rate',
      start_date: rate.start_date ?? '',
      end_date: rate.end_date ?? '',
      status: status(rate.end_date),
      enabled: 1,
      repeat: rate.dow?.length ? 'weekly' : 'none',
      dow: (rate.dow ?? []).map(String),
      apply_to: apply(using),
    });
  }
  for (const discount of config.discounts) {
    const using = discount.item_ids
      ? enabledItems.filter((item) => discount.item_ids?.includes(item.item_id))
      : enabledItems;
    drafts.push({
      name: discount.name,
      type: 'discount',
      start_date: discount.start_date ?? '',
      end_date: discount.end_date ?? '',
      status: status(discount.end_date),
      enabled: 1,
      repeat: 'none',
      dow: [],
      apply_to: apply(using),
    });
  }
  const closedDates = new Map<string, StoredItem[]>();
  const closedDays = new Map<string, StoredItem[]>();
  for (const item of enabledItems) {
    for (const date of item.rules.closed_dates)
      closedDates.set(date, [...(closedDates.get(date) ?? []), item]);
    if (item.rules.closed_dow.length) {
      const key = [...item.rules.closed_dow].sort().join(',');
      closedDays.set(key, [...(closedDays.get(key) ?? []), item]);
    }
  }
  for (const [date, using] of [...closedDates].sort(([a], [b]) => a.localeCompare(b))) {
    drafts.push({
      name: `Closed ${date}`,
      type: 'closed',
      start_date: date,
      end_date: date,
      status: status(date),
      enabled: 1,
      repeat: 'none',
      dow: [],
      apply_to: apply(using),
    });
  }
  for (const [days, using] of closedDays) {
    drafts.push({
      name: 'Closed weekdays',
      type: 'closed',
      start_date: '',
      end_date: '',
      status: 'A',
      enabled: 1,
      repeat: 'weekly',
      dow: days.split(','),
      apply_to: apply(using),
    });
  }
  return drafts.map((draft, index) => ({ event_id: index + 1, ...draft }));
}
