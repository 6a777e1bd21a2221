import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetTemplateCommand,
  ListStackResourcesCommand,
  ListStacksCommand,
  SetStackPolicyCommand,
} from '@aws-sdk/client-cloudformation';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { alarmsPort, cloudFormationPort, connectAws, firingAlarms, type Sender } from '#infra/fleet/aws.ts';
import { deployedBaseline, directoryBaseline } from '#infra/fleet/baseline.ts';
import { FleetError } from '#infra/fleet/errors.ts';

/** A fake SDK client: answers each command by its class, and keeps what it was sent. */
function fakeClient(answer: (command: { constructor: { name: string }; input: any }) => unknown) {
  const sent: { name: string; input: any }[] = [];
  const client: Sender = {
    send: async (command: { constructor: { name: string }; input: any }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      return answer(command);
    },
  };
  return { client, sent };
}

const missingStack = (name: string) =>
  Object.assign(new Error(`Stack with id ${name} does not exist`), { name: 'ValidationError' });

describe('the CloudFormation port', () => {
  it("reads a stack's original template, and none for a stack that does not exist", async () => {
    const { client, sent } = fakeClient((command) => {
      if (command.input.StackName === 'Booking-gone-prod') throw missingStack('Booking-gone-prod');
      return { TemplateBody: JSON.stringify({ Resources: { T: { Type: 'AWS::DynamoDB::GlobalTable' } } }) };
    });
    const port = cloudFormationPort(client);
    expect(await port.getTemplate('Booking-a-prod')).toEqual({
      Resources: { T: { Type: 'AWS::DynamoDB::GlobalTable' } },
    });
    expect(await port.getTemplate('Booking-gone-prod')).toBeUndefined();
    expect(sent[0]).toEqual({
      name: GetTemplateCommand.name,
      input: { StackName: 'Booking-a-prod', TemplateStage: 'Original' },
    });
  });

  it('lets any other error through', async () => {
    const { client } = fakeClient(() => {
      throw Object.assign(new Error('Rate exceeded'), { name: 'Throttling' });
    });
    await expect(cloudFormationPort(client).getTemplate('Booking-a-prod')).rejects.toThrow('Rate exceeded');
  });

  it('lists the stacks that exist, every page, without the deleted ones', async () => {
    const { client, sent } = fakeClient((command) =>
      command.input.NextToken
        ? { StackSummaries: [{ StackName: 'Booking-c-prod', StackStatus: 'UPDATE_COMPLETE' }] }
        : {
            StackSummaries: [
              { StackName: 'Booking-a-prod', StackStatus: 'CREATE_COMPLETE' },
              { StackName: 'Booking-b-prod', StackStatus: 'DELETE_COMPLETE' },
            ],
            NextToken: 'page-2',
          },
    );
    expect(await cloudFormationPort(client).listStackNames()).toEqual(['Booking-a-prod', 'Booking-c-prod']);
    expect(sent.map((call) => call.name)).toEqual([ListStacksCommand.name, ListStacksCommand.name]);
  });

  it('sets a stack policy as a body, and lists stack resources every page', async () => {
    const { client, sent } = fakeClient((command) => {
      if (command.constructor.name === ListStackResourcesCommand.name) {
        return command.input.NextToken
          ? {
              StackResourceSummaries: [
                { LogicalResourceId: 'B', PhysicalResourceId: 'b', ResourceType: 'T' },
              ],
            }
          : {
              StackResourceSummaries: [
                { LogicalResourceId: 'A', PhysicalResourceId: 'a', ResourceType: 'T' },
              ],
              NextToken: 'next',
            };
      }
      return {};
    });
    const port = cloudFormationPort(client);
    await port.setStackPolicy('Booking-a-prod', '{"Statement":[]}');
    expect(sent[0]).toEqual({
      name: SetStackPolicyCommand.name,
      input: { StackName: 'Booking-a-prod', StackPolicyBody: '{"Statement":[]}' },
    });
    expect(await port.listStackResources('Booking-a-prod')).toEqual([
      { logicalId: 'A', physicalId: 'a', type: 'T' },
      { logicalId: 'B', physicalId: 'b', type: 'T' },
    ]);
  });
});

