import { createDb } from '#lib/db/client.ts';
import { createSweeper, DEFAULT_SWEEP_BUDGET_MS } from './app.ts';

const tableName = process.env.TABLE_NAME;
if (!tableName) throw new Error('Missing environment variable TABLE_NAME');

/** Lambda entry of the sweeper, run every minute by EventBridge. */
export const handler = createSweeper({
  db: createDb({ tableName, endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION }),
  budgetMs: Number(process.env.SWEEP_BUDGET_MS ?? DEFAULT_SWEEP_BUDGET_MS),
});
