import { ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Alerts, Tier } from '#lib/config/index.ts';

import type { TenantSignals } from './signals.ts';

/** One alarm, before it is built: the signal, when it fires, what it means, and which tiers get it. */
export interface AlarmSpec {
  /** Appended to the stack name: `<stack>-<suffix>`. */
  suffix: string;
  metric: IMetric;
  threshold: number;
  comparison: ComparisonOperator;
  /** Five-minute periods looked at, and how many of them must breach (default 1 of 1). */
  periods?: { of: number; breaching: number };
  /** No data is healthy (nothing happened), except where silence is the failure. */
  missing?: TreatMissingData;
  /**
   * One of the alarms that matter, which a small tenant gets too (stock held or sold twice, the API
   * failing, webhooks cut off, a housekeeping job failing or not running); every alarm is a standard one.
   */
  small?: boolean;
  description: string;
}

const AT_LEAST = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
const OVER = ComparisonOperator.GREATER_THAN_THRESHOLD;
const UNDER = ComparisonOperator.LESS_THAN_THRESHOLD;

/**
 * The functions EventBridge runs on a schedule, by their signal names, with how many five-minute periods
 * without a single invocation mean the schedule stopped: the sweeper and the dispatcher run every minute;
 * channel sync runs every five minutes, so one empty period can be the rate's drift and it takes three.
 */
const JOBS: Readonly<Record<string, { silence: string; periods: number; stops: string }>> = {
  sweeper: {
    silence: 'No sweeper run for five minutes',
    periods: 1,
    stops: 'expired holds are not released, so stock is withheld from sale',
  },
  webhooks: {
    silence: 'No webhook dispatcher run for five minutes',
    periods: 1,
    stops: 'failed deliveries are not retried and replays are not sent',
  },
  channels: {
    // The function also answers the channel routes of the API, whose calls count as invocations too.
    silence: 'No invocation of the channels function for 15 minutes (channel sync runs every five)',
    periods: 3,
    stops: "channels' new sales are not blocked here, so a unit can be sold twice",
  },
};

const signalOf = (record: Readonly<Record<string, IMetric>>, name: string): IMetric => {
  const metric = record[name];
  if (!metric) throw new Error(`No signal for the ${name} function`);
  return metric;
};

/** The alarms of a tenant's tier (`deployment.tier`), each with what to look at first. */
export function alarmSpecs(signals: TenantSignals, alerts: Alerts, tier: Tier): AlarmSpec[] {
  const all = allAlarmSpecs(signals, alerts);
  return tier === 'standard' ? all : all.filter((spec) => spec.small);
}

