import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import { METRIC } from '#lib/core/metric-names.ts';
import { createSecretsManagerStore } from '#lib/db/webhook-secret-store.ts';
import { DISPATCH_BATCH } from '#lib/domain/webhook-dispatch.ts';
import { logger } from '#lib/http/logger.ts';
import { meterOf } from '#lib/http/observability.ts';
import { metricsFromEnv, requiredEnv } from '#lib/http/runtime.ts';
import { tracedDbFromEnv, tracer } from '#lib/http/tracing.ts';
import { createDispatcher } from './app.ts';

const dispatch = createDispatcher({
  db: tracedDbFromEnv(),
  secrets: createSecretsManagerStore({
    secretArn: requiredEnv('WEBHOOK_SECRETS_ARN'),
    region: process.env.AWS_REGION,
  }),
  policy: 'deployed',
});

const metrics = metricsFromEnv();
const meter = meterOf(metrics);

/** How long one invocation keeps dispatching (well inside its timeout; the next run takes the rest). */
const BUDGET_MS = 45_000;

/**
 * Lambda entry of the webhook dispatcher, run by the table's stream when a delivery is written (first
 * attempts within seconds) and every minute by EventBridge (retries and replays). A failed stream batch
 * is retried by Lambda and then sent to the dead-letter queue; the deliveries themselves stay in the table.
 */
export const handler = middy(async (): Promise<void> => {
  const deadline = Date.now() + BUDGET_MS;
  let first = true;
  for (;;) {
    const report = await dispatch();
    logger.info('webhook dispatch', { ...report });
    // What was due when the invocation began: later loops only see what that one left.
    if (first) meter.count(METRIC.webhookPending, report.due);
    first = false;
    meter.count(METRIC.webhookSucceeded, report.delivered);
    meter.count(METRIC.webhookFailed, report.failed);
    meter.count(METRIC.webhookEndpointsDisabled, report.disabled);
    // A full batch may have more behind it.
    if (
      report.due < DISPATCH_BATCH ||
      report.delivered + report.failed + report.skipped === 0 ||
      Date.now() > deadline
    )
      return;
  }
})
  .use(captureLambdaHandler(tracer, { captureResponse: false }))
  .use(logMetrics(metrics));
