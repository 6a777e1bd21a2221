import { getConfig } from '#lib/config/index.ts';
import { METRIC } from '#lib/kernel/metric-names.ts';
import type { OutboundPolicy } from '#lib/kernel/outbound/address-guard.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { logger } from '#lib/runtime/logger.ts';
import type { Meter } from '#lib/runtime/metrics.ts';
import type { WebhookSecretStore } from '#lib/webhooks/index.ts';
import { DISPATCH_BATCH, type DispatchReport, dispatchDue, postWebhook } from '#lib/webhooks/index.ts';

import { renderWebhook } from './render.ts';

/**
 * The webhook dispatcher: one run sends what is due (first attempts, retries, replays). In AWS it runs on
 * every new delivery (the table's stream) and every minute (retries); locally on a short timer. Each
 * attempt is logged with its status and at most 1 KB of the answer, never a secret or a signature.
 */
export const createDispatcher =
  (options: {
    db: Db;
    secrets: WebhookSecretStore;
    policy: OutboundPolicy;
    clock?: () => number;
    random?: () => number;
  }) =>
  (): Promise<DispatchReport> =>
    dispatchDue({
      db: options.db,
      secrets: options.secrets,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.random ? { random: options.random } : {}),
      config: async () => {
        const config = await getConfig(options.db);
        if (!config) throw new Error('No tenant is loaded into the table');
        return config;
      },
      render: renderWebhook,
      send: (request) => postWebhook({ ...request, policy: options.policy }),
      onAttempt: ({ delivery, response }) =>
        logger.info('webhook attempt', {
          endpoint_id: delivery.endpoint_id,
          event_id: delivery.event_id,
          event_type: delivery.event_type,
          outcome: response.outcome,
          status: response.status ?? 0,
          duration_ms: response.durationMs,
          ...(response.error ? { error: response.error } : {}),
          ...(response.body ? { body: response.body } : {}),
        }),
    });

/**
 * One invocation of the deployed dispatcher (the stream's or the minute's): dispatches again while a full
 * batch may have more behind it and the budget lasts, logs each run that had something due, and reports
 * what it did to CloudWatch, each count only when it is not zero. An idle minute writes neither a log line
 * nor a metric: a custom metric is billed for every hour it receives a value, and the dispatcher's alarms
 * read missing data as nothing happened.
 */
export const createDispatchInvocation =
  (options: {
    dispatch: () => Promise<DispatchReport>;
    meter: Meter;
    /** How long the invocation keeps dispatching (well inside its timeout; the next run takes the rest). */
    budgetMs: number;
    clock?: () => number;
  }) =>
  async (): Promise<void> => {
    const clock = options.clock ?? Date.now;
    const { meter } = options;
    const deadline = clock() + options.budgetMs;
    let first = true;
    for (;;) {
      const report = await options.dispatch();
      if (report.due > 0) logger.info('webhook dispatch', { ...report });
      // What was due when the invocation began: later loops only see what that one left.
      if (first && report.due > 0) meter.count(METRIC.webhookPending, report.due);
      first = false;
      if (report.delivered > 0) meter.count(METRIC.webhookSucceeded, report.delivered);
      if (report.failed > 0) meter.count(METRIC.webhookFailed, report.failed);
      if (report.disabled > 0) meter.count(METRIC.webhookEndpointsDisabled, report.disabled);
      // A full batch may have more behind it.
      if (
        report.due < DISPATCH_BATCH ||
        report.delivered + report.failed + report.skipped === 0 ||
        clock() > deadline
      )
        return;
    }
  };
