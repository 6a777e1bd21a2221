import type { StoredConfig } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { unixSeconds } from '../kernel/time.ts';
import { getClientHolds, type HoldPeriod } from './budget-repository.ts';
import { reholdCooldownOf } from './budgets.ts';
import { type ActionRole, periodsOf, samePeriod, startedCounters } from './hold-actions.ts';
import { coolingDown, holdLimitCounter } from './refusals.ts';
import type { StoredSession } from './repository.ts';

// Why a cart change's budget conditions failed, read back from the client's records: the refusal to answer,
// or how the change stands to the client's other carts so it can be tried again.

/**
 * Tells why the client's records refused a change, from a consistent read of them: a cooldown another cart
 * started on an item-date or a stay zone (409 `hold_limit` with `retry_after`), a share that would be
 * exceeded (409 `hold_limit`), or a counter or zone the change starts holding that the client's other carts
 * hold (or that this cart let go while its cooldown runs), which `periods` then records so the change is
 * tried again joining that holding.
 */
export async function explainBudget(
  ctx: { db: Db; config: StoredConfig; now: number },
  options: {
    before: StoredSession;
    next: StoredSession;
    owners: Record<string, string>;
    budgets: Extract<ActionRole, { kind: 'client' | 'zone' }>[];
    periods: Map<string, HoldPeriod>;
  },
): Promise<void> {
  const { before, next, budgets, periods } = options;
  const client = next.client as string;
  const refusalAt = { owners: options.owners, lines: next.lines, config: ctx.config, now: ctx.now };
  const now = unixSeconds(ctx.now);
  const starting = [
    ...startedCounters(before, next),
    ...Object.keys(next.zones ?? {}).filter((id) => before.zones?.[id] === undefined),
  ];
  const recordOf = (role: (typeof budgets)[number]) => (role.kind === 'zone' ? role.zone : role.counter);
  const states = await getClientHolds(ctx.db, {
    client,
    counterIds: [...budgets.map(recordOf), ...starting],
  });
  for (const role of budgets) {
    // One condition guards the share, the cooldown and the holding: the record tells which one refused.
    const cooldown = states.get(recordOf(role))?.cooldown;
    if (cooldown && cooldown.until > now && cooldown.sessionId !== next.id) {
      throw coolingDown(role.counter, refusalAt, {
        until: cooldown.until,
        now,
        nearby: role.kind === 'zone',
      });
    }
  }
  for (const role of budgets) {
    if (role.kind !== 'client') continue;
    const { counter, allowance } = role;
    const delta = (next.holds[counter] ?? 0) - (before.holds[counter] ?? 0);
    if (allowance > 0 && (states.get(counter)?.held ?? 0) + delta > allowance) {
      throw holdLimitCounter(counter, refusalAt, { allowance });
    }
  }
  if (reholdCooldownOf(ctx.config.settings).seconds > 0) {
    const found = await periodsOf(ctx.db, {
      client,
      sessionId: next.id,
      counters: starting,
      states,
      nowSeconds: now,
    });
    let changed = false;
    for (const [id, period] of found) {
      if (samePeriod(periods.get(id), period)) continue;
      periods.set(id, period);
      changed = true;
    }
    if (changed) return;
  }
  const [first] = budgets;
  if (first) {
    throw holdLimitCounter(first.counter, refusalAt, {
      ...(first.kind === 'client' ? { allowance: first.allowance } : {}),
    });
  }
}
