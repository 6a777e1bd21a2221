import { unixSeconds } from '../core/time.ts';
import { spendChallengeAction } from '../db/challenge-repository.ts';
import type { Db } from '../db/client.ts';
import {
  claimClientSessionAction,
  dropClientSessionAction,
  getClientCooldown,
  getClientSessions,
  holdClientUnitsAction,
  releaseClientUnitsAction,
} from '../db/client-hold-repository.ts';
import { putSessionAction, type StoredSession } from '../db/session-repository.ts';
import {
  holdStockAction,
  parseCounterId,
  queryStockRange,
  releaseStockAction,
} from '../db/stock-repository.ts';
import { createItemLoader, type ItemLoader, type StoredItem } from '../db/tenant-repository.ts';
import { commitWithRetry, type NamedAction, type RetryPolicy, type TransactItem } from '../db/transact.ts';
import type { SlipKey } from '../slip/codec.ts';
import { type Change, type LineContext, MAX_COUNTER_CHANGES } from './cart-lines.ts';
import { DomainError } from './errors.ts';
import { coolingDown, holdLimitCounter, unavailableCounter } from './hold-refusals.ts';
import { challengeRequired, type PowBinding, type SolvedChallenge, verifyChallenge } from './pow.ts';
import { capacityOf, clientAllowance, isHolding, powReserve, reholdCooldownSeconds } from './stock.ts';
import { releaseExpiredSession } from './sweep.ts';

/** What every session operation needs: the line rules' context, the table and the SLIP keys. */
export interface SessionContext extends LineContext {
  db: Db;
  keys: readonly SlipKey[];
  retry?: RetryPolicy;
  /** The request's item loader, so one request reads each item once. */
  loadItems?: ItemLoader;
  /** The request's `altcha` parameter: a solved proof-of-work challenge, for holds under pressure. */
  altcha?: string;
  /**
   * False when the service itself lets go of a cart the same call made (a create that failed after
   * holding): the client did not let anything go, so no re-hold cooldown starts.
   */
  startsCooldown?: boolean;
}

/** What one action of a session transaction does, to tell which rule a failed condition broke. */
type ActionRole =
  | { kind: 'stock'; counter: string; gated?: { capacity: number; units: number } }
  | { kind: 'client'; counter: string; allowance: number }
  | { kind: 'sessions' }
  | { kind: 'session' }
  | { kind: 'challenge' };

/** The proof-of-work side of one change: what the presented solution allows, and what still needs one. */
interface PowState {
  solved?: SolvedChallenge;
  /** Counters this change grows under pressure that the solution does not cover. */
  gated: string[];
  /** Of those, the ones no hold without a solution could get at all (the reserve alone is too big). */
  blocked: { counter: string; capacity: number; units: number }[];
  /** Whether the change spends the solution. */
  spends: boolean;
}

/**
 * The actions that move a session's holds from `before` to `after`: each counter that grows is held on
 * capacity and (for a budgeted client) on the client's allowance; each that shrinks is released from both;
 * and the client's set of holding sessions gains or loses the session when it starts or stops holding.
 */
