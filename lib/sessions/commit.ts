import { createItemLoader, type ItemLoader, type StoredItem } from '../config/index.ts';

import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { commitWithRetry, type NamedAction, type RetryPolicy } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import type { SlipKey } from '../slip/index.ts';
import { parseCounterId, queryStockRange } from '../stock/index.ts';
import { explainBudget } from './budget-refusal.ts';
import { getClientSessions, type HoldPeriod } from './budget-repository.ts';
import { reholdCooldownOf } from './budgets.ts';
import { spendChallengeAction } from './challenge-repository.ts';
import { releaseExpiredSession } from './expiry.ts';
import { type ActionRole, holdActions, type PowState, withHeldSince } from './hold-actions.ts';
import type { Change, LineContext } from './lines.ts';
import { challengeRequired, type PowBinding, verifyChallenge } from './pow.ts';
import { holdLimitCounter, unavailableCounter } from './refusals.ts';
import { putSessionAction, type StoredSession } from './repository.ts';
import { zonesOfHolds } from './zones.ts';

/** What every session operation needs: the line rules' context, the table and the SLIP keys. */
export interface SessionContext extends LineContext {
  db: Db;
  keys: readonly SlipKey[];
  retry?: RetryPolicy;
  /** The request's item loader, so one request reads each item once. */
  loadItems?: ItemLoader;
  /**
   * The request's loader of items as they are in the table now (consistent reads): a change that takes
   * stock decides what a line takes, and the capacity it is held on, from these rather than from
   * `loadItems` when that answers from a kept catalogue.
   */
  freshItems?: ItemLoader;
  /** The request's `altcha` parameter: a solved proof-of-work challenge, for holds under pressure. */
  altcha?: string;
  /**
   * False when the service itself lets go of a cart the same call made (a create that failed after
   * holding): the client did not let anything go, so no re-hold cooldown starts.
   */
  startsCooldown?: boolean;
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
      cooldown: reholdCooldownOf(ctx.config.settings),
      ...(ctx.retry ? { retry: ctx.retry } : {}),
    });
    released ||= done;
  }
  return released;
}

/** What one commit of a session change has learnt so far, across its attempts. */
interface CommitRun {
  ctx: SessionContext;
  /** Whether the client's expired carts were released once already. */
  cleaned: boolean;
  /** Whether the change reads its items from the table (a change that takes stock does). */
  fresh: boolean;
  /** The last attempt's change, and the session it was made from. */
  written?: Change;
  before?: StoredSession;
  /** How the counters this change starts holding stand to the client's other carts, once known. */
  periods: Map<string, HoldPeriod>;
  pow: PowState;
  binding: PowBinding;
  /** Why the presented proof-of-work solution was refused, if it was. */
  refused?: 'invalid' | 'expired' | 'foreign';
}

/** 409 challenge_required for the counters the change grows under pressure. */
const needChallenge = async (run: CommitRun, reason: Parameters<typeof challengeRequired>[0]['reason']) => {
  const { ctx, pow } = run;
  const written = run.written as Change;
  return challengeRequired({
    keys: ctx.keys,
    settings: ctx.config.settings.pow,
    binding: run.binding,
    counters: pow.gated,
    at: { owners: written.owners, lines: written.next.lines, config: ctx.config, now: ctx.now },
    now: ctx.now,
    reason: run.refused ?? (pow.solved ? (reason === 'pressure' ? 'other_dates' : reason) : reason),
  });
};

/** Whether a counter has the units left when the reserve is not counted (else it is unavailable). */
const fitsWithoutReserve = async (
  ctx: SessionContext,
  counter: string,
  gate: { capacity: number; units: number },
) => {
  const { itemId, slot } = parseCounterId(counter);
  const used = (await queryStockRange(ctx.db, { itemId, first: slot, last: slot })).get(slot) ?? 0;
  return used + gate.units <= gate.capacity;
};

/**
 * The change and the items it was worked out from. A change that takes stock works out what its lines take,
 * and the capacity they are held on, from the items as they are now: a kept catalogue may still say
 * unlimited, or a stock since lowered. So does a refusal: the catalogue may still say withdrawn.
 */
async function decideChange(
  run: CommitRun,
  session: StoredSession,
  change: (session: StoredSession, all: StoredItem[]) => Change,
  itemIds: number[],
): Promise<{ all: StoredItem[]; change: Change }> {
  const { ctx } = run;
  const ids = [...itemIds, ...Object.values(session.lines).map((line) => line.item_id)];
  // Without a loader of the request's (a create holding its `slip[]`), the items are read now.
  const kept = ctx.loadItems ?? createItemLoader(ctx.db, { consistent: true });
  const byItems = async (fromTable: boolean) => {
    const all = await (fromTable && ctx.freshItems ? ctx.freshItems : kept)(ids);
    return { all, change: change(session, all) };
  };
  let decided: Awaited<ReturnType<typeof byItems>>;
  try {
    decided = await byItems(run.fresh);
  } catch (error) {
    const byItem = error instanceof DomainError && ['unavailable', 'invalid_slip'].includes(error.code);
    if (run.fresh || !ctx.freshItems || !byItem) throw error;
    run.fresh = true;
    decided = await byItems(true);
  }
  if (decided.change.takes && !run.fresh && ctx.freshItems) {
    run.fresh = true;
    decided = await byItems(true);
  }
  return decided;
}

/**
 * The rest of one change's writes after its hold actions, named: the spent proof-of-work challenge, and the
 * session itself, only if nobody changed it meanwhile. A change over one transaction's reach is refused.
 */
