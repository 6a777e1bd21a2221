import { join, relative, resolve, sep } from 'node:path';
import { tenantStackName } from '#infra/tenant-names.ts';
import type { CloudFormationPort } from './aws.ts';
import { type Baseline, deployedBaseline, directoryBaseline } from './baseline.ts';
import { FleetUsageError } from './errors.ts';
import { gitBaseline, locateGitBaseline } from './git-baseline.ts';
import type { CfnTemplate } from './stateful.ts';
import { readTemplate, refuseSharedStacks, synthesizeTree } from './synth.ts';
import { diffStack, type StackChanges } from './template-diff.ts';
import { listTenantFiles, selectTenants, tenantIdOf } from './tenant-files.ts';

/** Where the fleet works: the tree, its tenant files, the stage and the output folder. */
export interface FleetScope {
  /** The working tree whose code builds the new templates. */
  root: string;
  tenantsDir: string;
  stage: string;
  /**
   * `synth` writes templates to `<outDir>/<stage>/<tenant>/`, `diff` its new ones to
   * `<outDir>/diff-<stage>/<tenant>/` and a git baseline's to its cache,
   * `<outDir>/base-cache/<commit>/<stage>/<tenant>/`.
   */
  outDir: string;
  /** `--tenants`: file names, in order; every tenant file when absent. */
  names?: string[];
}

/** What the new templates are compared with. */
export type BaselineSource =
  | { kind: 'git'; ref: string }
  | { kind: 'directory'; dir: string }
  | { kind: 'deployed'; cloudFormation: CloudFormationPort; region: string };

/** One tenant's diff. */
export interface TenantDiff {
  name: string;
  file: string;
  stackName?: string;
  /**
   * unchanged / changed: the baseline has the stack; new: it has none; renamed: it has none, but this
   * file built another stack there that no file builds now (the tenant id changed); invalid: the tenant
   * file is not valid; failed: the synth (or the baseline's) failed.
   */
  status: 'unchanged' | 'changed' | 'new' | 'renamed' | 'invalid' | 'failed';
  template?: CfnTemplate;
  changes?: StackChanges;
  /** renamed: the baseline's stack of this file, which would keep running with the data. */
  previousStack?: string;
  /** The baseline built this stack from another tenant file: the file was renamed, the tenant id kept. */
  previousFile?: string;
  message?: string;
  /** Stateful data at stake: a stateful resource replaced, destroyed or orphaned, or the stack renamed. */
  blocked: boolean;
}

/** A baseline stack of the stage that no tenant file builds any more: the fleet leaves it running. */
export interface OrphanStack {
  stackName: string;
  tenantFile?: string;
}

/** The diff of the selected tenants. */
export interface FleetDiff {
  baseline: string;
  stage: string;
  tenants: TenantDiff[];
  orphans: OrphanStack[];
  /** Some tenant would lose or split its data: `diff` exits 1 and `deploy` refuses. */
  blocked: boolean;
  /** Some tenant could not be diffed (invalid file, failed synth). */
  failed: boolean;
}

function openBaseline(scope: FleetScope, source: BaselineSource, wanted: GitWanted): Promise<Baseline> {
  switch (source.kind) {
    case 'git':
      return gitBaseline({
        root: scope.root,
        ref: source.ref,
        tenantsDir: scope.tenantsDir,
        stage: scope.stage,
        cacheDir: join(scope.outDir, 'base-cache'),
        wanted,
      });
    case 'directory':
      return Promise.resolve(directoryBaseline(source.dir));
    case 'deployed':
      return Promise.resolve(deployedBaseline(source.cloudFormation, source.region));
  }
}

type GitWanted = { names: Set<string>; stackNames: Set<string> };

/** Refuses a baseline folder that holds, or lies inside, the folder the new templates are written to. */
function refuseOverlap(baseDir: string, newDir: string): void {
  const base = resolve(baseDir);
  const next = resolve(newDir);
  const inside = (child: string, parent: string) => child === parent || child.startsWith(`${parent}${sep}`);
  if (inside(base, next) || inside(next, base)) {
    throw new FleetUsageError(
      `--base ${baseDir} is where this diff writes its own templates (${relative(process.cwd(), next) || next}): ` +
        'synthesise the baseline with another --out, or copy it elsewhere first',
    );
  }
}

