import type { Db } from '../../kernel/storage/database.ts';
import { budgetOf, enforceRateLimit } from '../rate-limit.ts';
import { type ApiMiddleware, stateWith } from '../request-state.ts';
import type { Route } from '../routes.ts';

/**
 * Charges the call to its client's (or staff credential's) budgets, shared by every function instance
 * through DynamoDB: 429 `rate_limited` over a budget, and the `RateLimit-*` headers on every answer.
 */
export const rateLimit = (options: { db: Db; route: Route }): ApiMiddleware => ({
  before: async ({ event }) => {
    const state = stateWith(event, 'config', 'parsed', 'caller', 'requester');
    const budget = budgetOf({
      caller: state.caller,
      client: state.requester,
      route: options.route,
      input: state.parsed.input,
      config: state.config,
    });
    if (budget) state.limitHeaders = await enforceRateLimit(options.db, { ...budget, now: state.startedAt });
  },
});
