import { describe, expect, it } from 'vitest';
import type { AlarmState, CloudFormationPort } from '#infra/fleet/aws.ts';
import { makeRunner } from '#infra/fleet/runner.ts';
import { ALLOW_ALL_POLICY, type CfnTemplate, stackPolicyFor } from '#infra/fleet/stateful.ts';
import {
  type CommandRunner,
  type DeployTarget,
  deployInWaves,
  planWaves,
  type WaveDeps,
  type WaveOptions,
} from '#infra/fleet/waves.ts';

const TEMPLATE: CfnTemplate = {
  Resources: {
    DataTable: { Type: 'AWS::DynamoDB::GlobalTable', DeletionPolicy: 'Retain' },
    Fn: { Type: 'AWS::Lambda::Function' },
  },
};
const target = (name: string, overrides: Partial<DeployTarget> = {}): DeployTarget => ({
  name,
  stackName: `Booking-${name}-prod`,
  template: TEMPLATE,
  openPolicy: false,
  ...overrides,
});
const OPTIONS: WaveOptions = {
  root: '/repo',
  stage: 'prod',
  assemblyDir: 'cdk.out/fleet/deploy-prod',
  waveSize: 2,
  concurrency: 2,
  bakeSeconds: 120,
};

/**
 * Fakes of everything the waves touch, recording one event list: deploy start and end, stack policies,
 * bakes and alarm reads, in the order they happen. `firing` puts a stack's alarm in ALARM.
 */
function fakes(options: { failing?: string[]; firing?: string[]; live?: CfnTemplate } = {}) {
  const events: string[] = [];
  const policies: Record<string, string[]> = {};
  let running = 0;
  let mostAtOnce = 0;
  const commands: string[][] = [];
  const run: CommandRunner = async (command, args, { cwd, label }) => {
    commands.push([cwd, command, ...args]);
    events.push(`start ${label}`);
    running += 1;
    mostAtOnce = Math.max(mostAtOnce, running);
    // Yield to the event loop, so a concurrent deploy starts before this one ends.
    await new Promise((resolve) => setImmediate(resolve));
    running -= 1;
    events.push(`end ${label}`);
    return options.failing?.includes(label) ? 1 : 0;
  };
  const alarmName = (stackName: string) => `${stackName}-api-5xx-rate`;
  const cloudFormation: CloudFormationPort = {
    getTemplate: async () => options.live,
    listStackNames: async () => [],
    setStackPolicy: async (stackName, body) => {
      events.push(`policy ${stackName}`);
      policies[stackName] = [...(policies[stackName] ?? []), body];
    },
    listStackResources: async (stackName) => [
      { logicalId: 'DataTable', physicalId: `${stackName}-table`, type: 'AWS::DynamoDB::GlobalTable' },
      { logicalId: 'Alarm', physicalId: alarmName(stackName), type: 'AWS::CloudWatch::Alarm' },
    ],
  };
  const described: string[][] = [];
  const deps: WaveDeps = {
    run,
    cloudFormation,
    alarms: {
      describeAlarms: async (names): Promise<AlarmState[]> => {
        described.push(names);
        events.push(`alarms ${names.join(',')}`);
        return names.map((name) => ({
          name,
          state: options.firing?.some((stack) => alarmName(`Booking-${stack}-prod`) === name)
            ? 'ALARM'
            : 'OK',
          reason: 'Threshold Crossed',
        }));
      },
    },
    sleep: async (ms) => {
      events.push(`bake ${ms}`);
    },
    log: () => {},
  };
  return { deps, events, policies, described, commands, mostAtOnce: () => mostAtOnce };
}