/** Every alarm, as the standard tier has them. */
function allAlarmSpecs(signals: TenantSignals, alerts: Alerts): AlarmSpec[] {
  // Two of three periods: one cold start, alone in a quiet five minutes, is its p99 and no reason to page.
  const latency = { of: 3, breaching: 2 };
  const functionAlarms = Object.keys(signals.functionErrors).flatMap((name): AlarmSpec[] => [
    {
      suffix: `fn-${name}-errors`,
      metric: signalOf(signals.functionErrors, name),
      threshold: alerts.function_errors_per_5_minutes,
      comparison: AT_LEAST,
      // An API function's failures are 5xx answers, which the 5xx rate watches; a job's are not.
      small: Object.hasOwn(JOBS, name),
      description:
        `The ${name} function failed (an uncaught error or a timeout: error answers do not count). ` +
        `Look first at its log group for the stack trace, then its X-Ray traces.`,
    },
    {
      suffix: `fn-${name}-throttles`,
      metric: signalOf(signals.functionThrottles, name),
      threshold: alerts.function_throttles_per_5_minutes,
      comparison: AT_LEAST,
      description:
        `Lambda refused invocations of the ${name} function: the account's concurrency is spent. ` +
        'Look first at ConcurrentExecutions across the account and at traffic on the API.',
    },
  ]);
  // A throttled invocation records no Invocations, so a job held back for good shows here too.
  const jobAlarms = Object.entries(JOBS).map(
    ([name, job]): AlarmSpec => ({
      suffix: `${name}-not-running`,
      metric: signalOf(signals.functionInvocations, name),
      threshold: 1,
      comparison: UNDER,
      periods: { of: job.periods, breaching: job.periods },
      // Silence is the failure here: a job that never starts records no invocation.
      missing: TreatMissingData.BREACHING,
      small: true,
      description:
        `${job.silence}: ${job.stops}. Look first at the EventBridge ` +
        `rule (enabled, invocations), then the ${name} function's throttles and errors.`,
    }),
  );
  return [
    {
      suffix: 'api-5xx-rate',
      metric: signals.api5xxRate,
      threshold: alerts.api_5xx_percent,
      comparison: OVER,
      small: true,
      description:
        `More than ${alerts.api_5xx_percent} % of API requests answered 5xx in five minutes. Look first ` +
        'at the busy and function error alarms (a 503 busy is a 5xx), then the access log by status and ' +
        "routeKey, then the functions' logs and traces.",
    },
    {
      suffix: 'rated-list-p99',
      metric: signals.ratedListP99,
      threshold: alerts.rated_list_p99_ms,
      comparison: OVER,
      periods: latency,
      description:
        `Rated item lists took over ${alerts.rated_list_p99_ms} ms at p99. Look first at the items ` +
        "function's X-Ray traces (counter queries per item and package part), then DynamoDB throttles.",
    },
    {
      suffix: 'booking-create-p99',
      metric: signals.bookingCreateP99,
      threshold: alerts.booking_create_p99_ms,
      comparison: OVER,
      periods: latency,
      description:
        `booking/create took over ${alerts.booking_create_p99_ms} ms at p99. Look first at busy answers ` +
        'and DynamoDB throttles (conflicting transactions retry with backoff), then the bookings traces.',
    },
    {
      suffix: 'busy-burst',
      metric: signals.busy,
      threshold: alerts.busy_per_5_minutes,
      comparison: AT_LEAST,
      description:
        `${alerts.busy_per_5_minutes} or more 503 busy answers in five minutes: writes to the same stock ` +
        'counters kept conflicting after their retries. Look first at which items are being held (the ' +
        "session function's logs), then DynamoDB throttles.",
    },
    ...functionAlarms,
    {
      suffix: 'dynamodb-throttles',
      metric: signals.tableThrottles,
      threshold: alerts.dynamodb_throttles_per_5_minutes,
      comparison: AT_LEAST,
      description:
        'DynamoDB throttled requests to the table or its indexes (on demand: a hot partition, such as ' +
        "one popular date's counter). Look first at the busy alarm and the session function's logs.",
    },
    {
      suffix: 'dynamodb-system-errors',
      metric: signals.tableSystemErrors,
      threshold: alerts.dynamodb_system_errors_per_5_minutes,
      comparison: AT_LEAST,
      description:
        "DynamoDB answered HTTP 500 to the table's requests. Look first at the AWS Health Dashboard for " +
        'DynamoDB in this region; the SDK retries, so watch the 5xx rate and latency alarms.',
    },
    {
      suffix: 'sweeper-lag',
      metric: signals.sweeperLagSeconds,
      threshold: alerts.sweeper_lag_seconds,
      comparison: OVER,
      small: true,
      description:
        `An expired session still held stock ${alerts.sweeper_lag_seconds} s after it expired: stock is ` +
        "withheld from sale. Look first at the sweeper's log (errors, budget spent on a backlog), then " +
        'its errors alarm.',
    },
    ...jobAlarms,
    {
      suffix: 'webhook-endpoints-disabled',
      metric: signals.webhookEndpointsDisabled,
      threshold: 1,
      comparison: AT_LEAST,
      small: true,
      description:
        'A webhook endpoint was disabled (it answered 410, or every retry failed): it receives nothing ' +
        'more. Look first at GET webhook/{id}/delivery, then re-enable it with webhook/{id}/enable.',
    },
    {
      suffix: 'channel-conflict',
      metric: signals.channelConflicts,
      threshold: 1,
      comparison: AT_LEAST,
      small: true,
      description:
        'A channel (Airbnb, Booking.com…) listed a date this service had already sold: the same unit is ' +
        'sold twice. Look first at GET channel (the conflict names the bookings), then settle it with the ' +
        'guest on one side; the block is taken as soon as the date frees up.',
    },
    {
      suffix: 'channel-failing',
      metric: signals.channelsFailing,
      threshold: 1,
      comparison: AT_LEAST,
      small: true,
      description:
        "A channel's feed has failed to fetch or parse for over an hour: its new sales are not blocked " +
        'here (what it listed before stays blocked). Look first at GET channel (last_error), then the ' +
        'feed URL in the tenant file.',
    },
    {
      suffix: 'webhook-dead-letters',
      metric: signals.webhookDeadLetters,
      threshold: 1,
      comparison: AT_LEAST,
      small: true,
      description:
        'Stream batches of webhook deliveries failed every retry and went to the dead-letter queue (the ' +
        'deliveries stay in the table; the per-minute run retries them). Look first at the webhooks ' +
        "function's errors and log.",
    },
    {
      // Not for small: a run dropped once is taken over by the next, and runs that keep failing or stop
      // already fire `*-not-running` or `fn-*-errors`.
      suffix: 'housekeeping-failures',
      metric: signals.housekeepingFailures,
      threshold: 1,
      comparison: AT_LEAST,
      description:
        'A scheduled run (sweeper, webhook retries, channel sync) failed, was throttled past a minute, or ' +
        'could not be invoked, and was dropped to the HousekeepingFailures queue; the next run took over. ' +
        "Look first at the messages' error (aws sqs receive-message), then purge the queue.",
    },
  ];
}
