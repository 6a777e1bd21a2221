import type { StoredConfig } from '../config/index.ts';
import { hourKeyInstant, localParts, todayIn, type Ymd } from '../kernel/dates.ts';
import { DomainError } from '../kernel/errors.ts';
import { countOf, dateInWords, localeTag, waitOf } from '../kernel/guest-words.ts';
import { parseCounterId } from '../stock/index.ts';
import type { SessionLine } from './repository.ts';

// The refusals of a hold, each naming the cart line that wanted the counter and its item and date: shared
// by the cart's transaction (session-commit.ts) and the booking's (booking-create.ts). The details are
// guest words (the item's name, the date in the tenant's locale); `data` keeps the ids and `YYYYMMDD`.

/** Where a refused counter is named from: which line wanted it, the cart's lines, the tenant and now. */
export interface RefusalAt {
  /** Counter id → the line that wanted it. */
  owners: Record<string, string>;
  lines: Record<string, SessionLine>;
  config: StoredConfig;
  now: number;
}

/** The name of an item a cart holds: its line's, or a package part's, else none. */
function itemName(at: RefusalAt, id: string, itemId: number): string | undefined {
  const owner = at.lines[at.owners[id] ?? ''];
  for (const line of owner ? [owner, ...Object.values(at.lines)] : Object.values(at.lines)) {
    if (line.item_id === itemId) return line.name;
    const part = Object.values(line.parts ?? {}).find((entry) => entry.item_id === itemId);
    if (part) return part.name;
  }
  return undefined;
}

/**
 * A counter in words: the item's name ("Lakeside Cabin", else "this item") and when ("on Thursday,
 * December 24", with the local time for an hour), with the date the counter's data carries.
 */
export function counterInWords(id: string, at: RefusalAt): { name: string; when: string; date: Ymd } {
  const { itemId, slot } = parseCounterId(id);
  const timeZone = at.config.company.timezone;
  const words = { locale: localeTag(at.config.locale.id), today: todayIn(timeZone, at.now) };
  const name = itemName(at, id, itemId) ?? 'this item';
  if (slot.length <= 8) return { name, when: `on ${dateInWords(slot, words)}`, date: slot };
  // An hourly counter's key is a UTC hour: the guest's date and time are the tenant's local ones.
  const local = localParts(hourKeyInstant(slot), timeZone);
  return {
    name,
    when: `on ${dateInWords(local.ymd, words)} at ${local.iso.slice(11, 16)}`,
    date: slot.slice(0, 8),
  };
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** 409 `hold_limit`: the client would hold more than its share of an item-date, or too many sessions. */
export const holdLimitCounter = (
  id: string,
  at: RefusalAt,
  limit: { allowance?: number; sessions?: number },
): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  let message: string;
  if (limit.sessions !== undefined) {
    message = `You already have ${countOf(limit.sessions, 'cart')} holding items; book or empty one first`;
  } else {
    const { name, when } = counterInWords(id, at);
    message = limit.allowance
      ? `You can hold at most ${limit.allowance} of ${name} ${when}; choose fewer`
      : `${capitalised(name)} cannot be held ${when} right now; try other dates`;
  }
  return new DomainError('hold_limit', message, {
    line: at.owners[id] ?? '',
    item_id: itemId,
    date,
    ...(slot.length > 8 ? { slot } : {}),
    ...(limit.sessions !== undefined ? { open_sessions: limit.sessions } : { allowed: limit.allowance }),
  });
};

/**
 * 409 `hold_limit`: the client let this item-date (`nearby`: a date of the item that one stay could span with
 * it) go unbooked and may not hold it again yet; `retry_after` says in how many seconds (also the
 * `Retry-After` header).
 */
export const coolingDown = (
  id: string,
  at: RefusalAt,
  cooldown: { until: number; now: number; nearby?: boolean },
): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  const retryAfter = cooldown.until - cooldown.now;
  const { name, when } = counterInWords(id, at);
  const wait = waitOf(retryAfter);
  return new DomainError(
    'hold_limit',
    cooldown.nearby
      ? `You let ${name} go unbooked on nearby dates a moment ago; you can hold it ${when} in ${wait}, or choose dates further away`
      : `You let ${name} ${when} go unbooked a moment ago; you can hold it again in ${wait}`,
    {
      line: at.owners[id] ?? '',
      item_id: itemId,
      date,
      ...(slot.length > 8 ? { slot } : {}),
      retry_after: retryAfter,
      cooldown_until: cooldown.until,
    },
  );
};

/** 409 `unavailable`: a counter has not enough left; names the line that wanted it and the date. */
export const unavailableCounter = (id: string, at: RefusalAt): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  const { name, when } = counterInWords(id, at);
  return new DomainError(
    'unavailable',
    `Not enough of ${name} is left ${when}; choose fewer or other dates`,
    {
      line: at.owners[id] ?? '',
      item_id: itemId,
      date,
      ...(slot.length > 8 ? { slot } : {}),
    },
  );
};
