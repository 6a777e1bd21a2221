import type { StoredConfig, StoredItem } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import type { NamedAction, TransactItem } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { capacityOf, holdStockAction, parseCounterId, releaseStockAction } from '../stock/index.ts';

import {
  type ClientHoldState,
  claimClientSessionAction,
  dropClientSessionAction,
  getClientSessions,
  type HoldPeriod,
  holdClientUnitsAction,
  releaseClientUnitsAction,
} from './budget-repository.ts';
import {
  clientAllowance,
  cooldownUntil,
  heldSinceOf,
  isHolding,
  powReserve,
  reholdCooldownOf,
} from './budgets.ts';
import { MAX_COUNTER_CHANGES } from './lines.ts';
import type { SolvedChallenge } from './pow.ts';
import { holdLimitCounter, unavailableCounter } from './refusals.ts';
import type { StoredSession } from './repository.ts';
import { holdZoneAction, releaseZoneAction } from './zone-repository.ts';
import { releaseActionCount, releaseFits } from './zones.ts';

// The write side of one cart change: the transaction actions that move a session's holds, and the record
// of since when the client has held each counter, which the re-hold cooldown grows with.

/** What one action of a session transaction does, to tell which rule a failed condition broke. */
export type ActionRole =
  | { kind: 'stock'; counter: string; gated?: { capacity: number; units: number } }
  | { kind: 'client'; counter: string; allowance: number }
  /** A stay zone's record; `counter` is a counter of the change in it, to name in a refusal. */
  | { kind: 'zone'; zone: string; counter: string }
  | { kind: 'sessions' }
  | { kind: 'session' }
  | { kind: 'challenge' };

/** The proof-of-work side of one change: what the presented solution allows, and what still needs one. */
export interface PowState {
  solved?: SolvedChallenge;
  /** Counters this change grows under pressure that the solution does not cover. */
  gated: string[];
  /** Of those, the ones no hold without a solution could get at all (the reserve alone is too big). */
  blocked: { counter: string; capacity: number; units: number }[];
  /** Whether the change spends the solution. */
  spends: boolean;
}

/** What the hold actions need of the operation: the table, the tenant, the time, whether a let-go cools. */
export interface HoldContext {
  db: Db;
  config: StoredConfig;
  /** Milliseconds since the epoch. */
  now: number;
  /** False when the service itself lets go of a cart the same call made: no cooldown starts. */
  startsCooldown?: boolean;
}

/** The counters a change starts holding: held after it, not before. */
export const startedCounters = (before: StoredSession, after: StoredSession): string[] =>
  Object.keys(after.holds).filter((id) => !before.holds[id]);

/** How the client's holding of a counter or stay zone that a cart starts holding began. */
const sinceOf = (period: HoldPeriod | undefined, nowSeconds: number): number =>
  period?.kind === 'join' ? (period.anchor ?? nowSeconds) : nowSeconds;

/**
 * The session to write after a change, with since when the client has held each of its counters and stay
 * zones (`zones`: the stay zones of its holds, with their counters; none without a cooldown): kept for one
 * it already held, and for one it starts holding, now or (joining the client's other carts, or taking back
 * what it let go while its own cooldown runs) since when the client has held it. A change that adds
 * item-dates is refused when the cart could no longer be let go of in one transaction.
 */
export function withHeldSince(
  before: StoredSession,
  after: StoredSession,
  options: {
    periods: ReadonlyMap<string, HoldPeriod>;
    nowSeconds: number;
    zones?: ReadonlyMap<string, string[]> | undefined;
  },
): StoredSession {
  if (!after.client) return after;
  const since: Record<string, number> = {};
  for (const id of Object.keys(after.holds)) {
    since[id] = before.holds[id]
      ? heldSinceOf(before, id, options.nowSeconds)
      : sinceOf(options.periods.get(id), options.nowSeconds);
  }
  const next: StoredSession = { ...after, held_since: since };
  delete next.zones;
  // A cart enters a zone only by holding an item-date in it anew: so a change that adds none (a remove in
  // a cart from before stay zones, or after its item's reach changed) starts no zone's holding, is never
  // refused for one, and leaves a cart that one transaction still lets go of.
  const zones: Record<string, number> = {};
  for (const [id, counters] of options.zones ?? []) {
    const held = before.zones?.[id];
    if (held !== undefined) zones[id] = held;
    else if (counters.some((counter) => !before.holds[counter])) {
      zones[id] = sinceOf(options.periods.get(id), options.nowSeconds);
    }
  }
  if (Object.keys(zones).length) next.zones = zones;
  if (!releaseFits(next)) {
    throw new DomainError(
      'validation_error',
      'Your cart is full: what it holds is too much, or too far apart, to let go of at once; book what it holds first',
      {
        slip: `more item-dates and stay zones than one transaction releases (${releaseActionCount(next)} actions)`,
      },
    );
  }
  return next;
}

