import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { HOUSEKEEPING_CONCURRENCY } from '#infra/constructs/functions.ts';
import type { Tenant } from '#lib/config/tenant-schema.ts';
import { buildStack, demoTenant } from '#test/support/cdk.ts';
import { logicalIdOf, resources, synthProdBeforeAll, template } from '#test/support/tenant-stack-world.ts';

// Issue 34: the tenant stack's housekeeping (schedules, reserved concurrency, asynchronous invocation) and
// what a fleet needs of every stack (termination protection, named log groups, the roles it adds).

synthProdBeforeAll();

type Props = Record<string, any>;
const propertiesOf = (type: string): [string, Props][] =>
  Object.entries(resources(type)).map(([id, resource]) => [
    id,
    (resource as { Properties: Props }).Properties,
  ]);
const fnArn = (pattern: RegExp) => ({ 'Fn::GetAtt': [logicalIdOf('AWS::Lambda::Function', pattern), 'Arn'] });
const JOBS = [
  { fn: /^FunctionsSweeper/, rate: 'rate(1 minute)', reserved: HOUSEKEEPING_CONCURRENCY.sweeper },
  { fn: /^FunctionsWebhooks/, rate: 'rate(1 minute)', reserved: HOUSEKEEPING_CONCURRENCY.webhooks },
  { fn: /^FunctionsChannels/, rate: 'rate(5 minutes)', reserved: HOUSEKEEPING_CONCURRENCY.channels },
];

