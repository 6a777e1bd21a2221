import { Duration } from 'aws-cdk-lib';
import type { IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { type IMetric, MathExpression, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { type ITableV2, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { METRIC, METRICS_NAMESPACE, type MetricName, metricDimensions } from '#lib/kernel/metric-names.ts';

/** Every signal is read over five minutes: the alarms' period and the dashboard's. */
export const SIGNAL_PERIOD = Duration.minutes(5);

/**
 * The table operations the service sends (the repositories: GetItem, BatchGetItem, Query, PutItem, UpdateItem,
 * TransactWriteItems) and the dispatcher's stream reads (GetRecords). Summing all fourteen operations CDK
 * knows would exceed the ten metrics an alarm's expression may hold; the operator's Scan (reconcile) is
 * left out on purpose.
 */
export const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.GET_RECORDS,
];

/** What the signals are read from. */
export interface TenantSignalsProps {
  /** The tenant id: the `tenant` dimension of the service's own metrics. */
  tenant: string;
  /** The API's `$default` stage. */
  stage: IHttpStage;
  /** Every function, by a short lower-case name that alarm names and dashboard labels use. */
  functions: Readonly<Record<string, IFunction>>;
  table: ITableV2;
  /** The webhook stream's dead-letter queue. */
  deadLetterQueue: IQueue;
  /** Scheduled runs dropped by Scheduler or Lambda (`HousekeepingFailures`). */
  housekeepingFailures: IQueue;
}

/** The metrics a tenant is operated by: what the alarms watch and the dashboard draws. */
export interface TenantSignals {
  apiRequests: IMetric;
  api5xx: IMetric;
  /** 5xx answers as a percentage of requests (0 when there were none). */
  api5xxRate: IMetric;
  ratedListP99: IMetric;
  bookingCreateP99: IMetric;
  busy: IMetric;
  /** The service's own 429 answers (per-client limits), beside the stage throttling's. */
  throttled: IMetric;
  holdsMade: IMetric;
  holdsRefusedUnavailable: IMetric;
  holdsRefusedHoldLimit: IMetric;
  bookingsCreated: IMetric;
  functionErrors: Readonly<Record<string, IMetric>>;
  functionThrottles: Readonly<Record<string, IMetric>>;
  /**
   * AWS/Lambda `Invocations` of every function (none is recorded for a throttled one): published for free,
   * and only when the function ran, so it tells a scheduled function that stopped running.
   */
  functionInvocations: Readonly<Record<string, IMetric>>;
  tableThrottles: IMetric;
  tableSystemErrors: IMetric;
  sweeperLagSeconds: IMetric;
  sweeperReleases: IMetric;
  webhookSucceeded: IMetric;
  webhookFailed: IMetric;
  webhookPending: IMetric;
  webhookEndpointsDisabled: IMetric;
  webhookDeadLetters: IMetric;
  housekeepingFailures: IMetric;
  channelConflicts: IMetric;
  channelsFailing: IMetric;
  channelFetchFailures: IMetric;
}

// CDK labels its per-operation sums "across all operations"; these sum the operations above only.
const relabel = (metric: IMetric, label: string): IMetric =>
  metric instanceof MathExpression ? metric.with({ label }) : metric;

const mapValues = <T, U>(record: Readonly<Record<string, T>>, f: (value: T, key: string) => U) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value, key)]));

/** Builds the tenant's signals once, so that an alarm and its dashboard graph read the very same metric. */
export function tenantSignals(props: TenantSignalsProps): TenantSignals {
  const period = SIGNAL_PERIOD;
  const service = (metricName: MetricName, statistic: string, label: string) =>
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: metricDimensions(props.tenant),
      statistic,
      period,
      label,
    });
  const apiRequests = props.stage.metricCount({ statistic: Stats.SUM, period, label: 'Requests' });
  const api5xx = props.stage.metricServerError({ statistic: Stats.SUM, period, label: '5xx answers' });
  return {
    apiRequests,
    api5xx,
    // Missing 5xx data is zero errors; no requests at all is a 0 % rate, not a division by zero.
    api5xxRate: new MathExpression({
      expression: 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
      usingMetrics: { errors: api5xx, requests: apiRequests },
      period,
      label: '5xx (% of requests)',
    }),
    ratedListP99: service(METRIC.ratedListLatency, Stats.p(99), 'Rated item list p99 (ms)'),
    bookingCreateP99: service(METRIC.bookingCreateLatency, Stats.p(99), 'booking/create p99 (ms)'),
    busy: service(METRIC.busy, Stats.SUM, '503 busy'),
    throttled: service(METRIC.throttled, Stats.SUM, '429 rate limited'),
    holdsMade: service(METRIC.holdsMade, Stats.SUM, 'Holds made'),
    holdsRefusedUnavailable: service(METRIC.holdsRefusedUnavailable, Stats.SUM, 'Refused: unavailable'),
    holdsRefusedHoldLimit: service(METRIC.holdsRefusedHoldLimit, Stats.SUM, 'Refused: hold limit'),
    bookingsCreated: service(METRIC.bookingsCreated, Stats.SUM, 'Bookings created'),
    functionErrors: mapValues(props.functions, (fn, name) =>
      fn.metricErrors({ statistic: Stats.SUM, period, label: `${name} errors` }),
    ),
    functionThrottles: mapValues(props.functions, (fn, name) =>
      fn.metricThrottles({ statistic: Stats.SUM, period, label: `${name} throttles` }),
    ),
    functionInvocations: mapValues(props.functions, (fn, name) =>
      fn.metricInvocations({ statistic: Stats.SUM, period, label: `${name} invocations` }),
    ),
    tableThrottles: relabel(
      props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period }),
      'Throttled requests',
    ),
    tableSystemErrors: relabel(
      props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period }),
      'System errors',
    ),
    sweeperLagSeconds: service(METRIC.sweeperLagSeconds, Stats.MAXIMUM, 'Sweeper lag (s)'),
    sweeperReleases: service(METRIC.sweeperReleases, Stats.SUM, 'Sessions released'),
    webhookSucceeded: service(METRIC.webhookSucceeded, Stats.SUM, 'Deliveries succeeded'),
    webhookFailed: service(METRIC.webhookFailed, Stats.SUM, 'Delivery attempts failed'),
    webhookPending: service(METRIC.webhookPending, Stats.MAXIMUM, 'Deliveries due'),
    webhookEndpointsDisabled: service(METRIC.webhookEndpointsDisabled, Stats.SUM, 'Endpoints disabled'),
    channelConflicts: service(METRIC.channelConflicts, Stats.SUM, 'Channel conflicts'),
    channelsFailing: service(METRIC.channelsFailing, Stats.MAXIMUM, 'Channels failing over an hour'),
    channelFetchFailures: service(METRIC.channelFetchFailures, Stats.SUM, 'Channel feeds failed'),
    webhookDeadLetters: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      statistic: Stats.MAXIMUM,
      period,
      label: 'Dead-lettered stream batches',
    }),
    housekeepingFailures: props.housekeepingFailures.metricApproximateNumberOfMessagesVisible({
      statistic: Stats.MAXIMUM,
      period,
      label: 'Scheduled runs dropped',
    }),
  };
}
