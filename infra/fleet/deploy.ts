import { join, relative } from 'node:path';
import { type BaselineSource, diffFleet, type FleetDiff, type FleetScope } from './diff.ts';
import { formatDiff } from './report.ts';
import type { CfnTemplate } from './stateful.ts';
import { type DeployReport, type DeployTarget, deployInWaves, type WaveDeps } from './waves.ts';

/** `deploy`'s own flags. */
export interface DeployFlags {
  waveSize: number;
  concurrency: number;
  bakeSeconds: number;
  /** `--allow-stateful-changes`: deploy even when the diff finds stateful data at risk. */
  allowStateful: boolean;
  /** `-c tenants-dir=` for the CDK app, when the tenant files are not in infra/tenants. */
  tenantsDirContext?: string;
}

/** What `deploy` did: the diff it ran first, and the waves, or why it deployed nothing. */
export interface FleetDeploy {
  diff: FleetDiff;
  refused?: string;
  report?: DeployReport;
}

/**
 * Diffs first and deploys nothing when a tenant could not be diffed, or when stateful data is at risk
 * and the override was not given; otherwise deploys every selected tenant in waves. Every tenant is
 * deployed, changed or not: without bundling the diff does not see a function's code.
 */
export async function deployFleet(
  scope: FleetScope,
  source: BaselineSource,
  flags: DeployFlags,
  deps: WaveDeps,
): Promise<FleetDeploy> {
  const diff = await diffFleet(scope, source);
  deps.log(formatDiff(diff));
  if (diff.failed) return { diff, refused: 'some tenants could not be diffed (above): nothing was deployed' };
  if (diff.blocked && !flags.allowStateful) {
    return {
      diff,
      refused:
        'stateful data is at risk (above): nothing was deployed. Fix the change, or deploy with ' +
        '--allow-stateful-changes once the data is safe elsewhere.',
    };
  }
  const targets: DeployTarget[] = diff.tenants.map((tenant) => ({
    name: tenant.name,
    stackName: tenant.stackName as string,
    template: tenant.template as CfnTemplate,
    // Only a stack that exists has a policy to open; a renamed tenant's new stack has none yet.
    openPolicy: flags.allowStateful && tenant.blocked && tenant.status === 'changed',
  }));
  const report = await deployInWaves(
    targets,
    {
      root: scope.root,
      stage: scope.stage,
      ...(flags.tenantsDirContext ? { tenantsDir: flags.tenantsDirContext } : {}),
      assemblyDir: relative(scope.root, join(scope.outDir, `deploy-${scope.stage}`)),
      waveSize: flags.waveSize,
      concurrency: flags.concurrency,
      bakeSeconds: flags.bakeSeconds,
    },
    deps,
  );
  return { diff, report };
}
