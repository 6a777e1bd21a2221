import { Stack } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  type CompositeAlarm,
  Dashboard,
  GraphWidget,
  type HorizontalAnnotation,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { Alerts } from '#lib/config/index.ts';
import { SIGNAL_PERIOD, type TenantSignals } from './signals.ts';

/** Props of the tenant's dashboard. */
export interface TenantDashboardProps {
  signals: TenantSignals;
  /** The thresholds, drawn as lines on the graphs their alarms watch. */
  alerts: Alerts;
  /** The metric alarms by suffix: a graph draws a threshold only where its alarm exists in the tier. */
  alarms: Readonly<Record<string, Alarm>>;
  /** The small tier's composite alarm, shown first. */
  health?: CompositeAlarm;
}

const graph = (
  title: string,
  left: IMetric[],
  options: {
    right?: IMetric[];
    leftLines?: HorizontalAnnotation[];
    rightLines?: HorizontalAnnotation[];
  } = {},
): GraphWidget =>
  new GraphWidget({
    title,
    left,
    right: options.right,
    leftAnnotations: options.leftLines,
    rightAnnotations: options.rightLines,
    width: 12,
    height: 6,
    period: SIGNAL_PERIOD,
  });

/**
 * One dashboard per tenant stack (when `deployment.dashboard`, or the standard tier, asks for it: $3 a
 * month) with the alarms' state on top and, below, a graph for every signal an alarm watches (threshold
 * drawn in where the tier has that alarm), beside the business counts that explain them.
 */
export class TenantDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: TenantDashboardProps) {
    super(scope, id);
    const { signals: s, alerts } = props;
    // A threshold line for an alarm the tier does not have would promise an alarm that never fires.
    const line = (suffix: string, value: number, label: string): HorizontalAnnotation[] =>
      props.alarms[suffix] ? [{ value, label }] : [];
    const jobs = ['sweeper', 'webhooks', 'channels'].flatMap((name) => {
      const runs = s.functionInvocations[name];
      return runs ? [runs] : [];
    });
    const rows: IWidget[][] = [
      [
        new AlarmStatusWidget({
          title: 'Alarms',
          alarms: [...(props.health ? [props.health] : []), ...Object.values(props.alarms)],
          width: 24,
          height: 4,
        }),
      ],
      [
        graph('API: requests and 5xx', [s.apiRequests, s.api5xx], {
          right: [s.api5xxRate],
          rightLines: line('api-5xx-rate', alerts.api_5xx_percent, '5xx % alarm'),
        }),
        graph('Refusals: 503 busy and 429', [s.busy, s.throttled], {
          leftLines: line('busy-burst', alerts.busy_per_5_minutes, 'busy alarm'),
        }),
      ],
      [
        graph('Latency p99 (ms)', [s.ratedListP99, s.bookingCreateP99], {
          leftLines: [
            ...line('rated-list-p99', alerts.rated_list_p99_ms, 'rated list alarm'),
            ...line('booking-create-p99', alerts.booking_create_p99_ms, 'booking/create alarm'),
          ],
        }),
        graph('Holds and bookings', [
          s.holdsMade,
          s.holdsRefusedUnavailable,
          s.holdsRefusedHoldLimit,
          s.bookingsCreated,
        ]),
      ],
      [
        graph('Function errors', Object.values(s.functionErrors), {
          leftLines: line(
            'fn-sweeper-errors',
            alerts.function_errors_per_5_minutes,
            props.alarms['fn-items-errors'] ? 'alarm' : 'alarm (scheduled functions)',
          ),
        }),
        graph('Function throttles', Object.values(s.functionThrottles), {
          leftLines: line('fn-sweeper-throttles', alerts.function_throttles_per_5_minutes, 'alarm'),
        }),
      ],
      // Two graphs: both sums name their per-operation metrics alike, and one graph cannot hold both.
      [
        graph('DynamoDB: throttled requests', [s.tableThrottles], {
          leftLines: line('dynamodb-throttles', alerts.dynamodb_throttles_per_5_minutes, 'alarm'),
        }),
        graph('DynamoDB: system errors', [s.tableSystemErrors], {
          leftLines: line('dynamodb-system-errors', alerts.dynamodb_system_errors_per_5_minutes, 'alarm'),
        }),
      ],
      [
        graph('Sweeper: releases and lag', [s.sweeperReleases], {
          right: [s.sweeperLagSeconds],
          rightLines: line('sweeper-lag', alerts.sweeper_lag_seconds, 'lag alarm'),
        }),
        // AWS/Lambda Invocations: the channels function's include its API calls.
        graph('Scheduled functions: invocations', jobs, {
          leftLines: line('sweeper-not-running', 1, 'not running alarms below'),
        }),
      ],
      [
        graph('Webhooks: endpoints disabled and dead letters', [
          s.webhookEndpointsDisabled,
          s.webhookDeadLetters,
        ]),
        graph('Webhook deliveries', [s.webhookSucceeded, s.webhookFailed, s.webhookPending]),
      ],
      [
        graph('Channel sync: conflicts, feeds failed and failing over an hour', [
          s.channelConflicts,
          s.channelFetchFailures,
          s.channelsFailing,
        ]),
      ],
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: Stack.of(this).stackName,
      widgets: rows,
    });
  }
}
