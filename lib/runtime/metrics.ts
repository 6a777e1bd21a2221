import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE, type MetricName } from '../kernel/metric-names.ts';
import { logger } from './logger.ts';

/**
 * The process's metrics (Powertools, embedded metric format): written to the log with each invocation's
 * flush, so they cost no API call; every metric carries the `service` and `tenant` dimensions.
 */
export const createMetrics = (tenant: string): Metrics =>
  new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: METRICS_SERVICE,
    defaultDimensions: { tenant },
    logger: quietLogger,
  });

/**
 * The metrics' own log lines, through the service's logger, less the warning Powertools writes on every
 * flush without metrics: most answers count nothing, and the warning would be a log line (and its cost)
 * per request.
 */
const quietLogger = {
  debug: (...content: unknown[]) => logger.debug(String(content[0] ?? '')),
  info: (...content: unknown[]) => logger.info(String(content[0] ?? '')),
  warn: (...content: unknown[]) => {
    const message = String(content[0] ?? '');
    if (!message.startsWith('No application metrics to publish')) logger.warn(message);
  },
  error: (...content: unknown[]) => logger.error(String(content[0] ?? '')),
};

/** What a request or a scheduled run reports: counts and durations, by the names of `METRIC`. */
export interface Meter {
  count(name: MetricName, value?: number): void;
  milliseconds(name: MetricName, value: number): void;
  seconds(name: MetricName, value: number): void;
}

/**
 * A meter over Powertools Metrics, or one that keeps nothing where no metrics are kept (npm start, tests).
 * A count of zero is not emitted: CloudWatch bills a custom metric for every hour it receives a value, a
 * scheduled run that found nothing would otherwise pay for its zeros all month, and every alarm on a count
 * reads missing data as nothing happened (`TreatMissingData.NOT_BREACHING`).
 */
export const meterOf = (
  metrics:
    | { addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): unknown }
    | undefined,
): Meter => ({
  count: (name, value = 1) => {
    if (value !== 0) metrics?.addMetric(name, MetricUnit.Count, value);
  },
  milliseconds: (name, value) => metrics?.addMetric(name, MetricUnit.Milliseconds, value),
  seconds: (name, value) => metrics?.addMetric(name, MetricUnit.Seconds, value),
});

/** The refusals counted on their own, by the error id of the answer. */
const REFUSALS: Partial<Record<string, MetricName>> = {
  hold_limit: METRIC.holdsRefusedHoldLimit,
  busy: METRIC.busy,
  rate_limited: METRIC.throttled,
};

/**
 * What every answer of the API reports: the refusals that matter to an operator (holds refused, 503
 * `busy`, 429) and the time to answer the rated list and `booking/create`.
 */
export function meterAnswer(
  meter: Meter,
  answer: { route: string | undefined; errorId?: string; rated?: boolean; ms: number },
): void {
  const refusal =
    answer.errorId === 'unavailable' && answer.route === 'session.write'
      ? METRIC.holdsRefusedUnavailable
      : answer.errorId
        ? REFUSALS[answer.errorId]
        : undefined;
  if (refusal) meter.count(refusal);
  if (answer.route === 'booking.create') meter.milliseconds(METRIC.bookingCreateLatency, answer.ms);
  if (answer.route === 'item.list' && answer.rated) meter.milliseconds(METRIC.ratedListLatency, answer.ms);
}
