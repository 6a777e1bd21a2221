import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { tenantStackName } from '#infra/tenant-names.ts';
import { type Baseline, templateMapBaseline } from './baseline.ts';
import { FleetError, FleetUsageError } from './errors.ts';
import { synthesizeTree } from './synth.ts';
import { listTenantFiles, tenantIdOf } from './tenant-files.ts';

/** A git ref to compare with, and which of its tenants to build. */
export interface GitBaselineOptions {
  /** A folder of the repository (its working tree root, usually). */
  root: string;
  ref: string;
  /** The tenant files' folder in the working tree; the ref's own files at the same place are used. */
  tenantsDir: string;
  stage: string;
  /** Where the ref's templates are written (`<outDir>/<tenant>/`). */
  outDir: string;
  /** The ref's tenant files to synthesise: those of these names, and those that build these stacks. */
  wanted: { names: ReadonlySet<string>; stackNames: ReadonlySet<string> };
}

const git = (cwd: string, args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The commit a ref names, or a usage error. */
export function resolveCommit(root: string, ref: string): string {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new FleetUsageError(`--base ${ref} is neither a folder of templates nor a git commit`);
  }
}

/** Where a git baseline comes from: the repository, the tenant files' folder in it, and the commit. */
export interface GitBaselineLocation {
  top: string;
  tenantsPath: string;
  commit: string;
}

/**
 * Checks a git baseline before anything runs: the repository, a tenant folder inside it (the ref's own
 * files are read at the same place), and a ref that names a commit. Throws a usage error otherwise.
 */
export function locateGitBaseline(
  options: Pick<GitBaselineOptions, 'root' | 'ref' | 'tenantsDir'>,
): GitBaselineLocation {
  let top: string;
  try {
    top = git(options.root, ['rev-parse', '--show-toplevel']);
  } catch {
    throw new FleetUsageError(`--base ${options.ref}: ${options.root} is not in a git repository`);
  }
  const tenantsPath = relative(realpathSync(top), realpathSync(options.tenantsDir));
  if (tenantsPath.startsWith('..') || isAbsolute(tenantsPath)) {
    throw new FleetUsageError(
      `${options.tenantsDir} is outside the repository, so ${options.ref} has no tenant files there: use --base <folder>`,
    );
  }
  return { top, tenantsPath, commit: resolveCommit(top, options.ref) };
}

/**
 * The stacks a git ref builds, each by that ref's own code (`infra/tenant-app.ts`, or `infra/tenant-stack.ts`
 * on refs before it) from that ref's tenant files, in a temporary `git worktree` sharing this tree's
 * node_modules. The worktree is removed before this returns; the templates stay in `outDir`.
 */
export async function gitBaseline(options: GitBaselineOptions): Promise<Baseline> {
  const { top, tenantsPath, commit } = locateGitBaseline(options);
  const scratch = mkdtempSync(join(tmpdir(), 'fleet-base-'));
  const tree = join(scratch, 'tree');
  const remove = () => {
    try {
      git(top, ['worktree', 'remove', '--force', tree]);
    } catch {
      rmSync(tree, { recursive: true, force: true });
      git(top, ['worktree', 'prune']);
    }
    rmSync(scratch, { recursive: true, force: true });
  };
  // Interrupted, the worktree is removed all the same (git would otherwise keep listing it).
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    process.kill(process.pid, signal);
  };
  try {
    git(top, ['worktree', 'add', '--detach', tree, commit]);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    if (existsSync(join(top, 'node_modules')) && !existsSync(join(tree, 'node_modules'))) {
      symlinkSync(realpathSync(join(top, 'node_modules')), join(tree, 'node_modules'), 'dir');
    }
    const files = listTenantFiles(join(tree, tenantsPath));
    const stackOf = new Map(files.map((tenant) => [tenant.name, tenantIdOf(tenant.file)]));
    const tenantFiles = new Map<string, string>();
    for (const [name, id] of stackOf) if (id) tenantFiles.set(tenantStackName(id, options.stage), name);
    const wanted = files.filter((tenant) => {
      const id = stackOf.get(tenant.name);
      return (
        options.wanted.names.has(tenant.name) ||
        (id !== undefined && options.wanted.stackNames.has(tenantStackName(id, options.stage)))
      );
    });
    const results = await synthesizeTree({
      treeDir: tree,
      tenants: wanted,
      stage: options.stage,
      outDir: options.outDir,
      checks: false,
      validation: false,
    });
    const templates = new Map<string, string>();
    const problems = new Map<string, string>();
    for (const result of results) {
      if (result.ok) {
        templates.set(result.stackName, result.templateFile);
        tenantFiles.set(result.stackName, result.name);
      } else {
        const id = stackOf.get(result.name);
        if (id)
          problems.set(
            tenantStackName(id, options.stage),
            `${result.name} at ${options.ref}: ${result.message}`,
          );
      }
    }
    const short = commit.slice(0, 7);
    return templateMapBaseline(
      `git ${options.ref} (${short}): each stack built by that commit's own infra/ from its ${tenantsPath}`,
      templates,
      problems,
      tenantFiles,
    );
  } catch (error) {
    if (error instanceof FleetError) throw error;
    throw new FleetError(`could not build the baseline of ${options.ref}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    remove();
  }
}
