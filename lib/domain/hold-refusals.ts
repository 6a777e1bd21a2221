import { parseCounterId } from '../db/stock-repository.ts';
import { DomainError } from './errors.ts';

// The refusals of a hold, each naming the cart line that wanted the counter and its item and date: shared
// by the cart's transaction (session-commit.ts) and the booking's (booking-create.ts).

/** 409 `hold_limit`: the client would hold more than its share of an item-date, or too many sessions. */
export const holdLimitCounter = (
  id: string,
  owners: Record<string, string>,
  limit: { allowance?: number; sessions?: number },
): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  const message =
    limit.sessions !== undefined
      ? `This client already has ${limit.sessions} carts holding stock; book or end one first`
      : `One client may hold at most ${limit.allowance} of item ${itemId} on ${date}`;
  return new DomainError('hold_limit', message, {
    line: owners[id] ?? '',
    item_id: itemId,
    date,
    ...(slot.length > 8 ? { slot } : {}),
    ...(limit.sessions !== undefined ? { open_sessions: limit.sessions } : { allowed: limit.allowance }),
  });
};

/**
 * 409 `hold_limit`: the client let this item-date go unbooked and may not hold it again yet; `retry_after`
 * says in how many seconds (also the `Retry-After` header).
 */
export const coolingDown = (
  id: string,
  owners: Record<string, string>,
  cooldown: { until: number; now: number },
): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  const retryAfter = cooldown.until - cooldown.now;
  return new DomainError(
    'hold_limit',
    `This client let item ${itemId} on ${date} go unbooked; it may hold it again in ${retryAfter} s`,
    {
      line: owners[id] ?? '',
      item_id: itemId,
      date,
      ...(slot.length > 8 ? { slot } : {}),
      retry_after: retryAfter,
      cooldown_until: cooldown.until,
    },
  );
};

/** 409 `unavailable`: a counter has not enough left; names the line that wanted it and the date. */
export const unavailableCounter = (id: string, owners: Record<string, string>): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  return new DomainError('unavailable', `Not enough left of item ${itemId} on ${date}`, {
    line: owners[id] ?? '',
    item_id: itemId,
    date,
    ...(slot.length > 8 ? { slot } : {}),
  });
};
