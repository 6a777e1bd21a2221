import { type Caller, hasGrant, isPartnerOnly } from '../access/index.ts';
import { paramLabels, partsOf, type RatedItem, rateItem, ratingTenant, requestOf } from '../catalog/index.ts';

import type { StoredConfig, StoredItem } from '../config/index.ts';
import { DomainError, NO_LONGER_OFFERED } from '../kernel/errors.ts';
import { joinReasons } from '../kernel/guest-words.ts';
import { unixSeconds } from '../kernel/time.ts';
import type { SlipPayload } from '../slip/index.ts';
import { holdsOf, totalHolds } from './line-holds.ts';
import type { SessionLine, StoredSession } from './repository.ts';

// The pure side of the cart: what a line is, how SLIPs become lines and how `alter` changes them. The
// session module orchestrates reads, these rules and the one transaction that writes the result.

/**
 * Limits of one session and one call. A session holds at most 48 item-dates, so releasing all of it (a
 * counter and the client's budget record per item-date, the session and the client's session set) always
 * fits one transaction of 100 actions.
 */
export const SESSION_LIMITS = {
  slipsPerCall: 20,
  linesPerSession: 50,
  countersPerSession: 48,
  altersPerCall: 50,
  maxQty: 99,
} as const;

/** A transaction holds at most 100 actions: two per changed counter, the session and the client's set. */
export const MAX_COUNTER_CHANGES = 49;

/** Who is changing a session, and what of staff's it may do. */
export interface SessionActor {
  /** May add SLIPs of staff-only (`S`) items. */
  staffItems: boolean;
  /** May add SLIPs rated with `rules=soft|off`. */
  rulesOverride: boolean;
  /** The key a new session's holds are budgeted under; none for an exempt caller (staff). */
  client?: string;
}

/**
 * The session actor of a caller: customers are budgeted by their client key (address), a partner's own
 * credential by the credential (unless granted `no_hold_budget`), staff not at all; staff privileges
 * over items and rules follow the caller's grants.
 */
export const sessionActorOf = (caller: Caller, client: string): SessionActor => {
  const budgeted =
    caller.kind === 'customer'
      ? client
      : isPartnerOnly(caller) && !hasGrant(caller, 'no_hold_budget')
        ? `credential:${caller.credentialKey}`
        : undefined;
  return {
    staffItems: hasGrant(caller, 'staff_items'),
    rulesOverride: hasGrant(caller, 'rules_override'),
    ...(budgeted ? { client: budgeted } : {}),
  };
};

/** What the pure line rules need: the tenant, the time and who is acting. */
export interface LineContext {
  config: StoredConfig;
  /** Milliseconds since the epoch. */
  now: number;
  actor: SessionActor;
}

/**
 * The item of a line, if it is still offered to the actor: enabled, and not staff-only unless the actor may
 * add staff items. A staff item's SLIP in a customer's (or an ungranted partner's) hands is `invalid_slip`
 * (`staff_only`); an item withdrawn since it was added is `unavailable`.
 */
export function offeredItem(
  ctx: LineContext,
  options: { itemId: number; all: StoredItem[]; where: Record<string, unknown>; adding: boolean },
): StoredItem {
  const item = options.all.find((entry) => entry.item_id === options.itemId && entry.enabled);
  // Private items (`P`) are bookable by anyone who has their id; staff items (`S`) only by staff.
  const hidden = item !== undefined && !ctx.actor.staffItems && item.visibility === 'S';
  if (hidden && options.adding) {
    throw new DomainError('invalid_slip', 'This SLIP was issued to staff', {
      ...options.where,
      reason: 'staff_only',
    });
  }
  if (!item || hidden)
    throw new DomainError('unavailable', NO_LONGER_OFFERED, {
      ...options.where,
      item_id: options.itemId,
    });
  return item;
}

/** Re-rates a SLIP's line at today's prices and rules (stock is left to the conditional writes). */
function rateLine(
  ctx: LineContext,
  payload: SlipPayload,
  all: StoredItem[],
  where: Record<string, unknown>,
  adding: boolean,
) {
  const item = offeredItem(ctx, { itemId: payload.itemId, all, where, adding });
  const rated = rateItem({
    item,
    parts: partsOf(item, all),
    request: requestOf(payload),
    stock: () => 0,
    tenant: ratingTenant(ctx.config),
    labels: paramLabels(ctx.config),
    now: ctx.now,
  });
  if (rated.status !== 'AVAILABLE' || !rated.span) {
    const reason =
      joinReasons(rated.errors) || `${item.name} is not available for these dates; try other dates`;
    throw new DomainError('unavailable', reason, { ...where, item_id: item.item_id, reason });
  }
  return { item, rated };
}

const discountOf = (ctx: LineContext, code: string | undefined): SessionLine['discount'] => {
  const found = code ? ctx.config.discounts.find((discount) => discount.code === code) : undefined;
  return found ? { code: found.code, type: found.type, value: found.value } : undefined;
};

