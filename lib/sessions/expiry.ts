import type { Db } from '../kernel/storage/database.ts';
import {
  ConditionsFailedError,
  type RetryPolicy,
  type TransactItem,
  transact,
} from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { parseCounterId, releaseStockAction } from '../stock/index.ts';
import { type CooldownPolicy, releaseBudgetActions } from './budgets.ts';
import { expireSessionAction, getSession } from './repository.ts';

/**
 * The sweeper's release of one expired session: its holds go back in one transaction conditioned on the
 * session still being open, still expired and unchanged, so an extension made meanwhile, a crash or a
 * second run never releases wrongly or twice. In the same transaction its client may not hold those
 * counters again until the re-hold cooldown of `cooldown` (default none) after the expiry, longer for a
 * counter held longer. Returns whether it released.
 */
export async function releaseExpiredSession(
  db: Db,
  options: { sessionId: string; now: number; cooldown?: CooldownPolicy; retry?: RetryPolicy },
): Promise<boolean> {
  const nowSeconds = unixSeconds(options.now);
  const session = await getSession(db, options.sessionId);
  if (session?.status !== 'open' || session.expires_at > nowSeconds) return false;
  const actions: TransactItem[] = Object.entries(session.holds).map(([id, units]) => {
    const { itemId, slot } = parseCounterId(id);
    return releaseStockAction(db, { itemId, slot, units });
  });
  actions.push(
    ...releaseBudgetActions(
      db,
      session,
      options.cooldown ? { policy: options.cooldown, from: session.expires_at, nowSeconds } : undefined,
    ),
  );
  actions.push(
    expireSessionAction(db, { session, nowSeconds: unixSeconds(options.now), nowMs: options.now }),
  );
  try {
    await transact(db, actions, options.retry);
    return true;
  } catch (error) {
    if (error instanceof ConditionsFailedError) return false;
    throw error;
  }
}
