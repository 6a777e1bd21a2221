import { ArnFormat, CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { Alerts } from '#lib/config/alerts-schema.ts';
import type { TenantSignals } from './signals.ts';

/** Props of the tenant's alarms. */
export interface TenantAlarmsProps {
  signals: TenantSignals;
  /** `settings.alerts` of the tenant file: the thresholds, and the address to subscribe. */
  alerts: Alerts;
}

/** One alarm, before it is built: the signal, when it fires, and what it means. */
interface AlarmSpec {
  /** Appended to the stack name: `<stack>-<suffix>`. */
  suffix: string;
  metric: IMetric;
  threshold: number;
  comparison: ComparisonOperator;
  /** Five-minute periods looked at, and how many of them must breach (default 1 of 1). */
  periods?: { of: number; breaching: number };
  /** No data is healthy (nothing happened), except where silence is the failure. */
  missing?: TreatMissingData;
  description: string;
}

const AT_LEAST = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
const OVER = ComparisonOperator.GREATER_THAN_THRESHOLD;

/**
 * The tenant's alarms and where they go: an SNS topic (TLS only, with the tenant's alert address
 * subscribed when the tenant file names one), notified when an alarm fires and when it clears.
 */
export class TenantAlarms extends Construct {
  readonly topic: Topic;
  /** Every alarm, by the suffix of its name (`api-5xx-rate`, `fn-items-errors`, …). */
  readonly alarms: Readonly<Record<string, Alarm>>;

  constructor(scope: Construct, id: string, props: TenantAlarmsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const prefix = stack.stackName;
    const { signals, alerts } = props;

    this.topic = new Topic(this, 'Topic', {
      topicName: `${prefix}-alerts`,
      displayName: `${prefix} alarms`,
      enforceSSL: true,
    });
    // The TLS-only policy replaces the topic's default one, so CloudWatch needs its own right to publish,
    // for this stack's alarms only.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${prefix}-*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names, metrics and thresholds, no guest data or secret; ' +
        'CloudWatch cannot publish to a topic under the AWS managed key, and a customer key costs ' +
        '$1 a month per tenant for nothing to protect.',
    });
    if (alerts.email) this.topic.addSubscription(new EmailSubscription(alerts.email));

    const action = new SnsAction(this.topic);
    const alarms: Record<string, Alarm> = {};
    for (const spec of alarmSpecs(signals, alerts)) {
      const alarm = new Alarm(this, spec.suffix, {
        alarmName: `${prefix}-${spec.suffix}`,
        alarmDescription: spec.description,
        metric: spec.metric,
        threshold: spec.threshold,
        comparisonOperator: spec.comparison,
        evaluationPeriods: spec.periods?.of ?? 1,
        datapointsToAlarm: spec.periods?.breaching ?? 1,
        treatMissingData: spec.missing ?? TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      alarms[spec.suffix] = alarm;
    }
    this.alarms = alarms;
    new CfnOutput(stack, 'AlertsTopicArn', {
      value: this.topic.topicArn,
      description: 'The SNS topic every alarm of the stack notifies: subscribe on-call here',
    });
  }
}

/** The alarms of a tenant, each with what to look at first. */
function alarmSpecs(signals: TenantSignals, alerts: Alerts): AlarmSpec[] {
  // Two of three periods: one cold start, alone in a quiet five minutes, is its p99 and no reason to page.
  const latency = { of: 3, breaching: 2 };
  const functionAlarms = Object.keys(signals.functionErrors).flatMap((name): AlarmSpec[] => [
    {
      suffix: `fn-${name}-errors`,
      metric: signals.functionErrors[name] as IMetric,
      threshold: alerts.function_errors_per_5_minutes,
      comparison: AT_LEAST,
      description:
        `The ${name} function failed (an uncaught error or a timeout: error answers do not count). ` +
        `Look first at its log group for the stack trace, then its X-Ray traces.`,
    },
    {
      suffix: `fn-${name}-throttles`,
      metric: signals.functionThrottles[name] as IMetric,
      threshold: alerts.function_throttles_per_5_minutes,
      comparison: AT_LEAST,
      description:
        `Lambda refused invocations of the ${name} function: the account's concurrency is spent. ` +
        'Look first at ConcurrentExecutions across the account and at traffic on the API.',
    },
  ]);
  return [
    {
      suffix: 'api-5xx-rate',
      metric: signals.api5xxRate,
      threshold: alerts.api_5xx_percent,
      comparison: OVER,
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
      description:
        `An expired session still held stock ${alerts.sweeper_lag_seconds} s after it expired: stock is ` +
        "withheld from sale. Look first at the sweeper's log (errors, budget spent on a backlog), then " +
        'its errors alarm.',
    },
    {
      suffix: 'sweeper-not-running',
      metric: signals.sweeperRuns,
      threshold: 1,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      // Silence is the failure here: a sweeper that never starts reports nothing.
      missing: TreatMissingData.BREACHING,
      description:
        'No sweeper run for five minutes, so expired holds are not released. Look first at the ' +
        "EventBridge rule (enabled, invocations) and the sweeper's errors and throttles.",
    },
    {
      suffix: 'webhook-endpoints-disabled',
      metric: signals.webhookEndpointsDisabled,
      threshold: 1,
      comparison: AT_LEAST,
      description:
        'A webhook endpoint was disabled (it answered 410, or every retry failed): it receives nothing ' +
        'more. Look first at GET webhook/{id}/delivery, then re-enable it with webhook/{id}/enable.',
    },
    {
      suffix: 'channel-conflict',
      metric: signals.channelConflicts,
      threshold: 1,
      comparison: AT_LEAST,
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
      description:
        'Stream batches of webhook deliveries failed every retry and went to the dead-letter queue (the ' +
        'deliveries stay in the table; the per-minute run retries them). Look first at the webhooks ' +
        "function's errors and log.",
    },
  ];
}
