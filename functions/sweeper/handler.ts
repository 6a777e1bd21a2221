import { dbFromEnv, numberFromEnv } from '#lib/http/runtime.ts';
import { createSweeper, DEFAULT_SWEEP_BUDGET_MS } from './app.ts';

/** Lambda entry of the sweeper, run every minute by EventBridge. */
export const handler = createSweeper({
  db: dbFromEnv(),
  budgetMs: numberFromEnv('SWEEP_BUDGET_MS', DEFAULT_SWEEP_BUDGET_MS),
});
