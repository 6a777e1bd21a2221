import type { StoredItem } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { NamedAction, TransactItem } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import {
  clientAllowance,
  getClientHolds,
  holdClientUnitsAction,
  releaseClientUnitsAction,
} from '../sessions/index.ts';
import {
  capacityOf,
  holdStockAction,
  parseCounterId,
  releaseStockAction,
  takeStockAction,
} from '../stock/index.ts';
import { type ChangeRole, plainWrites } from './change.ts';
import type { GuestContext } from './guest.ts';
import type { StoredBooking } from './repository.ts';

// The stock a guest's change writes (issue 44, item 4): the counters it takes on their capacity and those it
// lets go of, and for a booking still counted against the client that made it, that client's budget moved
// with it, so a move is held to the same share of an item-date as a cart.

type StockContext = Pick<GuestContext, 'db' | 'config' | 'now'>;

/** Units the change takes beyond what the booking holds (`take`), and what it lets go of (`release`). */
export function holdsDelta(from: Record<string, number>, to: Record<string, number>) {
  const take: Record<string, number> = {};
  const release: Record<string, number> = {};
  for (const id of new Set([...Object.keys(from), ...Object.keys(to)])) {
    const delta = (to[id] ?? 0) - (from[id] ?? 0);
    if (delta > 0) take[id] = delta;
    if (delta < 0) release[id] = -delta;
  }
  return { take, release };
}

/** The guest's words for a counter the change cannot take. */
export function soldOut(all: StoredItem[], itemId: number, slot: string): DomainError {
  const name = all.find((item) => item.item_id === itemId)?.name ?? `Item ${itemId}`;
  const date = `${slot.slice(0, 4)}-${slot.slice(4, 6)}-${slot.slice(6, 8)}`;
  return new DomainError('unavailable', `${name} is not available on ${date}: please try other dates`, {
    item_id: itemId,
    date: slot.slice(0, 8),
    reason: 'sold_out',
  });
}

/** An item-date's capacity, and the item (none when it is gone from the catalogue). */
function capacityIn(ctx: StockContext, all: StoredItem[], id: string) {
  const { itemId, slot } = parseCounterId(id);
  const item = all.find((one) => one.item_id === itemId);
  return { itemId, slot, item, capacity: item ? capacityOf(item, slot, ctx.config.company.timezone) : 0 };
}

/** The guest's words for more of an item-date than one client may hold unpaid. */
const holdLimit = (options: {
  name: string;
  allowance: number;
  itemId: number;
  slot: string;
  what: string;
}) =>
  new DomainError(
    'hold_limit',
    `${options.what} may hold at most ${options.allowance} of ${options.name} on a date: please ask us for more`,
    {
      item_id: options.itemId,
      date: options.slot.slice(0, 8),
      reason: 'hold_limit',
      allowed: options.allowance,
    },
  );

/**
 * Takes each counter of `take` on its capacity (none on an item unlimited now), named for the refusal. A
 * change that waits for its payment holds what it takes unpaid, as a cart does: never more of a counter than
 * one client's share (`settings.limits.client_hold_share`), or one paid booking could hold a whole date.
 */
export function takeActions(
  ctx: StockContext,
  all: StoredItem[],
  take: Record<string, number>,
  unpaid = false,
) {
  const writes: NamedAction<ChangeRole>[] = [];
  for (const [id, units] of Object.entries(take)) {
    const { itemId, slot, item, capacity } = capacityIn(ctx, all, id);
    if (item?.unlimited) {
      writes.push(...plainWrites([takeStockAction(ctx.db, { itemId, slot, units })]));
      continue;
    }
    const allowance = clientAllowance(capacity, ctx.config.settings.limits.client_hold_share);
    if (unpaid && units > allowance) {
      const name = item?.name ?? `item ${itemId}`;
      throw holdLimit({ name, allowance, itemId, slot, what: 'A change that waits for its payment' });
    }
    if (units > capacity) throw soldOut(all, itemId, slot);
    writes.push({
      role: { kind: 'counter', id },
      action: holdStockAction(ctx.db, { itemId, slot, units, capacity }),
    });
  }
  return writes;
}

/** Releases each counter of `release`. */
export const releaseActions = (ctx: Pick<StockContext, 'db'>, release: Record<string, number>) =>
  plainWrites(
    Object.entries(release).map(([id, units]) =>
      releaseStockAction(ctx.db, { ...parseCounterId(id), units }),
    ),
  );

/**
 * An unpaid booking's budget moved with its change to `holds`: what its client holds of each item-date
 * follows (more of one only within the client's share of it, as a cart's hold: 409 `hold_limit` otherwise,
 * read now and conditioned in the write), and the budget the booking records. Undefined for a booking that no
 * longer counts against a client. A move that kept the client's units on the dates it left would let a script
 * book its share on several dates and move them all onto one.
 */
export async function moveBudget(
  ctx: StockContext,
  all: StoredItem[],
  booking: StoredBooking,
  holds: Record<string, number>,
): Promise<{ budget: NonNullable<StoredBooking['budget']>; writes: NamedAction<ChangeRole>[] } | undefined> {
  const { budget } = booking;
  if (!budget) return undefined;
  const { client } = budget;
  const { take, release } = holdsDelta(budget.holds, holds);
  const held = await getClientHolds(ctx.db, { client, counterIds: Object.keys(take) });
  const nowSeconds = unixSeconds(ctx.now);
  const next = { ...budget.holds };
  const actions: TransactItem[] = [];
  for (const [counterId, units] of Object.entries(take)) {
    const { itemId, slot, item, capacity } = capacityIn(ctx, all, counterId);
    if (item?.unlimited) continue;
    const allowance = clientAllowance(capacity, ctx.config.settings.limits.client_hold_share);
    if ((held.get(counterId)?.held ?? 0) + units > allowance) {
      const name = item?.name ?? `item ${itemId}`;
      throw holdLimit({ name, allowance, itemId, slot, what: 'A booking not yet paid for' });
    }
    actions.push(
      holdClientUnitsAction(ctx.db, { client, counterId, units, allowance, nowSeconds, keep: true }),
    );
    next[counterId] = (next[counterId] ?? 0) + units;
  }
  for (const [counterId, units] of Object.entries(release)) {
    const left = (next[counterId] ?? 0) - units;
    // A record the booking no longer counts on may go a week after, as a booking's budget given back does.
    actions.push(
      releaseClientUnitsAction(ctx.db, { client, counterId, units, ...(left > 0 ? {} : { nowSeconds }) }),
    );
    if (left > 0) next[counterId] = left;
    else delete next[counterId];
  }
  return { budget: { ...budget, holds: next }, writes: plainWrites(actions) };
}