describe('the alarms', () => {
  it('are described a hundred names a call, metric and composite alike', async () => {
    const { client, sent } = fakeClient((command) => ({
      MetricAlarms: command.input.AlarmNames.slice(0, 1).map((name: string) => ({
        AlarmName: name,
        StateValue: 'OK',
      })),
      CompositeAlarms: [{ AlarmName: `composite-${sent.length}`, StateValue: 'ALARM', StateReason: 'child' }],
    }));
    const names = Array.from({ length: 150 }, (_, index) => `alarm-${index}`);
    const states = await alarmsPort(client).describeAlarms(names);
    expect(sent.map((call) => [call.name, call.input.AlarmNames.length, call.input.AlarmTypes])).toEqual([
      [DescribeAlarmsCommand.name, 100, ['MetricAlarm', 'CompositeAlarm']],
      [DescribeAlarmsCommand.name, 50, ['MetricAlarm', 'CompositeAlarm']],
    ]);
    expect(states).toContainEqual({ name: 'composite-1', state: 'ALARM', reason: 'child' });
    expect(states).toHaveLength(4);
  });

  it("that fire are the stack's alarm resources in ALARM, found by their physical ids", async () => {
    const described: string[][] = [];
    const firing = await firingAlarms('Booking-a-prod', {
      cloudFormation: {
        getTemplate: async () => undefined,
        listStackNames: async () => [],
        setStackPolicy: async () => {},
        listStackResources: async () => [
          { logicalId: 'Table', physicalId: 'Booking-a-prod-table', type: 'AWS::DynamoDB::GlobalTable' },
          {
            logicalId: 'Errors',
            physicalId: 'Booking-a-prod-fn-items-errors',
            type: 'AWS::CloudWatch::Alarm',
          },
          {
            logicalId: 'Health',
            physicalId: 'Booking-a-prod-health',
            type: 'AWS::CloudWatch::CompositeAlarm',
          },
        ],
      },
      alarms: {
        describeAlarms: async (names) => {
          described.push(names);
          return [
            { name: 'Booking-a-prod-fn-items-errors', state: 'OK', reason: '' },
            { name: 'Booking-a-prod-health', state: 'ALARM', reason: 'a child fired' },
          ];
        },
      },
    });
    expect(described).toEqual([['Booking-a-prod-fn-items-errors', 'Booking-a-prod-health']]);
    expect(firing).toEqual([{ name: 'Booking-a-prod-health', state: 'ALARM', reason: 'a child fired' }]);
  });
});

describe('the deployed baseline', () => {
  it("keeps the stage's tenant stacks, and reads each one's tenant file from its template, once", async () => {
    const getTemplate = vi.fn(async (stackName: string) =>
      stackName === 'Booking-a-prod'
        ? { Metadata: { 'booking:tenant-file': 'a' }, Resources: {} }
        : undefined,
    );
    const baseline = deployedBaseline(
      {
        getTemplate,
        listStackNames: async () => ['Booking-a-prod', 'Booking-a-dev', 'Booking-x-y-prod', 'CDKToolkit'],
        setStackPolicy: async () => {},
        listStackResources: async () => [],
      },
      'eu-west-1',
    );
    expect(baseline.description).toBe('the deployed stacks (CloudFormation GetTemplate, region eu-west-1)');
    expect(await baseline.stackNames('prod')).toEqual(['Booking-a-prod', 'Booking-x-y-prod']);
    expect(await baseline.tenantFileOf('Booking-a-prod')).toBe('a');
    expect(await baseline.template('Booking-a-prod')).toMatchObject({ Resources: {} });
    expect(await baseline.tenantFileOf('Booking-x-y-prod')).toBeUndefined();
    expect(getTemplate).toHaveBeenCalledTimes(2);
  });
});

describe('a folder of templates as the baseline', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds templates by stack name in the tenant folders a synth writes, and refuses two of one stack', async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-templates-'));
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a', 'Booking-a-prod.template.json'), '{"Resources":{}}');
    writeFileSync(
      join(dir, 'Booking-b-prod.template.json'),
      '{"Resources":{"Q":{"Type":"AWS::SQS::Queue"}}}',
    );
    const baseline = directoryBaseline(dir);
    expect(await baseline.stackNames('prod')).toEqual(['Booking-a-prod', 'Booking-b-prod']);
    expect(await baseline.template('Booking-b-prod')).toEqual({
      Resources: { Q: { Type: 'AWS::SQS::Queue' } },
    });
    expect(await baseline.template('Booking-c-prod')).toBeUndefined();

    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'b', 'Booking-b-prod.template.json'), '{}');
    expect(() => directoryBaseline(dir as string)).toThrow(FleetError);
  });
});

describe('AWS, when configured', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is connected with credentials and a region from the environment', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    expect(await connectAws()).toMatchObject({ region: 'eu-west-1' });
  });

  it('is not, without credentials: the diff falls back to git', async () => {
    for (const name of [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
    ]) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/credentials');
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/config');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    expect(await connectAws()).toBeUndefined();
  });
});
