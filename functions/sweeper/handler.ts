import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { paymentProviderFromEnv } from '#lib/payments/index.ts';
import { dbFromEnv, metricsFromEnv, numberFromEnv } from '#lib/runtime/env.ts';
import { meterOf } from '#lib/runtime/metrics.ts';
import { createSweeper, DEFAULT_SWEEP_BUDGET_MS } from './job.ts';

const metrics = metricsFromEnv();

/**
 * Lambda entry of the sweeper, run every minute by EventBridge Scheduler; its metrics flushed per run. It
 * records no X-Ray traces (every run would be one: docs/cost.md), so it loads no X-Ray SDK.
 */
export const handler = middy(
  createSweeper({
    db: dbFromEnv(),
    budgetMs: numberFromEnv('SWEEP_BUDGET_MS', DEFAULT_SWEEP_BUDGET_MS),
    meter: meterOf(metrics),
    payments: paymentProviderFromEnv(),
  }),
).use(logMetrics(metrics));