describe('the waves', () => {
  it('start with a one-stack canary, then take --wave stacks at a time, in the order given', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(planWaves(names, 2)).toEqual([['a'], ['b', 'c'], ['d', 'e'], ['f']]);
    expect(planWaves(names, 5)).toEqual([['a'], ['b', 'c', 'd', 'e', 'f']]);
    expect(planWaves(['a'], 5)).toEqual([['a']]);
    expect(planWaves([], 5)).toEqual([]);
  });

  it('deploy wave after wave, a stack policy after each deploy, the alarms read after each bake', async () => {
    const { deps, events, policies } = fakes();
    const report = await deployInWaves(
      ['a', 'b', 'c'].map((name) => target(name)),
      OPTIONS,
      deps,
    );
    expect(report.stopped).toBeUndefined();
    expect(report.outcomes.map((outcome) => [outcome.name, outcome.wave, outcome.status])).toEqual([
      ['a', 1, 'deployed'],
      ['b', 2, 'deployed'],
      ['c', 2, 'deployed'],
    ]);
    expect(events).toEqual([
      'start a',
      'end a',
      'policy Booking-a-prod',
      'bake 120000',
      'alarms Booking-a-prod-api-5xx-rate',
      'start b',
      'start c',
      'end b',
      'policy Booking-b-prod',
      'end c',
      'policy Booking-c-prod',
      'bake 120000',
      'alarms Booking-b-prod-api-5xx-rate',
      'alarms Booking-c-prod-api-5xx-rate',
    ]);
    expect(JSON.parse(policies['Booking-a-prod']?.[0] as string)).toEqual(stackPolicyFor(TEMPLATE));
    expect(policies['Booking-a-prod']?.[0]).toContain('LogicalResourceId/DataTable');
  });

  it('run cdk deploy at the root with the tenant, the stage and a cloud assembly folder of its own', async () => {
    const { deps, commands } = fakes();
    await deployInWaves(
      [target('a'), target('b')],
      { ...OPTIONS, stage: 'dev', tenantsDir: 'fleet/tenants' },
      deps,
    );
    expect(commands).toEqual(
      ['a', 'b'].map((name) => [
        '/repo',
        'npx',
        'cdk',
        'deploy',
        `Booking-${name}-prod`,
        '-c',
        `tenant=${name}`,
        '-c',
        'stage=dev',
        '-c',
        'tenants-dir=fleet/tenants',
        '--require-approval',
        'never',
        '--output',
        `cdk.out/fleet/deploy-prod/${name}`,
      ]),
    );
  });

  it('deploy no more than --concurrency stacks at once', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const two = fakes();
    await deployInWaves(
      names.map((name) => target(name)),
      { ...OPTIONS, waveSize: 6, concurrency: 2 },
      two.deps,
    );
    expect(two.mostAtOnce()).toBe(2);
    const one = fakes();
    await deployInWaves(
      names.map((name) => target(name)),
      { ...OPTIONS, waveSize: 6, concurrency: 1 },
      one.deps,
    );
    expect(one.mostAtOnce()).toBe(1);
    expect(one.events.filter((event) => event.startsWith('start'))).toEqual(
      names.map((name) => `start ${name}`),
    );
  });

  it('stop before the next wave when an alarm of a deployed stack is in ALARM, and name it', async () => {
    const { deps, events } = fakes({ firing: ['c'] });
    const report = await deployInWaves(
      ['a', 'b', 'c', 'd', 'e'].map((name) => target(name)),
      OPTIONS,
      deps,
    );
    expect(report.stopped).toBe('alarms of c fired after wave 2');
    expect(report.outcomes.map((outcome) => [outcome.name, outcome.status, outcome.detail])).toEqual([
      ['a', 'deployed', 'stack policy set'],
      ['b', 'deployed', 'stack policy set'],
      ['c', 'alarm', 'in ALARM: Booking-c-prod-api-5xx-rate'],
      ['d', 'skipped', 'not started: the fleet stopped'],
      ['e', 'skipped', 'not started: the fleet stopped'],
    ]);
    expect(events).not.toContain('start d');
  });

  it('only ask CloudWatch about the alarms among the stack resources', async () => {
    const { deps, described } = fakes();
    await deployInWaves([target('a')], OPTIONS, deps);
    expect(described).toEqual([['Booking-a-prod-api-5xx-rate']]);
  });

  it('stop on a failed deploy: no policy for it, no further stack started, no bake', async () => {
    const { deps, events } = fakes({ failing: ['b'] });
    const report = await deployInWaves(
      ['a', 'b', 'c', 'd'].map((name) => target(name)),
      { ...OPTIONS, waveSize: 3, concurrency: 1 },
      deps,
    );
    expect(report.stopped).toBe('the deploy of b failed (wave 2)');
    expect(report.outcomes.map((outcome) => [outcome.name, outcome.status])).toEqual([
      ['a', 'deployed'],
      ['b', 'failed'],
      ['c', 'skipped'],
      ['d', 'skipped'],
    ]);
    expect(report.outcomes[1]?.detail).toBe('cdk deploy exited with 1');
    expect(events.slice(5)).toEqual(['start b', 'end b']);
  });

  it('open the policy of a stack the override lets lose data, then protect it again', async () => {
    const { deps, events, policies } = fakes();
    await deployInWaves([target('a', { openPolicy: true })], OPTIONS, deps);
    expect(events.slice(0, 4)).toEqual([
      'policy Booking-a-prod',
      'start a',
      'end a',
      'policy Booking-a-prod',
    ]);
    expect(policies['Booking-a-prod']?.map((body) => JSON.parse(body))).toEqual([
      ALLOW_ALL_POLICY,
      stackPolicyFor(TEMPLATE),
    ]);
  });

  it('protect a stack whose opened deploy failed with the policy of its live (rolled back) template', async () => {
    const live: CfnTemplate = { Resources: { OldTable: { Type: 'AWS::DynamoDB::GlobalTable' } } };
    const { deps, policies } = fakes({ failing: ['a'], live });
    const report = await deployInWaves([target('a', { openPolicy: true })], OPTIONS, deps);
    expect(report.outcomes[0]?.status).toBe('failed');
    expect(policies['Booking-a-prod']?.map((body) => JSON.parse(body))).toEqual([
      ALLOW_ALL_POLICY,
      stackPolicyFor(live),
    ]);
  });
});

describe('the command runner', () => {
  it("prefixes each line of a command's output with its tenant, and answers its exit code", async () => {
    let out = '';
    let err = '';
    const run = makeRunner(
      { write: (text: string) => (out += text) },
      { write: (text: string) => (err += text) },
    );
    const script = "process.stdout.write('one\\ntwo'); process.stderr.write('oops\\n'); process.exit(3)";
    expect(await run(process.execPath, ['-e', script], { cwd: process.cwd(), label: 'lakeside' })).toBe(3);
    expect(out).toBe('[lakeside] one\n[lakeside] two\n');
    expect(err).toBe('[lakeside] oops\n');
    expect(await run('no-such-command-here', [], { cwd: process.cwd(), label: 'harbour' })).toBe(1);
    expect(err).toContain('[harbour] no-such-command-here: spawn no-such-command-here ENOENT');
  });
});
