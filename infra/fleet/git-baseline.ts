import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { tenantStackName } from '#infra/tenant-names.ts';
import { type Baseline, templateMapBaseline } from './baseline.ts';
import {
  type BaselineKey,
  type CachedTemplate,
  cachedTemplate,
  keyContext,
  stagingDir,
  storeTemplate,
} from './baseline-cache.ts';
import { FleetError, FleetUsageError } from './errors.ts';
import { synthesizeTree, TOOL_ROOT } from './synth.ts';
import { isTenantFileName, listTenantFiles, tenantIdIn, tenantIdOf } from './tenant-files.ts';

/** A git ref to compare with, and which of its tenants to build. */
export interface GitBaselineOptions {
  /** A folder of the repository (its working tree root, usually). */
  root: string;
  ref: string;
  /** The tenant files' folder in the working tree; the ref's own files at the same place are used. */
  tenantsDir: string;
  stage: string;
  /**
   * The baseline cache: each tenant's templates at `<cacheDir>/<commit>/<stage>/<tenant>/`, served again
   * to a run with the same key (`baseline-cache.ts`), built in a worktree otherwise.
   */
  cacheDir: string;
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

/** A tenant file of the commit: its blob when git holds it as a plain file (only then is it keyed). */
interface CommitTenant {
  name: string;
  /** Its path in the repository. */
  path: string;
  id: string | undefined;
  blob?: string;
}

/**
 * The commit's tenant files, read from git without a worktree; undefined when one is not a plain file (a
 * symbolic link, a folder), which only a checkout reads as the synth would.
 */
function tenantsAtCommit(top: string, commit: string, tenantsPath: string): CommitTenant[] | undefined {
  const listing = execFileSync(
    'git',
    ['ls-tree', '-z', commit, '--', ...(tenantsPath ? [`${tenantsPath}/`] : [])],
    {
      cwd: top,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const entries = listing
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta = '', path = ''] = line.split('\t');
      const [mode, type, blob] = meta.split(' ');
      const file = path.slice(path.lastIndexOf('/') + 1);
      return { mode, type, blob: blob as string, path, name: file.slice(0, -'.json'.length), file };
    })
    .filter((entry) => isTenantFileName(entry.file))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  if (entries.some((entry) => entry.type !== 'blob' || (entry.mode !== '100644' && entry.mode !== '100755')))
    return undefined;
  const texts = readBlobs(
    top,
    entries.map((entry) => entry.blob),
  );
  return entries.map((entry, index) => ({
    name: entry.name,
    path: entry.path,
    id: tenantIdIn(texts[index] ?? ''),
    blob: entry.blob,
  }));
}

/** The contents of blobs, in one `git cat-file --batch`. */
function readBlobs(top: string, blobs: string[]): string[] {
  if (blobs.length === 0) return [];
  const out = execFileSync('git', ['cat-file', '--batch'], {
    cwd: top,
    input: `${blobs.join('\n')}\n`,
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  });
  const texts: string[] = [];
  let at = 0;
  for (const _ of blobs) {
    const eol = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, eol).toString('utf8').split(' ')[2]);
    if (!Number.isInteger(size))
      throw new FleetError(`git cat-file: ${out.subarray(at, eol).toString('utf8')}`);
    texts.push(out.subarray(eol + 1, eol + 1 + size).toString('utf8'));
    at = eol + 1 + size + 1;
  }
  return texts;
}

/**
 * Runs `work` in a temporary `git worktree` of the commit that shares this tree's node_modules, and
 * removes the worktree afterwards, also on Ctrl-C (git would otherwise keep listing it).
 */
async function inWorktree<T>(top: string, commit: string, work: (tree: string) => Promise<T>): Promise<T> {
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
    return await work(tree);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    remove();
  }
}

/**
 * The stacks a git ref builds, each by that ref's own code (`infra/tenant-app.ts`, or `infra/tenant-stack.ts`
 * on refs before it) from that ref's tenant files. A tenant whose templates the cache holds for the same
 * key is served from it; the others are built in a temporary `git worktree` sharing this tree's
 * node_modules (removed before this returns) and cached.
 */
