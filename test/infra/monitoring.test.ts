import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Alerts } from '#lib/config/alerts-schema.ts';
import type { Deployment } from '#lib/config/deployment-schema.ts';
import { DEFAULT_ALERTS } from '#lib/config/limits.ts';
import type { Tenant } from '#lib/config/tenant-schema.ts';
import { METRIC, METRICS_NAMESPACE } from '#lib/kernel/metric-names.ts';
import { buildStack, demoTenant } from '#test/support/cdk.ts';

type Json = Record<string, unknown>;
interface MetricStat {
  Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] };
  Stat: string;
  Period: number;
}
interface AlarmProperties {
  AlarmName: string;
  AlarmDescription: string;
  AlarmActions: unknown[];
  OKActions: unknown[];
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  DatapointsToAlarm: number;
  TreatMissingData: string;
  Metrics: { Id: string; Expression?: string; MetricStat?: MetricStat; ReturnData: boolean }[];
}
interface CompositeProperties {
  AlarmName: string;
  AlarmDescription: string;
  AlarmRule: string;
  AlarmActions?: unknown[];
  OKActions?: unknown[];
}

const FUNCTIONS = [
  'items',
  'session',
  'bookings',
  'admin',
  'meta',
  'payments',
  'sweeper',
  'webhooks',
  'channels',
];
/** What the repositories send (the operator's Scan aside) and the dispatcher's stream reads. */
const TABLE_OPERATIONS = 'GetItem BatchGetItem Query PutItem UpdateItem TransactWriteItems GetRecords'.split(
  ' ',
);

/** The demo tenant with its `deployment` (and `settings.alerts`) set as a test needs. */
const tenantWith = (deployment: Partial<Deployment>, alerts?: Alerts): Tenant => {
  const tenant = demoTenant(alerts);
  return { ...tenant, deployment: { ...tenant.deployment, ...deployment } };
};

/** The small tier's alarms: what matters for stock, the API, webhooks and the scheduled jobs. */
const SMALL_ALARMS = [
  'api-5xx-rate',
  'sweeper-lag',
  'sweeper-not-running',
  'webhooks-not-running',
  'channels-not-running',
  'fn-sweeper-errors',
  'fn-webhooks-errors',
  'fn-channels-errors',
  'webhook-endpoints-disabled',
  'webhook-dead-letters',
  'channel-conflict',
  'channel-failing',
];

/** The standard tier's stack, every alarm on its own (most tests below); `small` is the demo's default. */
let template: Template;
let small: Template;
beforeAll(() => {
  template = buildStack('prod', tenantWith({ tier: 'standard' })).template;
  small = buildStack('prod').template;
});

const resources = (type: string, from = template) => from.findResources(type) as Record<string, Json>;
const logicalIdOf = (type: string, pattern: RegExp, from = template) => {
  const id = Object.keys(resources(type, from)).find((name) => pattern.test(name));
  if (!id) throw new Error(`no ${type} like ${pattern}`);
  return id;
};
const alarmsOf = (from = template): AlarmProperties[] =>
  Object.values(resources('AWS::CloudWatch::Alarm', from)).map(
    (alarm) => alarm.Properties as AlarmProperties,
  );
const compositesOf = (from = template): CompositeProperties[] =>
  Object.values(resources('AWS::CloudWatch::CompositeAlarm', from)).map(
    (alarm) => alarm.Properties as CompositeProperties,
  );
const alarm = (suffix: string, from = template): AlarmProperties => {
  const found = alarmsOf(from).find((props) => props.AlarmName === `Test-prod-${suffix}`);
  if (!found) throw new Error(`no alarm ${suffix}`);
  return found;
};
const statsOf = (props: AlarmProperties) =>
  props.Metrics.flatMap((metric) => (metric.MetricStat ? [metric.MetricStat] : []));
