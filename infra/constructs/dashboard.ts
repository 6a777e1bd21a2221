import { Stack } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type HorizontalAnnotation,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { Alerts } from '#lib/config/alerts-schema.ts';
import { SIGNAL_PERIOD, type TenantSignals } from './signals.ts';

/** Props of the tenant's dashboard. */
export interface TenantDashboardProps {
  signals: TenantSignals;
  /** The thresholds, drawn as lines on the graphs their alarms watch. */
  alerts: Alerts;
  alarms: Readonly<Record<string, Alarm>>;
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

const line = (value: number, label: string): HorizontalAnnotation => ({ value, label });

/**
 * One dashboard per tenant stack with the alarms' state on top and, below, a graph for every signal an
 * alarm watches (threshold drawn in), beside the business counts that explain them.
 */
export class TenantDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: TenantDashboardProps) {
    super(scope, id);
    const { signals: s, alerts } = props;
    const rows: IWidget[][] = [
      [
        new AlarmStatusWidget({
          title: 'Alarms',
          alarms: Object.values(props.alarms),
          width: 24,
          height: 4,
        }),
      ],
      [
        graph('API: requests and 5xx', [s.apiRequests, s.api5xx], {
          right: [s.api5xxRate],
          rightLines: [line(alerts.api_5xx_percent, '5xx % alarm')],
        }),
        graph('Refusals: 503 busy and 429', [s.busy, s.throttled], {
          leftLines: [line(alerts.busy_per_5_minutes, 'busy alarm')],
        }),
      ],
      [
        graph('Latency p99 (ms)', [s.ratedListP99, s.bookingCreateP99], {
          leftLines: [
            line(alerts.rated_list_p99_ms, 'rated list alarm'),
            line(alerts.booking_create_p99_ms, 'booking/create alarm'),
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
          leftLines: [line(alerts.function_errors_per_5_minutes, 'alarm')],
        }),
        graph('Function throttles', Object.values(s.functionThrottles), {
          leftLines: [line(alerts.function_throttles_per_5_minutes, 'alarm')],
        }),
      ],
      // Two graphs: both sums name their per-operation metrics alike, and one graph cannot hold both.
      [
        graph('DynamoDB: throttled requests', [s.tableThrottles], {
          leftLines: [line(alerts.dynamodb_throttles_per_5_minutes, 'alarm')],
        }),
        graph('DynamoDB: system errors', [s.tableSystemErrors], {
          leftLines: [line(alerts.dynamodb_system_errors_per_5_minutes, 'alarm')],
        }),
      ],
      [
        graph('Sweeper: runs, releases and lag', [s.sweeperRuns, s.sweeperReleases], {
          right: [s.sweeperLagSeconds],
          leftLines: [line(1, 'no run alarm below')],
          rightLines: [line(alerts.sweeper_lag_seconds, 'lag alarm')],
        }),
        graph('Webhooks: endpoints disabled and dead letters', [
          s.webhookEndpointsDisabled,
          s.webhookDeadLetters,
        ]),
      ],
      [
        graph('Webhook deliveries', [s.webhookSucceeded, s.webhookFailed, s.webhookPending]),
        graph('Channel sync: runs, conflicts and feeds failing over an hour', [
          s.channelSyncRuns,
          s.channelConflicts,
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
