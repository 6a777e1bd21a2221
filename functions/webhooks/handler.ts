import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { dbFromEnv, metricsFromEnv, requiredEnv } from '#lib/runtime/env.ts';
import { meterOf } from '#lib/runtime/metrics.ts';
import { createSecretsManagerStore } from '#lib/webhooks/index.ts';
import { createDispatcher, createDispatchInvocation } from './job.ts';

const dispatch = createDispatcher({
  db: dbFromEnv(),
  secrets: createSecretsManagerStore({
    secretArn: requiredEnv('WEBHOOK_SECRETS_ARN'),
    region: process.env.AWS_REGION,
  }),
  policy: 'deployed',
});

const metrics = metricsFromEnv();

/**
 * Lambda entry of the webhook dispatcher, run by the table's stream when a delivery is written (first
 * attempts within seconds) and every minute by EventBridge Scheduler (retries and replays). A failed stream
 * batch is retried by Lambda and then sent to the dead-letter queue; the deliveries themselves stay in the
 * table. It records no X-Ray traces (a run a minute: docs/cost.md), so it loads no X-Ray SDK.
 */
export const handler = middy(
  createDispatchInvocation({ dispatch, meter: meterOf(metrics), budgetMs: 45_000 }),
).use(logMetrics(metrics));