function completeCommit(
  run: CommitRun,
  write: NamedAction<ActionRole>[],
  input: { session: StoredSession; next: StoredSession },
): NamedAction<ActionRole>[] {
  const { ctx, pow } = run;
  const { session, next } = input;
  if (pow.spends && pow.solved) {
    const { nonce, expiresAt } = pow.solved;
    const action = spendChallengeAction(ctx.db, { nonce, expiresAt, nowSeconds: unixSeconds(ctx.now) });
    write.push({ role: { kind: 'challenge' }, action });
  }
  const previous = session.version === 0 ? {} : { previousVersion: session.version };
  const action = putSessionAction(ctx.db, { session: next, ...previous, nowSeconds: unixSeconds(ctx.now) });
  write.push({ role: { kind: 'session' }, action });
  if (write.length > 100) {
    throw new DomainError('validation_error', 'Too many item-dates change in one call; split the changes', {
      alter: 'too many item-dates change in one call',
    });
  }
  return write;
}

/** Checks the presented proof-of-work solution, good for the cart it was issued to and its client. */
async function verifyPow(run: CommitRun, session: StoredSession, next: StoredSession): Promise<void> {
  const { ctx } = run;
  // '' while the call opens the cart.
  run.binding = { session: session.version === 0 ? '' : session.id, client: next.client ?? '' };
  run.pow = { gated: [], blocked: [], spends: false };
  delete run.refused;
  if (!ctx.altcha || !next.client) return;
  const verified = await verifyChallenge({
    keys: ctx.keys,
    payload: ctx.altcha,
    binding: run.binding,
    now: ctx.now,
  });
  if ('refused' in verified) run.refused = verified.refused;
  else run.pow.solved = verified;
}

/**
 * What failed conditions mean: the session changed meanwhile (read again), a challenge spent, the client's
 * expired carts in the way (released once, then again), a counter unavailable or gated, a budget refused.
 */
async function explainRefusal(run: CommitRun, failed: ActionRole[]): Promise<void> {
  const { ctx } = run;
  if (failed.some((role) => role.kind === 'session')) return;
  const { next, owners } = run.written as Change;
  const refusalAt = { owners, lines: next.lines, config: ctx.config, now: ctx.now };
  if (failed.some((role) => role.kind === 'challenge')) throw await needChallenge(run, 'spent');
  // The client's own carts that expired before the sweeper came still take stock, its share and its slots:
  // release them once (recording their cooldown) and try again before refusing.
  if (!run.cleaned && next.client) {
    run.cleaned = true;
    if (await releaseClientExpiredSessions(ctx, next.client)) return;
  }
  const stock = failed.find((role) => role.kind === 'stock');
  if (stock?.kind === 'stock') {
    // A gated counter refused only for its reserve asks for a solution; one without the units is gone.
    if (stock.gated && (await fitsWithoutReserve(ctx, stock.counter, stock.gated)))
      throw await needChallenge(run, 'pressure');
    throw unavailableCounter(stock.counter, refusalAt);
  }
  const budgets = failed.flatMap((role) => (role.kind === 'client' || role.kind === 'zone' ? [role] : []));
  if (budgets.length) {
    await explainBudget(ctx, {
      before: run.before as StoredSession,
      next,
      owners,
      budgets,
      periods: run.periods,
    });
  }
  if (failed.some((role) => role.kind === 'sessions')) {
    throw holdLimitCounter(Object.keys(next.holds)[0] ?? '', refusalAt, {
      sessions: ctx.config.settings.limits.open_sessions_per_client,
    });
  }
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
  /** The items of new lines, and whether the change surely takes stock (adding lines does). */
  adds: { itemIds: number[]; takes: boolean } = { itemIds: [], takes: false },
): Promise<StoredSession> {
  const run: CommitRun = {
    ctx,
    cleaned: false,
    fresh: adds.takes && ctx.freshItems !== undefined,
    periods: new Map(),
    pow: { gated: [], blocked: [], spends: false },
    binding: { session: '', client: '' },
  };
  return commitWithRetry<StoredSession, ActionRole>(ctx.db, {
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    attempt: async () => {
      const session = await read();
      const decided = await decideChange(run, session, change, adds.itemIds);
      if (decided.change.next === session) return { done: session };
      const { owners } = decided.change;
      const zones = stayZonesOf(ctx, decided.change.next, decided.all);
      const next = withHeldSince(session, decided.change.next, {
        periods: run.periods,
        nowSeconds: unixSeconds(ctx.now),
        zones,
      });
      run.written = { ...decided.change, next };
      run.before = session;
      await verifyPow(run, session, next);
      // The hold actions (counters and the client's budget) tell which counters are gated under pressure.
      const holds = holdActions(ctx, {
        before: session,
        after: next,
        all: decided.all,
        owners,
        pow: run.pow,
        periods: run.periods,
        zones,
      });
      const blocked = run.pow.blocked[0];
      if (blocked) {
        throw (await fitsWithoutReserve(ctx, blocked.counter, blocked))
          ? await needChallenge(run, 'pressure')
          : unavailableCounter(blocked.counter, {
              owners,
              lines: next.lines,
              config: ctx.config,
              now: ctx.now,
            });
      }
      return { write: completeCommit(run, holds, { session, next }), result: next };
    },
    onFailed: (failed) => explainRefusal(run, failed),
  });
}

/**
 * The stay zones of a cart's holds, with their counters, when its client has a re-hold cooldown (the zones
 * carry it for stays); none otherwise.
 */
const stayZonesOf = (
  ctx: SessionContext,
  session: StoredSession,
  items: StoredItem[],
): Map<string, string[]> | undefined =>
  session.client && reholdCooldownOf(ctx.config.settings).seconds > 0
    ? zonesOfHolds(session.holds, items)
    : undefined;