/**
 * Synthesises the selected tenants (no bundling, no checks: the diff looks at templates) and compares
 * each with its baseline stack, resource by resource.
 */
export async function diffFleet(scope: FleetScope, source: BaselineSource): Promise<FleetDiff> {
  const all = listTenantFiles(scope.tenantsDir);
  const selected = selectTenants(all, scope.names, scope.tenantsDir);
  const stackOf = (file: string) => {
    const id = tenantIdOf(file);
    return id ? tenantStackName(id, scope.stage) : undefined;
  };
  // Which file builds which stack now (read without validating: an invalid file still names its tenant).
  const built = new Map<string, string>();
  for (const tenant of all) {
    const stack = stackOf(tenant.file);
    if (stack) built.set(stack, tenant.name);
  }
  const wanted: GitWanted = {
    names: new Set(selected.map((tenant) => tenant.name)),
    stackNames: new Set(selected.flatMap((tenant) => stackOf(tenant.file) ?? [])),
  };
  // A ref that is no commit, or a tenant folder outside the repository, stops before anything runs.
  if (source.kind === 'git') locateGitBaseline({ ...scope, ref: source.ref });
  // A folder of templates where this diff writes its own would be compared with itself.
  // (`synth` writes to <out>/<stage>, the diff to <out>/diff-<stage>: a synth's folder is a baseline.)
  const newDir = join(scope.outDir, `diff-${scope.stage}`);
  if (source.kind === 'directory') refuseOverlap(source.dir, newDir);
  const [synthesis, opening] = await Promise.allSettled([
    synthesizeTree({
      treeDir: scope.root,
      tenants: selected,
      stage: scope.stage,
      outDir: newDir,
      checks: false,
      validation: false,
    }),
    openBaseline(scope, source, wanted),
  ]);
  // Both are waited for, so no synth or worktree outlives a failure of the other.
  if (opening.status === 'rejected') throw opening.reason;
  if (synthesis.status === 'rejected') throw synthesis.reason;
  const baseline = opening.value;
  const results = refuseSharedStacks(synthesis.value);

  // Baseline stacks of the stage that no tenant file builds now, with the file each came from.
  const gone = new Map<string, string | undefined>();
  for (const stackName of await baseline.stackNames(scope.stage)) {
    if (!built.has(stackName)) gone.set(stackName, await baseline.tenantFileOf(stackName));
  }
  const claimed = new Set<string>();
  const tenants: TenantDiff[] = [];
  for (const result of results) {
    const { name, file } = result;
    if (!result.ok) {
      tenants.push({
        name,
        file,
        status: result.invalidTenant ? 'invalid' : 'failed',
        message: result.message,
        blocked: false,
      });
      continue;
    }
    const template = readTemplate(result.templateFile);
    const entry = { name, file, stackName: result.stackName, template };
    const base = await baseline.template(result.stackName);
    if (base) {
      const changes = diffStack(base, template);
      const status = changes.changes.length > 0 ? 'changed' : 'unchanged';
      const before = await baseline.tenantFileOf(result.stackName);
      tenants.push({
        ...entry,
        status,
        changes,
        ...(before && before !== name ? { previousFile: before } : {}),
        blocked: changes.dangerous.length > 0,
      });
      continue;
    }
    const problem = baseline.problem(result.stackName);
    if (problem) {
      tenants.push({ ...entry, status: 'failed', message: `no baseline: ${problem}`, blocked: false });
      continue;
    }
    const changes = diffStack(undefined, template);
    const previous = [...gone].find(([, tenantFile]) => tenantFile === name)?.[0];
    if (previous) {
      claimed.add(previous);
      tenants.push({ ...entry, status: 'renamed', changes, previousStack: previous, blocked: true });
    } else {
      tenants.push({ ...entry, status: 'new', changes, blocked: false });
    }
  }
  const orphans = [...gone]
    .filter(([stackName]) => !claimed.has(stackName))
    .filter(([, tenantFile]) => !scope.names || (tenantFile !== undefined && wanted.names.has(tenantFile)))
    .map(([stackName, tenantFile]) => ({ stackName, ...(tenantFile ? { tenantFile } : {}) }));
  return {
    baseline: baseline.description,
    stage: scope.stage,
    tenants,
    orphans,
    blocked: tenants.some((tenant) => tenant.blocked),
    failed: tenants.some((tenant) => tenant.status === 'invalid' || tenant.status === 'failed'),
  };
}