describe('TenantStack housekeeping', () => {
  it('schedules through EventBridge Scheduler, with no rule on the default event bus', () => {
    template.resourceCountIs('AWS::Events::Rule', 0);
    template.resourceCountIs('AWS::Scheduler::Schedule', JOBS.length);
    for (const job of JOBS) {
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: job.rate,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: Match.objectLike({ Arn: fnArn(job.fn) }),
      });
    }
  });

  it('never retries a run, drops it after a minute, and keeps what was dropped in one queue', () => {
    const failures = logicalIdOf('AWS::SQS::Queue', /^HousekeepingFailures/);
    for (const [, schedule] of propertiesOf('AWS::Scheduler::Schedule')) {
      expect(schedule.Target).toMatchObject({
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [failures, 'Arn'] } },
      });
    }
    const configs = propertiesOf('AWS::Lambda::EventInvokeConfig').map(([, config]) => config);
    expect(configs).toHaveLength(JOBS.length);
    for (const job of JOBS) {
      const ref = logicalIdOf('AWS::Lambda::Function', job.fn);
      expect(configs.find((config) => config.FunctionName?.Ref === ref)).toMatchObject({
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 60,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [failures, 'Arn'] } } },
      });
    }
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
  });

  it('alarms on a dropped run in the standard tier; the small one already alarms on a job stopped or failing', () => {
    const tenant = demoTenant();
    const standard = buildStack('prod', {
      ...tenant,
      deployment: { ...tenant.deployment, tier: 'standard' },
    });
    const failures = Object.keys(standard.template.findResources('AWS::SQS::Queue')).find((id) =>
      id.startsWith('HousekeepingFailures'),
    );
    standard.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${standard.stack.stackName}-housekeeping-failures`,
      Metrics: [
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: {
              Namespace: 'AWS/SQS',
              MetricName: 'ApproximateNumberOfMessagesVisible',
              Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [failures, 'QueueName'] } }],
            },
          }),
        }),
      ],
      Threshold: 1,
    });
    const smallNames = Object.values(resources('AWS::CloudWatch::Alarm')).map(
      (alarm) => (alarm as { Properties: Props }).Properties.AlarmName as string,
    );
    expect(smallNames.some((name) => name.endsWith('-housekeeping-failures'))).toBe(false);
    expect(smallNames.filter((name) => /-(sweeper|webhooks|channels)-not-running$/.test(name))).toHaveLength(
      3,
    );
  });

  it("reserves the housekeeping functions' concurrency, and no API function's", () => {
    for (const job of JOBS) {
      expect(resources('AWS::Lambda::Function')[logicalIdOf('AWS::Lambda::Function', job.fn)]).toMatchObject({
        Properties: { ReservedConcurrentExecutions: job.reserved },
      });
    }
    for (const api of [/^FunctionsItems/, /^FunctionsSession/, /^FunctionsBookings/, /^FunctionsMeta/]) {
      const fn = resources('AWS::Lambda::Function')[logicalIdOf('AWS::Lambda::Function', api)] as {
        Properties: Props;
      };
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('uses one role for every schedule, which only Scheduler of this account may assume, to invoke the three', () => {
    const roles = new Set(
      propertiesOf('AWS::Scheduler::Schedule').map(([, s]) => JSON.stringify(s.Target.RoleArn)),
    );
    expect(roles.size).toBe(1);
    const roleId = logicalIdOf('AWS::IAM::Role', /^HousekeepingSchedulerRole/);
    expect(JSON.parse([...roles][0] as string)).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    const role = resources('AWS::IAM::Role')[roleId] as { Properties: Props };
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: {
            'aws:SourceAccount': { Ref: 'AWS::AccountId' },
            'aws:SourceArn': expect.anything(),
          },
        },
      }),
    ]);
    const policy = propertiesOf('AWS::IAM::Policy').find(([, p]) =>
      p.Roles.some((r: { Ref: string }) => r.Ref === roleId),
    )?.[1];
    const statements = policy?.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[];
    const actions = new Set(statements.flatMap((statement) => [statement.Action].flat()));
    expect([...actions].sort()).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
    const invoked = statements
      .filter((statement) => statement.Action === 'lambda:InvokeFunction')
      .flatMap((statement) => [statement.Resource].flat());
    for (const job of JOBS) expect(invoked).toContainEqual(fnArn(job.fn));
    expect(invoked).toHaveLength(JOBS.length * 2); // each function and its versions (`<arn>:*`)
  });

  it('adds the schedules’ and the backups’ roles to the nine functions’ own, and no custom resource', () => {
    const roles = Object.keys(resources('AWS::IAM::Role')).map((id) => id.replace(/[0-9A-F]{8}$/, ''));
    expect(roles.sort()).toEqual(
      [
        'FunctionsAdminServiceRole',
        'FunctionsBookingsServiceRole',
        'FunctionsChannelsServiceRole',
        'FunctionsItemsServiceRole',
        'FunctionsMetaServiceRole',
        'FunctionsPaymentsServiceRole',
        'FunctionsSessionServiceRole',
        'FunctionsSweeperServiceRole',
        'FunctionsWebhooksServiceRole',
        'HousekeepingSchedulerRole',
        'BackupPlanTableRole',
      ].sort(),
    );
    expect(Object.keys(template.toJSON().Resources).filter((id) => /^Custom|LogRetention/.test(id))).toEqual(
      [],
    );
  });
});

describe('TenantStack backups', () => {
  const withDeployment = (deployment: Partial<Tenant['deployment']>) => {
    const tenant = demoTenant();
    return buildStack('prod', { ...tenant, deployment: { ...tenant.deployment, ...deployment } });
  };

  it('backs the table up daily into a retained vault, kept as long as the tenant file says', () => {
    const { template: backed } = withDeployment({ backup: { retention_days: 90 } });
    backed.hasResource('AWS::Backup::BackupVault', { DeletionPolicy: 'Retain' });
    backed.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanName: Match.anyValue(),
        BackupPlanRule: [
          Match.objectLike({
            ScheduleExpression: 'cron(0 3 * * ? *)',
            Lifecycle: { DeleteAfterDays: 90 },
          }),
        ],
      },
    });
    const table = Object.keys(backed.findResources('AWS::DynamoDB::GlobalTable'))[0];
    backed.hasResourceProperties('AWS::Backup::BackupSelection', {
      BackupSelection: Match.objectLike({ Resources: [{ 'Fn::GetAtt': [table, 'Arn'] }] }),
    });
    expect(
      Object.keys(backed.findOutputs('*'))
        .filter((name) => name.startsWith('Backup'))
        .sort(),
    ).toEqual(['BackupRoleArn', 'BackupVaultName']);
  });

  it('keeps 35 days by default, and takes no backup of a dev stage', () => {
    template.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: Match.objectLike({
        BackupPlanRule: [Match.objectLike({ Lifecycle: { DeleteAfterDays: 35 } })],
      }),
    });
    const dev = buildStack('dev').template;
    for (const type of [
      'AWS::Backup::BackupVault',
      'AWS::Backup::BackupPlan',
      'AWS::Backup::BackupSelection',
    ])
      dev.resourceCountIs(type, 0);
  });

  it('gives the stack a new table, leaving the old one retained, when the table generation is raised', () => {
    const first = Object.keys(template.findResources('AWS::DynamoDB::GlobalTable'));
    const { template: second } = withDeployment({ table_generation: 2 });
    const next = Object.keys(second.findResources('AWS::DynamoDB::GlobalTable'));
    expect(first).toHaveLength(1);
    expect(next).toHaveLength(1);
    expect(next[0]).toMatch(/^DataTable2/);
    expect(next[0]).not.toBe(first[0]);
    // Everything that named the old table names the new one: the functions' TABLE_NAME, the stream.
    expect(JSON.stringify(second.toJSON())).not.toContain(first[0] as string);
  });
});

describe('TenantStack in a fleet', () => {
  it('uses per stack what the quota arithmetic of docs/deploy.md counts', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.resourceCountIs('AWS::IAM::Role', 11);
    template.resourceCountIs('AWS::Scheduler::Schedule', 3);
    template.resourceCountIs('AWS::Events::Rule', 0);
    template.resourceCountIs('AWS::Backup::BackupPlan', 1);
    template.resourceCountIs('AWS::Backup::BackupVault', 1);
    // Two, and the payment provider's keys for a tenant that takes payment, as the demo does.
    template.resourceCountIs('AWS::SecretsManager::Secret', 3);
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.resourceCountIs('AWS::SNS::Topic', 1);
    const reserved = Object.values(resources('AWS::Lambda::Function')).reduce(
      (sum: number, fn) => sum + ((fn as { Properties: Props }).Properties.ReservedConcurrentExecutions ?? 0),
      0,
    );
    expect(reserved).toBe(6);
    // CloudFormation's 500 resources a stack: far from it ("about 140").
    expect(Object.keys(template.toJSON().Resources).length).toBeLessThan(160);
  });

  it('refuses termination on every stage but dev', () => {
    expect(buildStack('prod').stack.terminationProtection).toBe(true);
    expect(buildStack('staging').stack.terminationProtection).toBe(true);
    expect(buildStack('dev').stack.terminationProtection).toBe(false);
  });

  it('names every log group under /booking/<stack>/, so a teardown finds them all', () => {
    const { stack, template: named } = buildStack('prod');
    const names = Object.values(named.findResources('AWS::Logs::LogGroup')).map(
      (group) => (group as { Properties: Props }).Properties.LogGroupName,
    );
    expect(names.sort()).toEqual(
      [
        'Admin',
        'Bookings',
        'Channels',
        'Items',
        'Meta',
        'Payments',
        'Session',
        'Sweeper',
        'Webhooks',
        'api-access',
      ]
        .map((name) => `/booking/${stack.stackName}/${name}`)
        .sort(),
    );
  });
});
