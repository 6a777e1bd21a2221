import { join } from 'node:path';
import { type AlarmsPort, type CloudFormationPort, firingAlarms } from './aws.ts';
import { ALLOW_ALL_POLICY, type CfnTemplate, stackPolicyFor } from './stateful.ts';

/** Runs a command to its end and answers its exit code; `label` prefixes its output. */
export type CommandRunner = (
  command: string,
  args: string[],
  options: { cwd: string; label: string },
) => Promise<number>;

/** A stack to deploy. */
export interface DeployTarget {
  /** The tenant file name (`-c tenant=`). */
  name: string;
  stackName: string;
  /** Its synthesised template: the stack policy is made from it. */
  template: CfnTemplate;
  /**
   * The override was given and this deployed stack loses a stateful resource: its stack policy is opened
   * for this one deploy (CloudFormation would refuse the replacement otherwise), then set again.
   */
  openPolicy: boolean;
}

/** How the waves run. */
export interface WaveOptions {
  root: string;
  stage: string;
  /** Passed as `-c tenants-dir=` when the tenant files are not in infra/tenants. */
  tenantsDir?: string;
  /**
   * Each deploy's cloud assembly goes to `<assemblyDir>/<tenant>` (`--output`): deploys running side by
   * side must not share cdk.out, which each one rewrites (and locks).
   */
  assemblyDir: string;
  /** Stacks per wave after the first, which is one stack (the canary). */
  waveSize: number;
  /** Deploys at once within a wave. */
  concurrency: number;
  /** Seconds to wait after a wave before its alarms are read. */
  bakeSeconds: number;
}

/** What the waves need from outside: the command runner and AWS, injected so tests fake them. */
export interface WaveDeps {
  run: CommandRunner;
  cloudFormation: CloudFormationPort;
  alarms: AlarmsPort;
  sleep: (ms: number) => Promise<void>;
  log: (line: string) => void;
}

/** What became of one stack. */
export interface DeployOutcome {
  name: string;
  stackName: string;
  wave: number;
  /** alarm: deployed, then one of its alarms was in ALARM after the bake. */
  status: 'deployed' | 'failed' | 'alarm' | 'skipped';
  detail: string;
}

/** What the waves did, and why they stopped when they did. */
export interface DeployReport {
  outcomes: DeployOutcome[];
  stopped?: string;
}

/** The waves: the first stack alone (a canary), then `waveSize` at a time, in the order given. */
export function planWaves<T>(targets: T[], waveSize: number): T[][] {
  const [canary, ...rest] = targets;
  if (canary === undefined) return [];
  const waves: T[][] = [[canary]];
  for (let start = 0; start < rest.length; start += waveSize) waves.push(rest.slice(start, start + waveSize));
  return waves;
}

/** The CDK command that deploys one tenant's stack, as docs/deploy.md has it. */
export function deployCommand(
  target: DeployTarget,
  options: WaveOptions,
): { command: string; args: string[] } {
  return {
    command: 'npx',
    args: [
      'cdk',
      'deploy',
      target.stackName,
      '-c',
      `tenant=${target.name}`,
      '-c',
      `stage=${options.stage}`,
      ...(options.tenantsDir ? ['-c', `tenants-dir=${options.tenantsDir}`] : []),
      '--require-approval',
      'never',
      '--output',
      join(options.assemblyDir, target.name),
    ],
  };
}

/** Runs `work` over the items, at most `limit` at once, starting none once `keepGoing` says no. */
async function runPool<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
  keepGoing: () => boolean,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = items.map(() => undefined);
  let next = 0;
  const worker = async () => {
    while (next < items.length && keepGoing()) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const policyBody = (template: CfnTemplate) => JSON.stringify(stackPolicyFor(template));

/** Deploys one stack, then protects its stateful resources with the stack policy. */
async function deployOne(
  target: DeployTarget,
  options: WaveOptions,
  deps: WaveDeps,
): Promise<string | undefined> {
  const { command, args } = deployCommand(target, options);
  try {
    if (target.openPolicy) {
      deps.log(`[${target.name}] opening the stack policy for this deploy (--allow-stateful-changes)`);
      await deps.cloudFormation.setStackPolicy(target.stackName, JSON.stringify(ALLOW_ALL_POLICY));
    }
    deps.log(`[${target.name}] ${command} ${args.join(' ')}`);
    const code = await deps.run(command, args, { cwd: options.root, label: target.name });
    if (code !== 0) {
      // Rolled back: protect what the stack has now again (its live template), never leave it open.
      if (target.openPolicy) {
        const live = await deps.cloudFormation.getTemplate(target.stackName);
        if (live) await deps.cloudFormation.setStackPolicy(target.stackName, policyBody(live));
      }
      return `cdk deploy exited with ${code}`;
    }
    await deps.cloudFormation.setStackPolicy(target.stackName, policyBody(target.template));
    return undefined;
  } catch (error) {
    return `${(error as Error).message}`;
  }
}

/**
 * Deploys in waves: within a wave at most `concurrency` stacks at once, each followed by its stack policy.
 * A failed deploy starts no further stack; after a wave that deployed, the bake time, then the alarms of
 * its stacks: one in ALARM stops the fleet before the next wave.
 */
export async function deployInWaves(
  targets: DeployTarget[],
  options: WaveOptions,
  deps: WaveDeps,
): Promise<DeployReport> {
  const outcomes: DeployOutcome[] = [];
  let stopped: string | undefined;
  for (const [index, wave] of planWaves(targets, options.waveSize).entries()) {
    const number = index + 1;
    const outcome = (
      target: DeployTarget,
      status: DeployOutcome['status'],
      detail: string,
    ): DeployOutcome => ({
      name: target.name,
      stackName: target.stackName,
      wave: number,
      status,
      detail,
    });
    if (stopped) {
      outcomes.push(...wave.map((target) => outcome(target, 'skipped', 'not started: the fleet stopped')));
      continue;
    }
    deps.log(`wave ${number}: ${wave.map((target) => target.name).join(', ')}`);
    let failed = false;
    const errors = await runPool(
      wave,
      options.concurrency,
      async (target) => {
        const error = await deployOne(target, options, deps);
        if (error) failed = true;
        return error ?? '';
      },
      () => !failed,
    );
    const results = wave.map((target, i) => {
      const error = errors[i];
      if (error === undefined) return outcome(target, 'skipped', 'not started: a deploy of this wave failed');
      return error ? outcome(target, 'failed', error) : outcome(target, 'deployed', 'stack policy set');
    });
    outcomes.push(...results);
    if (failed) {
      const names = results.filter((result) => result.status === 'failed').map((result) => result.name);
      stopped = `the deploy of ${names.join(', ')} failed (wave ${number})`;
      continue;
    }
    deps.log(`wave ${number} deployed; baking ${options.bakeSeconds} s before reading its alarms`);
    await deps.sleep(options.bakeSeconds * 1000);
    const firing: string[] = [];
    for (const result of results) {
      try {
        const alarms = await firingAlarms(result.stackName, deps);
        if (alarms.length === 0) continue;
        result.status = 'alarm';
        result.detail = `in ALARM: ${alarms.map((alarm) => alarm.name).join(', ')}`;
        firing.push(result.name);
      } catch (error) {
        result.status = 'alarm';
        result.detail = `its alarms could not be read: ${(error as Error).message}`;
        firing.push(result.name);
      }
    }
    if (firing.length > 0) stopped = `alarms of ${firing.join(', ')} fired after wave ${number}`;
  }
  return { outcomes, ...(stopped ? { stopped } : {}) };
}