/**
 * The actions that move a session's holds from `before` to `after`: each counter that grows is held on
 * capacity and (for a budgeted client) on the client's allowance; each that shrinks is released from both;
 * and the client's set of holding sessions gains or loses the session when it starts or stops holding.
 */
export function holdActions(
  ctx: HoldContext,
  options: {
    before: StoredSession;
    after: StoredSession;
    all: StoredItem[];
    owners: Record<string, string>;
    pow: PowState;
    /** How each counter the change starts holding stands to the client's other carts (default: start). */
    periods: ReadonlyMap<string, HoldPeriod>;
    /** The stay zones of `after`'s holds, with their counters. */
    zones?: ReadonlyMap<string, string[]> | undefined;
  },
): NamedAction<ActionRole>[] {
  const { before, after } = options;
  const client = before.client ?? after.client;
  const seconds = unixSeconds(ctx.now);
  const named: NamedAction<ActionRole>[] = [];
  const push = (action: TransactItem, role: ActionRole) => {
    named.push({ action, role });
  };
  const policy = reholdCooldownOf(ctx.config.settings);
  const cooldown = policy.seconds;
  const refusalAt = { owners: options.owners, lines: after.lines, config: ctx.config, now: ctx.now };
  const counters = new Set([...Object.keys(before.holds), ...Object.keys(after.holds)]);
  for (const id of counters) {
    const delta = (after.holds[id] ?? 0) - (before.holds[id] ?? 0);
    if (delta === 0) continue;
    const { itemId, slot } = parseCounterId(id);
    if (delta < 0) {
      push(releaseStockAction(ctx.db, { itemId, slot, units: -delta }), { kind: 'stock', counter: id });
      if (client) {
        // A cart that lets go of a counter entirely, unbooked (remove, clear, end), starts the client's
        // re-hold cooldown on it: ending a cart and re-adding in a new one at once would otherwise skip
        // the cooldown of expiry (and start a new cart lifetime). It lasts longer the longer it was held.
        const gone = !after.holds[id];
        const lettingGo = cooldown > 0 && ctx.startsCooldown !== false && gone;
        const until = lettingGo
          ? cooldownUntil(policy, { since: heldSinceOf(before, id, seconds), from: seconds })
          : 0;
        const release = releaseClientUnitsAction(ctx.db, {
          client,
          counterId: id,
          units: -delta,
          cooldown: lettingGo ? { until, sessionId: after.id, nowSeconds: seconds } : undefined,
          cart: gone ? after.id : undefined,
        });
        push(release, { kind: 'client', counter: id, allowance: 0 });
      }
      continue;
    }
    const item = options.all.find((entry) => entry.item_id === itemId);
    const capacity = item ? capacityOf(item, slot, ctx.config.company.timezone) : 0;
    if (delta > capacity) throw unavailableCounter(id, refusalAt);
    // Under a proof-of-work gate, a hold without a solution may not eat into the reserve: its condition
    // leaves that much free, so the gate is decided in the same condition as the stock itself.
    const reserve = client && item?.pow ? powReserve(capacity, item.pow.below_share) : 0;
    const { pow } = options;
    if (reserve > 0 && pow.solved?.counters.includes(id)) pow.spends = true;
    if (reserve > 0 && !pow.solved?.counters.includes(id)) {
      pow.gated.push(id);
      if (capacity - reserve - delta < 0) pow.blocked.push({ counter: id, capacity, units: delta });
      push(holdStockAction(ctx.db, { itemId, slot, units: delta, capacity: capacity - reserve }), {
        kind: 'stock',
        counter: id,
        gated: { capacity, units: delta },
      });
    } else {
      push(holdStockAction(ctx.db, { itemId, slot, units: delta, capacity }), { kind: 'stock', counter: id });
    }
    if (client) {
      const allowance = clientAllowance(capacity, ctx.config.settings.limits.client_hold_share);
      if (delta > allowance) throw holdLimitCounter(id, refusalAt, { allowance });
      // A counter the cart starts holding starts the client's holding of it, or joins its other carts'.
      const starts = cooldown > 0 && !before.holds[id];
      push(
        holdClientUnitsAction(ctx.db, {
          client,
          counterId: id,
          units: delta,
          allowance,
          nowSeconds: seconds,
          ...(cooldown > 0 ? { cooldownSession: after.id } : {}),
          ...(starts ? { period: options.periods.get(id) ?? { kind: 'start', since: seconds } } : {}),
        }),
        { kind: 'client', counter: id, allowance },
      );
    }
  }
  if (named.length > MAX_COUNTER_CHANGES * 2) {
    throw new DomainError('validation_error', 'Too many item-dates change in one call; split the changes', {
      alter: `at most ${MAX_COUNTER_CHANGES} item-dates may change in one call`,
    });
  }
  if (client)
    named.push(
      ...zoneActions(ctx, { before, after, client, periods: options.periods, zones: options.zones }),
    );
  if (client && isHolding(after) && !isHolding(before)) {
    push(
      claimClientSessionAction(ctx.db, {
        client,
        sessionId: after.id,
        max: ctx.config.settings.limits.open_sessions_per_client,
        nowSeconds: seconds,
      }),
      { kind: 'sessions' },
    );
  } else if (client && isHolding(before) && !isHolding(after)) {
    push(dropClientSessionAction(ctx.db, { client, sessionId: before.id }), { kind: 'sessions' });
  }
  return named;
}

