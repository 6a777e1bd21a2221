import {
  paramLabels,
  partsOf,
  quantitiesFor,
  type RatedItem,
  rateItem,
  ratingTenant,
  requestOf,
  unitsFor,
} from '../catalog/index.ts';

import type { StoredConfig, StoredItem } from '../config/index.ts';
import type { SlipPayload } from '../slip/index.ts';
import { counterId } from '../stock/index.ts';
import type { SessionLine } from './repository.ts';

/** The counters a line holds in total: its per-qty holds times its qty. */
export const lineHolds = (line: SessionLine): Record<string, number> =>
  Object.fromEntries(Object.entries(line.holds_per_qty).map(([id, units]) => [id, units * line.qty]));

/** The sum of every line's holds. */
export function totalHolds(lines: Record<string, SessionLine>): Record<string, number> {
  const total: Record<string, number> = {};
  for (const line of Object.values(lines)) {
    for (const [id, units] of Object.entries(lineHolds(line))) total[id] = (total[id] ?? 0) + units;
  }
  return total;
}

/** What a line must hold, per one of its qty: its own counters and its included parts' (unlimited take none). */
export function holdsOf(
  item: StoredItem,
  rated: RatedItem,
  payload: SlipPayload,
  all: StoredItem[],
): Record<string, number> {
  const holds: Record<string, number> = {};
  const add = (id: string, units: number) => {
    if (units > 0) holds[id] = (holds[id] ?? 0) + units;
  };
  for (const { slot } of rated.slots) {
    if (!item.unlimited) add(counterId(item.item_id, slot.key), rated.units);
    for (const part of partsOf(item, all)) {
      const included = !part.optional || (payload.optIn ?? []).includes(part.item.item_id);
      if (!included || part.item.unlimited) continue;
      add(
        counterId(part.item.item_id, slot.key),
        part.qty * unitsFor(part.item, quantitiesFor(part.item, payload.params)),
      );
    }
  }
  return holds;
}

/**
 * What one of a line's qty takes of each counter by its item as the item is now (its stock or unlimited,
 * its parts, which parameters count), whatever the rules say today; undefined when the item is gone or
 * its dates no longer make a span (hours changed), so nothing can be said.
 */
export function holdsNowOf(
  line: Pick<SessionLine, 'item_id' | 'payload'>,
  options: { config: StoredConfig; all: StoredItem[]; now: number },
): Record<string, number> | undefined {
  const item = options.all.find((entry) => entry.item_id === line.item_id);
  if (!item) return undefined;
  const rated = rateItem({
    item,
    parts: partsOf(item, options.all),
    request: { ...requestOf(line.payload), rules: 'off' },
    stock: () => 0,
    tenant: ratingTenant(options.config),
    labels: paramLabels(options.config),
    now: options.now,
  });
  return rated.span ? holdsOf(item, rated, line.payload, options.all) : undefined;
}

/**
 * Brings lines worked out under an earlier tenant load up to their items as they are now, for booking
 * them: each counter a line takes more of now than it holds gains the difference (`extra`, to be held
 * conditionally in the booking's transaction), and nothing is given back (holding more than needed never
 * oversells). `owners` names the line of each extra counter, for a refusal.
 */
export function catchUpLines(
  lines: Record<string, SessionLine>,
  options: { config: StoredConfig; all: StoredItem[]; now: number },
): { lines: Record<string, SessionLine>; extra: Record<string, number>; owners: Record<string, string> } {
  const next = { ...lines };
  const extra: Record<string, number> = {};
  const owners: Record<string, string> = {};
  for (const line of Object.values(lines)) {
    if (line.items_stamp === options.config.updated_at) continue;
    const holdsNow = holdsNowOf(line, options);
    if (!holdsNow) continue;
    const perQty = { ...line.holds_per_qty };
    for (const [id, units] of Object.entries(holdsNow)) {
      const short = (units - (perQty[id] ?? 0)) * line.qty;
      if (short <= 0) continue;
      perQty[id] = units;
      extra[id] = (extra[id] ?? 0) + short;
      owners[id] ??= line.line_id;
    }
    next[line.line_id] = { ...line, holds_per_qty: perQty, items_stamp: options.config.updated_at };
  }
  return { lines: next, extra, owners };
}