/** Builds a session line from a verified SLIP, priced now. */
export function makeLine(
  ctx: LineContext,
  options: {
    lineId: string;
    slip: string;
    payload: SlipPayload;
    all: StoredItem[];
    where: Record<string, unknown>;
    /** A new line (from a SLIP) rather than a change of one already held. */
    adding: boolean;
  },
): SessionLine {
  const { item, rated } = rateLine(ctx, options.payload, options.all, options.where, options.adding);
  const span = rated.span as NonNullable<RatedItem['span']>;
  const discount = discountOf(ctx, rated.discountCode);
  return {
    line_id: options.lineId,
    item_id: item.item_id,
    sku: item.sku,
    name: item.name,
    unit: item.unit,
    slip: options.slip,
    payload: options.payload,
    qty: 1,
    holds_per_qty: holdsOf(item, rated, options.payload, options.all),
    items_stamp: ctx.config.updated_at,
    sub_total: rated.subTotal,
    ...(discount ? { discount } : {}),
    parts: Object.fromEntries(
      partsOf(item, options.all).map((part, index) => [
        String(index + 1),
        {
          item_id: part.item.item_id,
          name: part.item.name,
          sku: part.item.sku,
          optional: part.optional,
          included: !part.optional || (options.payload.optIn ?? []).includes(part.item.item_id),
        },
      ]),
    ),
    start_date: span.start,
    end_date: span.end,
    last_date: rated.slots.at(-1)?.slot.date ?? span.start,
    length: rated.slots.length,
    added_at: ctx.now,
  };
}

/** A change computed against one read of the session: the session to write and which line did what. */
export interface Change {
  next: StoredSession;
  /** For messages: which line (or SLIP) each counter belongs to. */
  owners: Record<string, string>;
  /**
   * The change may take stock (a line added, grown or opted in): what it takes must then be worked out
   * from the items as they are now.
   */
  takes?: boolean;
}

/** A session with its holds summed from its lines, one version on, its expiry moved on from now. */
export const withHolds = (session: StoredSession, ctx: LineContext): StoredSession => {
  const holds = totalHolds(session.lines);
  if (Object.keys(holds).length > SESSION_LIMITS.countersPerSession) {
    throw new DomainError(
      'validation_error',
      `Your cart is full: it holds at most ${SESSION_LIMITS.countersPerSession} days, nights or hours in all; book what it holds first`,
      {
        slip: `more than ${SESSION_LIMITS.countersPerSession} item-dates in one session`,
      },
    );
  }
  const firstHeldAt = session.first_held_at ?? (Object.keys(holds).length ? ctx.now : undefined);
  return {
    ...session,
    holds,
    version: session.version + 1,
    updated_at: ctx.now,
    expires_at: sessionExpiryOf(ctx, firstHeldAt),
    ...(firstHeldAt !== undefined ? { first_held_at: firstHeldAt } : {}),
  };
};

/**
 * When a session changed now expires: `hold_minutes` from now, but never more than
 * `max_session_minutes` after it first held stock, however often it changes.
 */
export const sessionExpiryOf = (ctx: LineContext, firstHeldAt: number | undefined): number => {
  const { hold_minutes: holdMinutes, max_session_minutes: maxMinutes } = ctx.config.settings;
  const extended = unixSeconds(ctx.now) + Math.round(holdMinutes * 60);
  if (firstHeldAt === undefined) return extended;
  return Math.min(extended, unixSeconds(firstHeldAt) + Math.round(maxMinutes * 60));
};

/**
 * Adds verified SLIPs to a session as new lines, priced now; a SLIP already in the session changes
 * nothing, and nothing at all changed returns the session itself.
 */
export function addLines(
  ctx: LineContext,
  options: { session: StoredSession; all: StoredItem[]; slips: string[]; payloads: SlipPayload[] },
): Change {
  const { session, all } = options;
  const lines = { ...session.lines };
  const known = new Set(Object.values(lines).map((line) => line.slip));
  let next = session.next_line;
  const owners: Record<string, string> = {};
  options.slips.forEach((slip, index) => {
    const payload = options.payloads[index] as SlipPayload;
    if (known.has(slip)) return;
    known.add(slip);
    const lineId = String(next);
    next += 1;
    const line = makeLine(ctx, { lineId, slip, payload, all, where: { slip: index }, adding: true });
    for (const id of Object.keys(line.holds_per_qty)) owners[id] ??= lineId;
    lines[lineId] = line;
  });
  if (Object.keys(lines).length > SESSION_LIMITS.linesPerSession) {
    throw new DomainError(
      'validation_error',
      `Your cart is full: it holds at most ${SESSION_LIMITS.linesPerSession} items; book what it holds first`,
      {
        slip: `at most ${SESSION_LIMITS.linesPerSession} lines per session`,
      },
    );
  }
  if (Object.keys(lines).length === Object.keys(session.lines).length && session.version > 0) {
    return { next: session, owners };
  }
  return { next: withHolds({ ...session, lines, next_line: next }, ctx), owners, takes: true };
}
