import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import { meterOf } from '#lib/http/observability.ts';
import { metricsFromEnv, numberFromEnv } from '#lib/http/runtime.ts';
import { tracedDbFromEnv, tracer } from '#lib/http/tracing.ts';
import { createSweeper, DEFAULT_SWEEP_BUDGET_MS } from './app.ts';

const metrics = metricsFromEnv();

/** Lambda entry of the sweeper, run every minute by EventBridge; traced, its metrics flushed per run. */
export const handler = middy(
  createSweeper({
    db: tracedDbFromEnv(),
    budgetMs: numberFromEnv('SWEEP_BUDGET_MS', DEFAULT_SWEEP_BUDGET_MS),
    meter: meterOf(metrics),
  }),
)
  .use(captureLambdaHandler(tracer, { captureResponse: false }))
  .use(logMetrics(metrics));
