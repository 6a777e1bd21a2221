import type { Caller } from '../access/index.ts';
import type { StoredConfig } from '../config/index.ts';
import { waitOf } from '../kernel/guest-words.ts';
import type { Db } from '../kernel/storage/database.ts';
import { unixSeconds } from '../kernel/time.ts';
import { countRequestInWindow, type WindowBudgets } from '../limits/index.ts';
import { ApiError } from './errors.ts';
import type { Input } from './parse.ts';
import type { Route } from './routes.ts';

/** Limits are counted per client in fixed windows of this length. */
const RATE_WINDOW_SECONDS = 60;

/** Whether a customer's call of a route counts against the write budget. */
const isWrite = (route: Route, input: Input): boolean =>
  route.writes === true || (route.writes ?? []).some((name) => input[name] !== undefined);

/** Which counter a call is charged to and with what budgets; undefined when the route is not limited. */
export function budgetOf(options: {
  caller: Caller;
  client: string;
  route: Route;
  input: Input;
  config: StoredConfig;
}): { counter: string; budgets: WindowBudgets } | undefined {
  const { limits } = options.config.settings;
  if (options.caller.kind === 'staff') {
    return {
      counter: `staff:${options.caller.credentialKey}`,
      budgets: { requests: limits.staff_requests_per_minute },
    };
  }
  if (options.route.access === 'staff') return undefined;
  return {
    counter: `client:${options.client}`,
    budgets: {
      requests: limits.requests_per_minute,
      ...(isWrite(options.route, options.input) ? { writes: limits.writes_per_minute } : {}),
    },
  };
}

/**
 * Charges a call to its client's budgets (shared by every function instance through DynamoDB) and
 * returns the `RateLimit-*` headers of the tighter budget. Over a budget it throws 429 `rate_limited`
 * with `Retry-After`; another client's counters are never touched.
 */
export async function enforceRateLimit(
  db: Db,
  options: { counter: string; budgets: WindowBudgets; now: number },
): Promise<Record<string, string>> {
  const nowSeconds = unixSeconds(options.now);
  const windowStart = nowSeconds - (nowSeconds % RATE_WINDOW_SECONDS);
  const reset = String(windowStart + RATE_WINDOW_SECONDS - nowSeconds);
  const count = await countRequestInWindow(db, {
    client: options.counter,
    windowStart,
    windowSeconds: RATE_WINDOW_SECONDS,
    budgets: options.budgets,
  });
  const { requests: requestBudget, writes: writeBudget } = options.budgets;
  const left = (budget: number, used: number) => Math.max(0, budget - used);
  const tighter =
    writeBudget !== undefined &&
    (!count.admitted
      ? count.exceeded === 'writes'
      : left(writeBudget, count.writes ?? 0) < left(requestBudget, count.requests))
      ? { limit: writeBudget, used: count.writes ?? 0 }
      : { limit: requestBudget, used: count.requests };
  const headers = {
    'ratelimit-limit': String(tighter.limit),
    'ratelimit-remaining': String(left(tighter.limit, tighter.used)),
    'ratelimit-reset': reset,
  };
  if (!count.admitted) {
    throw new ApiError('rate_limited', {
      details: `Too many ${count.exceeded === 'requests' ? 'requests' : 'changes'} in a short time; try again in ${waitOf(Number(reset))}`,
      data: { limit: tighter.limit, retry_after: Number(reset) },
      headers: { ...headers, 'retry-after': reset },
    });
  }
  return headers;
}
