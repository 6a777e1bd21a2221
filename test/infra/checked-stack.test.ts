import { Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { addStackChecks } from '#infra/checks.ts';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '#lib/kernel/metric-names.ts';
import { buildStack } from '#test/support/cdk.ts';

type Json = Record<string, unknown>;
interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

let template: Template;
beforeAll(() => {
  template = buildStack('prod').template;
});

const resources = (type: string) => template.findResources(type) as Record<string, Json>;
const functions = () =>
  Object.entries(resources('AWS::Lambda::Function')) as [string, { Properties: Json }][];
const policyOf = (roleRef: unknown): Statement[] =>
  Object.values(resources('AWS::IAM::Policy'))
    .map((policy) => policy.Properties as { Roles: unknown[]; PolicyDocument: { Statement: Statement[] } })
    .filter((props) => JSON.stringify(props.Roles) === JSON.stringify([roleRef]))
    .flatMap((props) => props.PolicyDocument.Statement);
const actionsOf = (statements: Statement[]) => statements.flatMap((statement) => [statement.Action].flat());

describe('traces and metrics', () => {
  it('traces every function actively but the sweeper and dispatcher, with Powertools told its service, namespace and no responses', () => {
    expect(functions()).toHaveLength(9);
    for (const [id, fn] of functions()) {
      // Run once a minute each, every run would be a recorded trace (docs/cost.md): neither records one.
      const untraced = /^Functions(Sweeper|Webhooks)/.test(id);
      const variables = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
      expect(variables.POWERTOOLS_TRACE_ENABLED, id).toBe(untraced ? 'false' : undefined);
      expect(fn.Properties, id).toMatchObject({
        TracingConfig: { Mode: untraced ? 'PassThrough' : 'Active' },
        Environment: {
          Variables: expect.objectContaining({
            POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
            POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
            POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
          }),
        },
      });
    }
  });

  it('lets every function send traces, as CDK grants it (X-Ray has no resource ARNs)', () => {
    for (const [id, fn] of functions()) {
      const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const statements = policyOf({ Ref: role });
      expect(statements, id).toContainEqual(
        expect.objectContaining({
          Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
          Effect: 'Allow',
          Resource: '*',
        }),
      );
      // The one `Resource: *` a role has is X-Ray's: the wildcard acknowledged for cdk-nag hides nothing else.
      const anywhere = statements.filter((statement) => statement.Resource === '*');
      expect(actionsOf(anywhere).sort(), id).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
  });

  it('grants no function cloudwatch:PutMetricData: metrics leave through the logs (embedded metric format)', () => {
    const actions = Object.values(resources('AWS::IAM::Policy')).flatMap((policy) =>
      actionsOf(
        (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement,
      ),
    );
    expect(actions.filter((action) => action.startsWith('cloudwatch:'))).toEqual([]);
    expect(actions).not.toContain('*');
  });

  it('gives each function a role of its own that writes to its own log group only, no managed policy', () => {
    for (const [id, fn] of functions()) {
      const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const role = resources('AWS::IAM::Role')[roleId] as { Properties: Json };
      expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
      const logGroup = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const logs = policyOf({ Ref: roleId }).filter((statement) =>
        actionsOf([statement]).some((action) => action.startsWith('logs:')),
      );
      expect(logs, id).toEqual([
        expect.objectContaining({
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] },
        }),
      ]);
    }
  });
});

describe('the checked stack (cdk-nag AwsSolutions and Serverless)', () => {
  it.each(['prod', 'dev'])('has no unacknowledged finding on a %s stage', (stage) => {
    const { stack } = buildStack(stage);
    const report = new AwsSolutionsChecks().validateScope(stack);
    // A warning fails `cdk synth` as an error does (the plugin's report is then unsuccessful): neither.
    const findings = report.violations.map(
      (violation) =>
        `${violation.severity} ${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('gives every acknowledgment its reason', () => {
    const { stack, template: dev } = buildStack('dev');
    const table = Object.keys(dev.findResources('AWS::DynamoDB::GlobalTable'))[0];
    const scheduled = Object.keys(dev.findResources('AWS::Lambda::Function')).filter((id) =>
      /^Functions(Sweeper|Webhooks|Channels)/.test(id),
    );
    const acknowledged = stack.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
    const rules = new Set(acknowledged.map(([id]) => id.replace(/^annotation::/i, '')));
    expect([...rules].sort()).toEqual(
      [
        'AwsSolutions-APIG4',
        'AwsSolutions-DDB3',
        'AwsSolutions-IAM5[Resource::*]',
        `AwsSolutions-IAM5[Resource::<${table}.Arn>/index/*]`,
        'AwsSolutions-L1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SNS2',
        'AwsSolutions-SQS3',
        // The scheduler's role invokes the scheduled functions (and their versions) only.
        ...scheduled.map((fn) => `AwsSolutions-IAM5[Resource::<${fn}.Arn>:*]`),
        // cdk-nag's Serverless pack, which runs beside AwsSolutions (infra/checks.ts).
        'Serverless-LambdaDLQ',
        'Serverless-LambdaLatestVersion',
        'Serverless-LambdaTracing',
        'Serverless-SNSRedrivePolicy',
        'Serverless-SQSRedrivePolicy',
      ].sort(),
    );
    for (const [id, reason] of acknowledged) expect(reason.length, id).toBeGreaterThan(40);
  });

  it('runs at synth and fails it on an unacknowledged finding', () => {
    const passing = buildStack('prod');
    addStackChecks(passing.app);
    expect(() => passing.app.synth()).not.toThrow();

    const failing = buildStack('prod');
    addStackChecks(failing.app);
    // A queue with neither a dead-letter queue nor a TLS-only policy, acknowledged nowhere.
    new Queue(failing.stack, 'Unchecked');
    expect(() => failing.app.synth()).toThrow(/AwsSolutions-SQS(3|4)/);
    // The Serverless pack runs too: the same queue has no redrive policy.
    expect(() => failing.app.synth()).toThrow(/Serverless-SQSRedrivePolicy/);
  });
});