/** The one metric of a single-metric alarm. */
const onlyStat = (props: AlarmProperties): MetricStat => {
  expect(props.Metrics).toHaveLength(1);
  return statsOf(props)[0] as MetricStat;
};
const serviceMetric = (metricName: string, stat: string) => ({
  Metric: {
    Namespace: METRICS_NAMESPACE,
    MetricName: metricName,
    Dimensions: [
      { Name: 'service', Value: 'booking-api' },
      { Name: 'tenant', Value: 'demo' },
    ],
  },
  Stat: stat,
  Period: 300,
});

/** What CloudWatch bills the alarms of a template a month: one alarm metric per metric read, composites apart. */
const billedAlarms = (from: Template) => ({
  metrics: alarmsOf(from).reduce((sum, props) => sum + statsOf(props).length, 0),
  composites: compositesOf(from).length,
});

describe('alarms (standard tier)', () => {
  it('has one alarm per signal, each named after the stack and saying what to look at first', () => {
    const names = alarmsOf().map((props) => props.AlarmName.replace(/^Test-prod-/, ''));
    expect(names.sort()).toEqual(
      [
        'api-5xx-rate',
        'rated-list-p99',
        'booking-create-p99',
        'busy-burst',
        ...FUNCTIONS.flatMap((name) => [`fn-${name}-errors`, `fn-${name}-throttles`]),
        'dynamodb-throttles',
        'dynamodb-system-errors',
        'sweeper-lag',
        'sweeper-not-running',
        'webhooks-not-running',
        'channels-not-running',
        'webhook-endpoints-disabled',
        'webhook-dead-letters',
        'housekeeping-failures',
        'channel-conflict',
        'channel-failing',
      ].sort(),
    );
    const topic = { Ref: logicalIdOf('AWS::SNS::Topic', /^AlarmsTopic/) };
    for (const props of alarmsOf()) {
      expect(props.AlarmDescription, props.AlarmName).toMatch(/Look first at .+/);
      expect(props.AlarmActions, props.AlarmName).toEqual([topic]);
      expect(props.OKActions, props.AlarmName).toEqual([topic]);
      // CloudWatch refuses an alarm of more than ten metrics.
      expect(props.Metrics.length, props.AlarmName).toBeLessThanOrEqual(10);
    }
  });

  it('watches the API 5xx rate as a percentage of the $default stage requests', () => {
    const props = alarm('api-5xx-rate');
    const api = { Ref: logicalIdOf('AWS::ApiGatewayV2::Api', /^HttpApi/) };
    const dimensions = [
      { Name: 'ApiId', Value: api },
      { Name: 'Stage', Value: '$default' },
    ];
    expect(props.Metrics.find((metric) => metric.ReturnData)?.Expression).toBe(
      'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
    );
    expect(Object.fromEntries(props.Metrics.map((metric) => [metric.Id, metric.MetricStat?.Metric]))).toEqual(
      expect.objectContaining({
        errors: { Namespace: 'AWS/ApiGateway', MetricName: '5xx', Dimensions: dimensions },
        requests: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: dimensions },
      }),
    );
    expect(props).toMatchObject({
      Threshold: DEFAULT_ALERTS.api_5xx_percent,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('watches the p99 latency of the rated list and of booking/create, two periods of three', () => {
    for (const [suffix, name, threshold] of [
      ['rated-list-p99', METRIC.ratedListLatency, DEFAULT_ALERTS.rated_list_p99_ms],
      ['booking-create-p99', METRIC.bookingCreateLatency, DEFAULT_ALERTS.booking_create_p99_ms],
    ] as const) {
      const props = alarm(suffix);
      expect(onlyStat(props)).toEqual(serviceMetric(name, 'p99'));
      expect(props).toMatchObject({
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
    }
  });

  it('watches bursts of 503 busy answers', () => {
    const props = alarm('busy-burst');
    expect(onlyStat(props)).toEqual(serviceMetric(METRIC.busy, 'Sum'));
    expect(props).toMatchObject({
      Threshold: DEFAULT_ALERTS.busy_per_5_minutes,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('watches the errors and throttles of every function, one alarm each', () => {
    for (const name of FUNCTIONS) {
      const fn = logicalIdOf(
        'AWS::Lambda::Function',
        new RegExp(`^Functions${name[0]?.toUpperCase()}${name.slice(1)}[0-9A-F]{8}$`),
      );
      for (const [signal, metricName, threshold] of [
        ['errors', 'Errors', DEFAULT_ALERTS.function_errors_per_5_minutes],
        ['throttles', 'Throttles', DEFAULT_ALERTS.function_throttles_per_5_minutes],
      ] as const) {
        const props = alarm(`fn-${name}-${signal}`);
        expect(onlyStat(props)).toEqual({
          Metric: {
            Namespace: 'AWS/Lambda',
            MetricName: metricName,
            Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
          },
          Stat: 'Sum',
          Period: 300,
        });
        expect(props).toMatchObject({
          Threshold: threshold,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
    }
  });

  it("watches the table's throttled requests and system errors over the operations the service sends", () => {
    const table = { Ref: logicalIdOf('AWS::DynamoDB::GlobalTable', /^DataTable/) };
    for (const [suffix, metricName, threshold] of [
      ['dynamodb-throttles', 'ThrottledRequests', DEFAULT_ALERTS.dynamodb_throttles_per_5_minutes],
      ['dynamodb-system-errors', 'SystemErrors', DEFAULT_ALERTS.dynamodb_system_errors_per_5_minutes],
    ] as const) {
      const props = alarm(suffix);
      const stats = statsOf(props);
      expect(stats.map((stat) => stat.Metric.Dimensions.find((d) => d.Name === 'Operation')?.Value)).toEqual(
        TABLE_OPERATIONS,
      );
      for (const stat of stats) {
        expect(stat).toMatchObject({ Stat: 'Sum', Period: 300 });
        expect(stat.Metric).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metricName });
        expect(stat.Metric.Dimensions).toContainEqual({ Name: 'TableName', Value: table });
      }
      const sum = props.Metrics.find((metric) => metric.ReturnData)?.Expression;
      expect(sum?.split(' + ')).toHaveLength(TABLE_OPERATIONS.length);
      expect(props).toMatchObject({
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('watches the sweeper: lag over five minutes, a missing lag being none', () => {
    const lag = alarm('sweeper-lag');
    expect(onlyStat(lag)).toEqual(serviceMetric(METRIC.sweeperLagSeconds, 'Maximum'));
    expect(lag).toMatchObject({
      Threshold: 300,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it("watches each scheduled function's free AWS/Lambda Invocations, silence being the failure", () => {
    for (const [suffix, name, periods] of [
      ['sweeper-not-running', 'Sweeper', 1],
      ['webhooks-not-running', 'Webhooks', 1],
      // Every five minutes: one empty period can be the rate's drift, three cannot.
      ['channels-not-running', 'Channels', 3],
    ] as const) {
      const fn = logicalIdOf('AWS::Lambda::Function', new RegExp(`^Functions${name}[0-9A-F]{8}$`));
      const props = alarm(suffix);
      expect(onlyStat(props)).toEqual({
        Metric: {
          Namespace: 'AWS/Lambda',
          MetricName: 'Invocations',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
        },
        Stat: 'Sum',
        Period: 300,
      });
      expect(props).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        EvaluationPeriods: periods,
        DatapointsToAlarm: periods,
        TreatMissingData: 'breaching',
      });
    }
  });

  it('reads missing data as healthy everywhere but on the Invocations of a scheduled function', () => {
    // The service's metrics are emitted only when there is something to say: silence must never page.
    for (const props of alarmsOf()) {
      const invocations = statsOf(props).some((stat) => stat.Metric.MetricName === 'Invocations');
      expect(props.TreatMissingData, props.AlarmName).toBe(invocations ? 'breaching' : 'notBreaching');
    }
  });

  it('watches webhook endpoints disabled and stream batches dead-lettered', () => {
    const disabled = alarm('webhook-endpoints-disabled');
    expect(onlyStat(disabled)).toEqual(serviceMetric(METRIC.webhookEndpointsDisabled, 'Sum'));
    expect(disabled).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const queue = logicalIdOf('AWS::SQS::Queue', /^WebhooksDeadLetters/);
    const dead = alarm('webhook-dead-letters');
    expect(onlyStat(dead)).toEqual({
      Metric: {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
      },
      Stat: 'Maximum',
      Period: 300,
    });
    expect(dead).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('watches channel conflicts and channels failing for over an hour', () => {
    const conflict = alarm('channel-conflict');
    expect(onlyStat(conflict)).toEqual(serviceMetric(METRIC.channelConflicts, 'Sum'));
    expect(conflict).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const failing = alarm('channel-failing');
    expect(onlyStat(failing)).toEqual(serviceMetric(METRIC.channelsFailing, 'Maximum'));
    expect(failing).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('reads the service metrics in one namespace with exactly the service and tenant dimensions', () => {
    const service = alarmsOf()
      .flatMap(statsOf)
      .filter((stat) => stat.Metric.Namespace === METRICS_NAMESPACE);
    expect(service.length).toBeGreaterThanOrEqual(6);
    for (const stat of service) {
      expect(Object.values(METRIC)).toContain(stat.Metric.MetricName);
      expect(stat.Metric.Dimensions).toEqual(serviceMetric('', '').Metric.Dimensions);
    }
  });

  it('takes its thresholds from the tenant file', () => {
    const alerts = {
      api_5xx_percent: 5,
      rated_list_p99_ms: 900,
      booking_create_p99_ms: 4500,
      busy_per_5_minutes: 25,
      function_errors_per_5_minutes: 3,
      function_throttles_per_5_minutes: 4,
      dynamodb_throttles_per_5_minutes: 50,
      dynamodb_system_errors_per_5_minutes: 2,
      sweeper_lag_seconds: 600,
    };
    const custom = buildStack('prod', tenantWith({ tier: 'standard' }, alerts)).template;
    const thresholds = Object.fromEntries(
      alarmsOf(custom).map((props) => [props.AlarmName.replace(/^Test-prod-/, ''), props.Threshold]),
    );
    expect(thresholds).toMatchObject({
      'api-5xx-rate': 5,
      'rated-list-p99': 900,
      'booking-create-p99': 4500,
      'busy-burst': 25,
      'fn-items-errors': 3,
      'fn-sweeper-throttles': 4,
      'dynamodb-throttles': 50,
      'dynamodb-system-errors': 2,
      'sweeper-lag': 600,
    });
  });
});

describe('alarms (small tier, the default)', () => {
  it('has only the alarms that matter, as the standard tier has them, none notifying on its own', () => {
    const names = alarmsOf(small).map((props) => props.AlarmName.replace(/^Test-prod-/, ''));
    expect(names.sort()).toEqual([...SMALL_ALARMS].sort());
    for (const props of alarmsOf(small)) {
      const { AlarmActions, OKActions, ...rest } = props;
      expect(AlarmActions, props.AlarmName).toBeUndefined();
      expect(OKActions, props.AlarmName).toBeUndefined();
      const standard = alarmsOf().find((other) => other.AlarmName === props.AlarmName);
      expect(standard, props.AlarmName).toMatchObject(rest);
    }
  });

  it('notifies through one composite alarm that fires when any of them does, and clears with them', () => {
    const [health, ...others] = compositesOf(small);
    expect(others).toEqual([]);
    const topic = { Ref: logicalIdOf('AWS::SNS::Topic', /^AlarmsTopic/, small) };
    expect(health).toMatchObject({
      AlarmName: 'Test-prod-health',
      AlarmActions: [topic],
      OKActions: [topic],
      AlarmDescription: expect.stringMatching(/notifies nothing more/),
    });
    // CloudFormation joins each child's ARN into the rule: ALARM("<arn>") OR ALARM("<arn>") …
    const rule = JSON.stringify(health?.AlarmRule);
    const children = Object.keys(resources('AWS::CloudWatch::Alarm', small));
    expect(children).toHaveLength(SMALL_ALARMS.length);
    for (const id of children) expect(rule, id).toContain(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
    expect(rule.match(/ALARM\(/g)).toHaveLength(children.length);
    expect(rule.match(/ OR /g)).toHaveLength(children.length - 1);
    expect(rule).not.toMatch(/ AND |NOT /);
  });

  it('lets CloudWatch publish for the composite as for every alarm of the stack', () => {
    // The topic policy allows `alarm:<stack>-*`, which the composite's name falls under.
    expect(JSON.stringify(resources('AWS::SNS::TopicPolicy', small))).toContain(':alarm:Test-prod-*');
  });

  it('bills 13 alarm metrics and one composite, against 46 alarm metrics for standard (docs/cost.md)', () => {
    expect(billedAlarms(small)).toEqual({ metrics: 13, composites: 1 });
    expect(billedAlarms(template)).toEqual({ metrics: 46, composites: 0 });
  });
});

describe('the alarm topic', () => {
  it('accepts TLS only, and CloudWatch publishes for this stack’s alarms', () => {
    const topic = logicalIdOf('AWS::SNS::Topic', /^AlarmsTopic/);
    template.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'Test-prod-alerts' });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { ArnLike: { 'aws:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
    expect(JSON.stringify(resources('AWS::SNS::TopicPolicy'))).toContain(':alarm:Test-prod-*');
    template.hasOutput('AlertsTopicArn', { Value: { Ref: topic } });
  });

  it("subscribes the tenant file's alert address", () => {
    const topic = logicalIdOf('AWS::SNS::Topic', /^AlarmsTopic/);
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@loonlake.example.com',
      TopicArn: { Ref: topic },
    });
  });

  it('subscribes no one without an address, and keeps the topic', () => {
    const quiet = buildStack('prod', demoTenant(DEFAULT_ALERTS)).template;
    quiet.resourceCountIs('AWS::SNS::Subscription', 0);
    quiet.resourceCountIs('AWS::SNS::Topic', 1);
    quiet.hasOutput('AlertsTopicArn', Match.anyValue());
  });
});

const dashboardBody = (from: Template) =>
  JSON.stringify(Object.values(resources('AWS::CloudWatch::Dashboard', from))[0]);

describe('the dashboard', () => {
  it('is there for standard unless the tenant file says no, and for small only when it says yes', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    small.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    buildStack('prod', tenantWith({ tier: 'standard', dashboard: false })).template.resourceCountIs(
      'AWS::CloudWatch::Dashboard',
      0,
    );
    buildStack('prod', tenantWith({ dashboard: true })).template.resourceCountIs(
      'AWS::CloudWatch::Dashboard',
      1,
    );
  });

  it('on a small tenant, shows its composite and alarms, and draws no threshold of an alarm it lacks', () => {
    const withDashboard = buildStack('prod', tenantWith({ dashboard: true })).template;
    const body = dashboardBody(withDashboard);
    const ids = [
      ...Object.keys(resources('AWS::CloudWatch::CompositeAlarm', withDashboard)),
      ...Object.keys(resources('AWS::CloudWatch::Alarm', withDashboard)),
    ];
    for (const id of ids) expect(body, id).toContain(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
    expect(body).toContain('lag alarm');
    expect(body).not.toContain('busy alarm');
    expect(body).not.toContain('rated list alarm');
    expect(dashboardBody(template)).toContain('busy alarm');
  });

  it('shows every alarm and draws every metric the alarms watch', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Test-prod' });
    const body = dashboardBody(template);
    for (const id of Object.keys(resources('AWS::CloudWatch::Alarm'))) {
      expect(body, id).toContain(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
    }
    for (const props of alarmsOf()) {
      for (const stat of statsOf(props)) {
        expect(body, props.AlarmName).toContain(`\\"${stat.Metric.MetricName}\\"`);
      }
      const expression = props.Metrics.find((metric) => metric.Expression)?.Expression;
      if (expression) expect(body, props.AlarmName).toContain(expression);
    }
  });
});

describe('cdk-nag on the standard tier with its dashboard', () => {
  it('finds nothing unacknowledged (the small tier is checked by checked-stack.test.ts)', () => {
    const { stack } = buildStack('prod', tenantWith({ tier: 'standard', dashboard: true }));
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});
