import {
  CloudFormationClient,
  GetTemplateCommand,
  ListStackResourcesCommand,
  ListStacksCommand,
  SetStackPolicyCommand,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import type { CfnTemplate } from './stateful.ts';

/** What the fleet asks of CloudFormation (a port, so the wave logic is tested with a fake). */
export interface CloudFormationPort {
  /** The deployed template of a stack as it was submitted; undefined when there is no such stack. */
  getTemplate(stackName: string): Promise<CfnTemplate | undefined>;
  /** The stacks of the account and region that exist (deleted ones left out). */
  listStackNames(): Promise<string[]>;
  setStackPolicy(stackName: string, policyBody: string): Promise<void>;
  /** The resources of a deployed stack: for the alarms, their physical id is the alarm name. */
  listStackResources(stackName: string): Promise<{ logicalId: string; physicalId: string; type: string }[]>;
}

/** An alarm's state. */
export interface AlarmState {
  name: string;
  state: string;
  reason: string;
}

/** What the fleet asks of CloudWatch. */
export interface AlarmsPort {
  describeAlarms(names: string[]): Promise<AlarmState[]>;
}

/** Something with the SDK's `send`: a client, or a test's fake of one. */
export interface Sender {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's commands and answers differ per operation
  send(command: any): Promise<any>;
}

/** CloudFormation's answer when a stack does not exist: a ValidationError saying so. */
const isMissingStack = (error: unknown): boolean =>
  (error as Error).name === 'ValidationError' && /does not exist/.test((error as Error).message);

/** The fleet's CloudFormation calls over an SDK client. */
export function cloudFormationPort(client: Sender): CloudFormationPort {
  return {
    async getTemplate(stackName) {
      try {
        const answer = await client.send(
          new GetTemplateCommand({ StackName: stackName, TemplateStage: 'Original' }),
        );
        const body = answer.TemplateBody as string | undefined;
        if (!body) return undefined;
        try {
          return JSON.parse(body) as CfnTemplate;
        } catch {
          throw new Error(`the deployed template of ${stackName} is not JSON (a CDK stack's is)`);
        }
      } catch (error) {
        if (isMissingStack(error)) return undefined;
        throw error;
      }
    },
    async listStackNames() {
      const names: string[] = [];
      let NextToken: string | undefined;
      do {
        const answer = await client.send(new ListStacksCommand({ NextToken }));
        for (const stack of answer.StackSummaries ?? []) {
          if (stack.StackStatus !== 'DELETE_COMPLETE' && stack.StackName) names.push(stack.StackName);
        }
        NextToken = answer.NextToken;
      } while (NextToken);
      return names;
    },
    async setStackPolicy(stackName, policyBody) {
      await client.send(new SetStackPolicyCommand({ StackName: stackName, StackPolicyBody: policyBody }));
    },
    async listStackResources(stackName) {
      const resources: { logicalId: string; physicalId: string; type: string }[] = [];
      let NextToken: string | undefined;
      do {
        const answer = await client.send(new ListStackResourcesCommand({ StackName: stackName, NextToken }));
        for (const resource of answer.StackResourceSummaries ?? []) {
          resources.push({
            logicalId: resource.LogicalResourceId ?? '',
            physicalId: resource.PhysicalResourceId ?? '',
            type: resource.ResourceType ?? '',
          });
        }
        NextToken = answer.NextToken;
      } while (NextToken);
      return resources;
    },
  };
}

/** DescribeAlarms takes at most 100 names a call. */
const ALARM_NAMES_PER_CALL = 100;

/** The fleet's CloudWatch calls over an SDK client: metric and composite alarms alike. */
export function alarmsPort(client: Sender): AlarmsPort {
  return {
    async describeAlarms(names) {
      const states: AlarmState[] = [];
      for (let start = 0; start < names.length; start += ALARM_NAMES_PER_CALL) {
        let NextToken: string | undefined;
        do {
          const answer = await client.send(
            new DescribeAlarmsCommand({
              AlarmNames: names.slice(start, start + ALARM_NAMES_PER_CALL),
              // Without AlarmTypes, DescribeAlarms answers with metric alarms only.
              AlarmTypes: ['MetricAlarm', 'CompositeAlarm'],
              NextToken,
            }),
          );
          for (const alarm of [...(answer.MetricAlarms ?? []), ...(answer.CompositeAlarms ?? [])]) {
            states.push({
              name: alarm.AlarmName ?? '',
              state: alarm.StateValue ?? '',
              reason: alarm.StateReason ?? '',
            });
          }
          NextToken = answer.NextToken;
        } while (NextToken);
      }
      return states;
    },
  };
}

/** The AWS side of the fleet: the account's region and the two ports. */
export interface AwsPorts {
  region: string;
  cloudFormation: CloudFormationPort;
  alarms: AlarmsPort;
}

/**
 * The AWS ports when credentials and a region are configured (the SDK's default chain: environment,
 * profile, SSO, container or instance role); undefined otherwise, so `diff` falls back to git.
 */
export async function connectAws(): Promise<AwsPorts | undefined> {
  const cloudFormation = new CloudFormationClient({});
  try {
    await cloudFormation.config.credentials();
    const region = await cloudFormation.config.region();
    if (!region) return undefined;
    return {
      region,
      cloudFormation: cloudFormationPort(cloudFormation),
      alarms: alarmsPort(new CloudWatchClient({ region })),
    };
  } catch {
    cloudFormation.destroy();
    return undefined;
  }
}

/** The alarm resource types of a template or stack. */
export const ALARM_TYPES = new Set(['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::CompositeAlarm']);

/** The names of the stack's alarms (its alarm resources' physical ids) that are in ALARM. */
export async function firingAlarms(
  stackName: string,
  ports: { cloudFormation: CloudFormationPort; alarms: AlarmsPort },
): Promise<AlarmState[]> {
  const names = (await ports.cloudFormation.listStackResources(stackName))
    .filter((resource) => ALARM_TYPES.has(resource.type) && resource.physicalId)
    .map((resource) => resource.physicalId);
  if (names.length === 0) return [];
  return (await ports.alarms.describeAlarms(names)).filter((alarm) => alarm.state === 'ALARM');
}