/**
 * The actions on the client's stay zone records: a zone the cart starts holding in waits for the zone's
 * cooldown and starts or joins the client's holding of it; a zone it no longer holds anything in starts the
 * cooldown when the cart lets go (as for an item-date), growing with the time the zone was held.
 */
function zoneActions(
  ctx: HoldContext,
  options: {
    before: StoredSession;
    after: StoredSession;
    client: string;
    periods: ReadonlyMap<string, HoldPeriod>;
    zones?: ReadonlyMap<string, string[]> | undefined;
  },
): NamedAction<ActionRole>[] {
  const { before, after, client } = options;
  const seconds = unixSeconds(ctx.now);
  const policy = reholdCooldownOf(ctx.config.settings);
  const held = before.zones ?? {};
  const holds = after.zones ?? {};
  const named: NamedAction<ActionRole>[] = [];
  for (const zoneId of Object.keys(holds)) {
    if (held[zoneId] !== undefined) continue;
    const counters = options.zones?.get(zoneId) ?? [];
    const period = options.periods.get(zoneId) ?? { kind: 'start', since: seconds };
    named.push({
      action: holdZoneAction(ctx.db, { client, zoneId, cart: after.id, period, nowSeconds: seconds }),
      role: {
        kind: 'zone',
        zone: zoneId,
        counter: counters.find((id) => !before.holds[id]) ?? counters[0] ?? '',
      },
    });
  }
  const lettingGo = policy.seconds > 0 && ctx.startsCooldown !== false;
  for (const [zoneId, since] of Object.entries(held)) {
    if (holds[zoneId] !== undefined) continue;
    const until = cooldownUntil(policy, { since, from: seconds });
    const cooldown = lettingGo ? { until, sessionId: after.id, nowSeconds: seconds } : undefined;
    named.push({
      action: releaseZoneAction(ctx.db, { client, zoneId, cart: after.id, cooldown }),
      role: { kind: 'zone', zone: zoneId, counter: '' },
    });
  }
  return named;
}

/**
 * How a cart's first hold of each counter stands to its client's other carts, from the client's records: it
 * joins the holding of a cart that still holds the counter (an open cart of the client), or of its own
 * that let go of it while that cooldown runs; it restarts it when the carts recorded are gone (booked); it
 * starts it otherwise. Reads the client's holding carts only when a record names another.
 */
export async function periodsOf(
  db: Db,
  options: {
    client: string;
    sessionId: string;
    counters: string[];
    states: ReadonlyMap<string, ClientHoldState>;
    nowSeconds: number;
  },
): Promise<Map<string, HoldPeriod>> {
  const periods = new Map<string, HoldPeriod>();
  let open: Set<string> | undefined;
  for (const id of options.counters) {
    const state = options.states.get(id);
    const carts = state?.carts ?? [];
    const others = carts.filter((cart) => cart !== options.sessionId);
    const ownCooldown =
      state?.cooldown !== undefined &&
      state.cooldown.until > options.nowSeconds &&
      state.cooldown.sessionId === options.sessionId;
    if (others.length && !ownCooldown) open ??= new Set(await getClientSessions(db, options.client));
    // Taking back what it let go while its own cooldown runs continues its holding, so the next let-go
    // cools down at least as long as the last.
    if (ownCooldown || others.some((cart) => open?.has(cart))) {
      periods.set(id, { kind: 'join', anchor: state?.anchor });
    } else if (carts.length) {
      periods.set(id, { kind: 'restart', since: options.nowSeconds, seen: carts });
    } else {
      periods.set(id, { kind: 'start', since: options.nowSeconds });
    }
  }
  return periods;
}

/** Whether two periods of a counter put the same conditions on the client's record (any two starts do). */
export const samePeriod = (a: HoldPeriod | undefined, b: HoldPeriod | undefined): boolean => {
  const kindA = a?.kind ?? 'start';
  const kindB = b?.kind ?? 'start';
  if (kindA === 'start' || kindB === 'start') return kindA === kindB;
  return JSON.stringify(a) === JSON.stringify(b);
};
