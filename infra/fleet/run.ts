import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { TENANTS_DIR } from '#infra/tenant-names.ts';
import { type FleetArgs, parseFleetArgs, USAGE } from './args.ts';
import type { AwsPorts } from './aws.ts';
import { deployFleet } from './deploy.ts';
import { type BaselineSource, diffFleet, type FleetScope } from './diff.ts';
import { FleetError, FleetUsageError } from './errors.ts';
import { formatDeploy, formatDiff, formatSynth } from './report.ts';
import { refuseSharedStacks, synthesizeTree } from './synth.ts';
import { listTenantFiles, selectTenants } from './tenant-files.ts';
import type { CommandRunner } from './waves.ts';

/** What the fleet command needs from its surroundings; the CLI passes the real ones, tests fakes. */
export interface FleetDeps {
  /** The repository root: the tree whose code builds the new templates. */
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The AWS ports, or undefined when no credentials or region are configured. */
  connectAws: () => Promise<AwsPorts | undefined>;
  run: CommandRunner;
  sleep: (ms: number) => Promise<void>;
}

/** The baseline a `--base` names; without one, the deployed stacks when AWS is configured, else git HEAD. */
function chooseBaseline(args: FleetArgs, deps: FleetDeps, aws: AwsPorts | undefined): BaselineSource {
  const deployed = (ports: AwsPorts): BaselineSource => ({
    kind: 'deployed',
    cloudFormation: ports.cloudFormation,
    region: ports.region,
  });
  if (args.base === undefined) return aws ? deployed(aws) : { kind: 'git', ref: 'HEAD' };
  if (args.base === 'aws') {
    if (!aws) throw new FleetUsageError('--base aws: no AWS credentials and region are configured');
    return deployed(aws);
  }
  const dir = resolve(deps.cwd, args.base);
  if (existsSync(dir) && statSync(dir).isDirectory()) return { kind: 'directory', dir };
  return { kind: 'git', ref: args.base };
}

async function synth(args: FleetArgs, scope: FleetScope, deps: FleetDeps): Promise<number> {
  const selected = selectTenants(listTenantFiles(scope.tenantsDir), args.names, scope.tenantsDir);
  const outDir = join(scope.outDir, scope.stage);
  const results = refuseSharedStacks(
    await synthesizeTree({
      treeDir: scope.root,
      tenants: selected,
      stage: scope.stage,
      outDir,
      checks: args.checks,
      validation: true,
    }),
  );
  deps.out(formatSynth(results, relative(deps.cwd, outDir) || outDir, deps.cwd));
  return results.every((result) => result.ok) ? 0 : 1;
}

async function deploy(args: FleetArgs, scope: FleetScope, deps: FleetDeps): Promise<number> {
  const aws = await deps.connectAws();
  if (!aws) {
    throw new FleetError(
      'deploy needs AWS credentials and a region (AWS_PROFILE or AWS_ACCESS_KEY_ID…, and AWS_REGION): nothing was deployed',
    );
  }
  const tenantsDir = relative(scope.root, scope.tenantsDir);
  const result = await deployFleet(
    scope,
    chooseBaseline(args, deps, aws),
    {
      waveSize: args.waveSize,
      concurrency: args.concurrency,
      bakeSeconds: args.bakeSeconds,
      allowStateful: args.allowStateful,
      ...(tenantsDir !== TENANTS_DIR ? { tenantsDirContext: tenantsDir } : {}),
    },
    {
      run: deps.run,
      cloudFormation: aws.cloudFormation,
      alarms: aws.alarms,
      sleep: deps.sleep,
      log: deps.out,
    },
  );
  if (result.refused) {
    deps.out(`\nREFUSED: ${result.refused}`);
    return 1;
  }
  deps.out(`\n${formatDeploy(result.report ?? { outcomes: [] })}`);
  return result.report?.stopped ? 1 : 0;
}

/**
 * `npm run fleet -- synth|diff|deploy`: answers the exit code, 0 done, 1 failed (an invalid tenant, a
 * failed synth, stateful data at risk, a deploy stopped), 2 a command line it does not understand.
 */
export async function runFleet(argv: string[], deps: FleetDeps): Promise<number> {
  try {
    const args = parseFleetArgs(argv);
    if (args === 'help') {
      deps.out(USAGE);
      return 0;
    }
    const scope: FleetScope = {
      root: deps.cwd,
      tenantsDir: resolve(deps.cwd, args.tenantsDir),
      stage: args.stage,
      outDir: resolve(deps.cwd, args.outDir),
      ...(args.names ? { names: args.names } : {}),
    };
    switch (args.command) {
      case 'synth':
        return await synth(args, scope, deps);
      case 'diff': {
        // Only a baseline of deployed stacks needs AWS: a ref or a folder is read without asking it.
        const wantsAws = args.base === undefined || args.base === 'aws';
        const aws = wantsAws ? await deps.connectAws() : undefined;
        const diff = await diffFleet(scope, chooseBaseline(args, deps, aws));
        deps.out(formatDiff(diff));
        return diff.blocked || diff.failed ? 1 : 0;
      }
      case 'deploy':
        return await deploy(args, scope, deps);
    }
  } catch (error) {
    if (error instanceof FleetUsageError) {
      deps.err(`fleet: ${error.message}\n(npm run fleet -- --help for the usage)`);
      return 2;
    }
    if (error instanceof FleetError) {
      deps.err(`fleet: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