export async function gitBaseline(options: GitBaselineOptions): Promise<Baseline> {
  const { top, tenantsPath, commit } = locateGitBaseline(options);
  const { stage, cacheDir } = options;
  try {
    const context = keyContext({ roots: [top, TOOL_ROOT] });
    const keyOf = (tenant: CommitTenant): BaselineKey | undefined =>
      tenant.blob === undefined
        ? undefined
        : { commit, stage, tenant: tenant.name, tenantsPath, tenantBlob: tenant.blob, ...context };
    const isWanted = (tenant: CommitTenant) =>
      options.wanted.names.has(tenant.name) ||
      (tenant.id !== undefined && options.wanted.stackNames.has(tenantStackName(tenant.id, stage)));
    let tenants = tenantsAtCommit(top, commit, tenantsPath);
    const found = new Map<string, CachedTemplate>();
    const reused: string[] = [];
    let missing: CommitTenant[] = [];
    for (const tenant of (tenants ?? []).filter(isWanted)) {
      const key = keyOf(tenant);
      const hit = key && cachedTemplate(cacheDir, key);
      if (hit) {
        found.set(tenant.name, hit);
        reused.push(tenant.name);
      } else missing.push(tenant);
    }
    const problems = new Map<string, string>();
    if (!tenants || missing.length > 0) {
      await inWorktree(top, commit, async (tree) => {
        if (!tenants) {
          // Read from the checkout, as the synth reads them; such files are built every time.
          tenants = listTenantFiles(join(tree, tenantsPath)).map((tenant) => ({
            name: tenant.name,
            path: relative(tree, tenant.file),
            id: tenantIdOf(tenant.file),
          }));
          missing = tenants.filter(isWanted);
        }
        const staging = stagingDir(cacheDir);
        try {
          const results = await synthesizeTree({
            treeDir: tree,
            tenants: missing.map((tenant) => ({ name: tenant.name, file: join(tree, tenant.path) })),
            stage,
            outDir: staging,
            checks: false,
            validation: false,
          });
          results.forEach((result, index) => {
            const tenant = missing[index] as CommitTenant;
            if (result.ok) {
              const key = keyOf(tenant);
              const built = { assemblyDir: join(staging, tenant.name), ...result };
              found.set(
                tenant.name,
                storeTemplate(
                  cacheDir,
                  { commit, stage, tenant: tenant.name, ...(key ? { key } : {}) },
                  built,
                ),
              );
            } else if (tenant.id) {
              problems.set(
                tenantStackName(tenant.id, stage),
                `${tenant.name} at ${options.ref}: ${result.message}`,
              );
            }
          });
        } finally {
          rmSync(staging, { recursive: true, force: true });
        }
      });
    }
    const tenantFiles = new Map<string, string>();
    for (const tenant of tenants ?? [])
      if (tenant.id) tenantFiles.set(tenantStackName(tenant.id, stage), tenant.name);
    const templates = new Map<string, string>();
    for (const [name, cached] of found) {
      templates.set(cached.stackName, cached.templateFile);
      tenantFiles.set(cached.stackName, name);
    }
    const where = relative(process.cwd(), cacheDir) || cacheDir;
    const baseline = templateMapBaseline(
      `git ${options.ref} (${commit.slice(0, 7)}): each stack built by that commit's own infra/ from its ${tenantsPath}` +
        (reused.length > 0 ? `; ${reused.join(', ')} as built before (${where})` : ''),
      templates,
      problems,
      tenantFiles,
    );
    // Read now: another diff of the same commit running at the same time may replace an entry.
    for (const stackName of templates.keys()) await baseline.template(stackName);
    return baseline;
  } catch (error) {
    if (error instanceof FleetError) throw error;
    throw new FleetError(`could not build the baseline of ${options.ref}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
