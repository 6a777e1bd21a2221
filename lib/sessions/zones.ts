import type { StoredItem } from '../config/index.ts';
import { hourKeyInstant } from '../kernel/dates.ts';
import { MAX_TRANSACTION_ACTIONS } from '../kernel/storage/transact.ts';
import { parseCounterId } from '../stock/index.ts';
import type { StoredSession } from './repository.ts';

// A stay is several item-dates, and one address that holds each night of it in turn, a cart per night,
// never re-holds a night within its cooldown yet keeps the stay unbookable. So the re-hold cooldown and the
// time held are also kept per stay zone: a run of an item's dates twice as long as the item's reach (how
// far apart two dates of one booking can be), in two grids half a zone apart. Any two dates within the
// reach share a zone of one grid, so letting go of one cools the other, and holds of both count as one
// holding. Fixed zones keep it to fixed records: the conditions stay in the hold's transaction, no scan.

/** An hourly booking lies within one local date: 25 hours on the day the clocks go back. */
const LONGEST_DAY_HOURS = 25;

/** The most item-dates a cart holds, so the longest stay of an item without `max_len`. */
const CART_ITEM_DATES = 48;

/**
 * How many slots apart two slots of one booking of an item can be: its longest stay (`max_len` days,
 * nights or hours; else what a cart or a day can hold) less one. 0: a booking is one slot, and the
 * cooldown of the item-date alone covers it.
 */
export const stayReachOf = (item: Pick<StoredItem, 'unit' | 'rules'>): number => {
  const most = item.unit === 'H' ? LONGEST_DAY_HOURS : CART_ITEM_DATES;
  return Math.min(item.rules?.max_len ?? most, most) - 1;
};

/** A slot's place on its unit's line: days since the epoch, or hours for an hourly `YYYYMMDDTHHZ`. */
const slotPosition = (slot: string): number =>
  slot.length > 8
    ? hourKeyInstant(slot) / 3_600_000
    : Date.UTC(+slot.slice(0, 4), +slot.slice(4, 6) - 1, +slot.slice(6, 8)) / 86_400_000;

/** Whether a budget record id names a stay zone rather than an item-date (`<item>|<slot>`). */
export const isZoneId = (id: string): boolean => id.includes('~');

/**
 * The two stay zones of a counter for an item of `reach` (none when 0): `<item>~<d|h><size><a|b><index>`.
 * Zones are 2 × reach slots long; grid b is grid a shifted by reach.
 */
export const zonesOfCounter = (counterId: string, reach: number): string[] => {
  if (reach < 1) return [];
  const { itemId, slot } = parseCounterId(counterId);
  const size = 2 * reach;
  const at = slotPosition(slot);
  const unit = slot.length > 8 ? 'h' : 'd';
  return [
    `${itemId}~${unit}${size}a${Math.floor(at / size)}`,
    `${itemId}~${unit}${size}b${Math.floor((at + reach) / size)}`,
  ];
};

/**
 * The stay zones of a cart's holds, each with the counters in it, from the items' reach; counters of an
 * item not given (or of one-slot bookings) are in none.
 */
export function zonesOfHolds(
  holds: Record<string, number>,
  items: readonly Pick<StoredItem, 'item_id' | 'unit' | 'rules'>[],
): Map<string, string[]> {
  const reachById = new Map(items.map((item) => [item.item_id, stayReachOf(item)]));
  const zones = new Map<string, string[]>();
  for (const id of Object.keys(holds)) {
    const reach = reachById.get(parseCounterId(id).itemId) ?? 0;
    for (const zone of zonesOfCounter(id, reach)) zones.set(zone, [...(zones.get(zone) ?? []), id]);
  }
  return zones;
}

/**
 * The actions that let go of a whole cart at once (the sweeper's release, `end`): per counter its stock and
 * its client record, per stay zone its record, and the session and its client's set of carts. A cart may
 * hold only what one transaction can let go of.
 */
export const releaseActionCount = (session: Pick<StoredSession, 'holds' | 'zones'>): number =>
  2 * Object.keys(session.holds).length + Object.keys(session.zones ?? {}).length + 2;

/** Whether a cart's holds can still be let go of in one transaction. */
export const releaseFits = (session: Pick<StoredSession, 'holds' | 'zones'>): boolean =>
  releaseActionCount(session) <= MAX_TRANSACTION_ACTIONS;