function holdActions(
  ctx: SessionContext,
  options: {
    before: StoredSession;
    after: StoredSession;
    all: StoredItem[];
    owners: Record<string, string>;
    pow: PowState;
  },
): NamedAction<ActionRole>[] {
  const { before, after } = options;
  const client = before.client ?? after.client;
  const seconds = unixSeconds(ctx.now);
  const named: NamedAction<ActionRole>[] = [];
  const push = (action: TransactItem, role: ActionRole) => {
    named.push({ action, role });
  };
  const cooldown = reholdCooldownSeconds(ctx.config.settings);
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
        // the cooldown of expiry (and start a new cart lifetime).
        const lettingGo = cooldown > 0 && ctx.startsCooldown !== false && !after.holds[id];
        const release = releaseClientUnitsAction(ctx.db, {
          client,
          counterId: id,
          units: -delta,
          cooldown: lettingGo
            ? { until: seconds + cooldown, sessionId: after.id, nowSeconds: seconds }
            : undefined,
        });
        push(release, {
          kind: 'client',
          counter: id,
          allowance: 0,
        });
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
      push(
        holdClientUnitsAction(ctx.db, {
          client,
          counterId: id,
          units: delta,
          allowance,
          nowSeconds: seconds,
          ...(cooldown > 0 ? { cooldownSession: after.id } : {}),
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
 * Releases a client's sessions that have already expired but that the sweeper has not reached yet, as
 * the sweeper would (their cooldown included), so a guest who abandoned carts is not held back by them
 * until the next sweep. Returns whether it released any.
 */
async function releaseClientExpiredSessions(ctx: SessionContext, client: string): Promise<boolean> {
  let released = false;
  for (const sessionId of await getClientSessions(ctx.db, client)) {
    const done = await releaseExpiredSession(ctx.db, {
      sessionId,
      now: ctx.now,
      cooldownSeconds: reholdCooldownSeconds(ctx.config.settings),
      ...(ctx.retry ? { retry: ctx.retry } : {}),
    });
    released ||= done;
  }
  return released;
}

/**
 * Writes a changed session and the difference of its holds in one transaction: counters that grow are
 * held conditionally on capacity and on the client's hold budget, those that shrink are released, and the
 * session only if nobody changed it meanwhile. A failed counter is 409 `unavailable` naming the line and
 * date; a budget that would be exceeded is 409 `hold_limit`; a concurrent change of the session is re-read
 * and re-applied; persistent conflicts end in 503 `busy`.
 */
export async function commitSession(
  ctx: SessionContext,
  read: () => Promise<StoredSession>,
  change: (session: StoredSession, all: StoredItem[]) => Change,
  itemIds: number[] = [],
): Promise<StoredSession> {
  let cleaned = false;
  let written: Change | undefined;
  let pow: PowState = { gated: [], blocked: [], spends: false };
  let binding: PowBinding = { session: '', client: '' };
  let refused: 'invalid' | 'expired' | 'foreign' | undefined;
  /** 409 challenge_required for the counters this change grows under pressure. */
  const needChallenge = (reason: Parameters<typeof challengeRequired>[0]['reason']) =>
    challengeRequired({
      keys: ctx.keys,
      settings: ctx.config.settings.pow,
      binding,
      counters: pow.gated,
      at: {
        owners: (written as Change).owners,
        lines: (written as Change).next.lines,
        config: ctx.config,
        now: ctx.now,
      },
      now: ctx.now,
      reason: refused ?? (pow.solved ? (reason === 'pressure' ? 'other_dates' : reason) : reason),
    });
  /** Whether a counter has the units left when the reserve is not counted (else it is unavailable). */
  const fitsWithoutReserve = async (counter: string, gate: { capacity: number; units: number }) => {
    const { itemId, slot } = parseCounterId(counter);
    const used = (await queryStockRange(ctx.db, { itemId, first: slot, last: slot })).get(slot) ?? 0;
    return used + gate.units <= gate.capacity;
  };
  return commitWithRetry<StoredSession, ActionRole>(ctx.db, {
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    attempt: async () => {
      const session = await read();
      const all = await (ctx.loadItems ?? createItemLoader(ctx.db))([
        ...itemIds,
        ...Object.values(session.lines).map((line) => line.item_id),
      ]);
      written = change(session, all);
      const { next, owners } = written;
      if (next === session) return { done: session };
      // A solution is good for the cart it was issued to ('' while the call opens one) and its client.
      binding = { session: session.version === 0 ? '' : session.id, client: next.client ?? '' };
      pow = { gated: [], blocked: [], spends: false };
      refused = undefined;
      if (ctx.altcha && next.client) {
        const verified = await verifyChallenge({
          keys: ctx.keys,
          payload: ctx.altcha,
          binding,
          now: ctx.now,
        });
        if ('refused' in verified) refused = verified.refused;
        else pow.solved = verified;
      }
      const write = holdActions(ctx, { before: session, after: next, all, owners, pow });
      const blocked = pow.blocked[0];
      if (blocked) {
        throw (await fitsWithoutReserve(blocked.counter, blocked))
          ? await needChallenge('pressure')
          : unavailableCounter(blocked.counter, {
              owners,
              lines: next.lines,
              config: ctx.config,
              now: ctx.now,
            });
      }
      if (pow.spends && pow.solved) {
        write.push({
          role: { kind: 'challenge' },
          action: spendChallengeAction(ctx.db, {
            nonce: pow.solved.nonce,
            expiresAt: pow.solved.expiresAt,
            nowSeconds: unixSeconds(ctx.now),
          }),
        });
      }
      write.push({
        role: { kind: 'session' },
        action: putSessionAction(ctx.db, {
          session: next,
          ...(session.version === 0 ? {} : { previousVersion: session.version }),
          nowSeconds: unixSeconds(ctx.now),
        }),
      });
      if (write.length > 100) {
        throw new DomainError(
          'validation_error',
          'Too many item-dates change in one call; split the changes',
          {
            alter: 'too many item-dates change in one call',
          },
        );
      }
      return { write, result: next };
    },
    onFailed: async (failed) => {
      // Someone changed (or expired) the session since we read it: read again and re-apply.
      if (failed.some((role) => role.kind === 'session')) return;
      const { next, owners } = written as Change;
      const refusalAt = { owners, lines: next.lines, config: ctx.config, now: ctx.now };
      if (failed.some((role) => role.kind === 'challenge')) throw await needChallenge('spent');
      // The client's own carts that expired before the sweeper came still take stock, its share and its
      // slots: release them once (recording their cooldown) and try again before refusing.
      if (!cleaned && next.client) {
        cleaned = true;
        if (await releaseClientExpiredSessions(ctx, next.client)) return;
      }
      const stock = failed.find((role) => role.kind === 'stock');
      if (stock?.kind === 'stock') {
        // A gated counter refused only for its reserve asks for a solution; one without the units is gone.
        if (stock.gated && (await fitsWithoutReserve(stock.counter, stock.gated))) {
          throw await needChallenge('pressure');
        }
        throw unavailableCounter(stock.counter, refusalAt);
      }
      const budget = failed.find((role) => role.kind === 'client');
      if (budget?.kind === 'client') {
        // One condition guards both the share and the cooldown: the record tells which one refused.
        const cooldown = await getClientCooldown(ctx.db, {
          client: next.client as string,
          counterId: budget.counter,
        });
        const now = unixSeconds(ctx.now);
        if (cooldown && cooldown.until > now && cooldown.sessionId !== next.id) {
          throw coolingDown(budget.counter, refusalAt, { until: cooldown.until, now });
        }
        throw holdLimitCounter(budget.counter, refusalAt, { allowance: budget.allowance });
      }
      if (failed.some((role) => role.kind === 'sessions')) {
        throw holdLimitCounter(Object.keys(next.holds)[0] ?? '', refusalAt, {
          sessions: ctx.config.settings.limits.open_sessions_per_client,
        });
      }
    },
  });
}
