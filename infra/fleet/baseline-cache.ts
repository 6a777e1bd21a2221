import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A commit's baseline templates, kept per commit, stage and tenant file under the fleet's out folder, so a
// second diff against the same commit (a diff run twice, a deploy after a diff) does not build them again.
// An entry is served only to the very same key; anything else rebuilds it.

/** Everything that decides one tenant's template at a commit; an entry is served only when all of it matches. */
export interface BaselineKey {
  commit: string;
  stage: string;
  /** The tenant file's name (`--tenants`), which the stack's metadata and context carry. */
  tenant: string;
  /** The tenant files' folder in the repository, and the tenant file's blob there. */
  tenantsPath: string;
  tenantBlob: string;
  /** The installed modules the worktree links (the lock files' hash). */
  modules: string;
  /** Node's major version. */
  node: string;
  /** The fleet's own synth code (its worker and how it is started). */
  fleet: string;
  /** The CDK_* environment the worker sees (CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION set a stack's env). */
  env: [string, string][];
}

/** The parts of a key that every tenant of one run shares besides the commit and stage. */
export type KeyContext = Pick<BaselineKey, 'modules' | 'node' | 'fleet' | 'env'>;

/** A cached tenant's stack and where its template is. */
export interface CachedTemplate {
  stackName: string;
  templateFile: string;
}

const ENTRY_FILE = 'fleet-baseline.json';
const FLEET_DIR = dirname(fileURLToPath(import.meta.url));
/** The environment variables the worker does not pass on (synth.ts): they cannot decide a template. */
const DROPPED_ENV = new Set(['CDK_CONTEXT_JSON', 'CDK_OUTDIR']);

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * What decides a baseline besides the commit, the stage and the tenant file: the lock files of the
 * repository whose node_modules the worktree links and of the fleet's own tree, Node's major version, the
 * fleet's synth code and the CDK_* environment.
 */
export function keyContext(options: {
  roots: string[];
  env?: NodeJS.ProcessEnv;
  nodeVersion?: string;
  fleetFiles?: string[];
}): KeyContext {
  const roots = [...new Set(options.roots.map((root) => realpathSync(root)))].sort();
  const lockFiles = roots.flatMap((root) =>
    ['package-lock.json', join('node_modules', '.package-lock.json')].map((file) => join(root, file)),
  );
  const fleetFiles = options.fleetFiles ?? [join(FLEET_DIR, 'synth-worker.ts'), join(FLEET_DIR, 'synth.ts')];
  const digest = (files: string[]) =>
    sha256(files.map((file) => `${file}\0${existsSync(file) ? sha256(readFileSync(file)) : '-'}`).join('\n'));
  const env = options.env ?? process.env;
  return {
    modules: digest(lockFiles),
    node: (options.nodeVersion ?? process.versions.node).split('.')[0] as string,
    fleet: digest(fleetFiles),
    env: Object.entries(env)
      .filter((entry): entry is [string, string] => entry[0].startsWith('CDK_') && entry[1] !== undefined)
      .filter(([name]) => !DROPPED_ENV.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  };
}

// A tenant file named `..json` or `...json` must not name a folder above its entry.
const segment = (name: string) => (/^\.+$/.test(name) ? name.replaceAll('.', '%2E') : name);

/** The folder of one tenant's entry: `<cacheDir>/<commit>/<stage>/<tenant>/`, a cloud assembly. */
export const entryDir = (cacheDir: string, key: Pick<BaselineKey, 'commit' | 'stage' | 'tenant'>): string =>
  join(cacheDir, key.commit, key.stage, segment(key.tenant));

const sameKey = (a: BaselineKey, b: BaselineKey) => JSON.stringify(a) === JSON.stringify(b);

/** The cached template of exactly this key, or undefined (no entry, another key, an unreadable entry). */
export function cachedTemplate(cacheDir: string, key: BaselineKey): CachedTemplate | undefined {
  const dir = entryDir(cacheDir, key);
  try {
    const entry = JSON.parse(readFileSync(join(dir, ENTRY_FILE), 'utf8')) as {
      key?: BaselineKey;
      stackName?: string;
      template?: string;
    };
    if (!entry.key || !sameKey(entry.key, key) || !entry.stackName || !entry.template) return undefined;
    const templateFile = join(dir, basename(entry.template));
    return existsSync(templateFile) ? { stackName: entry.stackName, templateFile } : undefined;
  } catch {
    return undefined;
  }
}

/** A folder inside the cache to synthesise into, so that an entry is moved into place whole. */
export function stagingDir(cacheDir: string): string {
  const dir = join(cacheDir, `.build-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Moves a tenant's freshly synthesised cloud assembly into its entry, replacing whatever was there. Without
 * a key (a tenant file git cannot key, such as a symbolic link) the entry is written but never served.
 */
export function storeTemplate(
  cacheDir: string,
  entry: Pick<BaselineKey, 'commit' | 'stage' | 'tenant'> & { key?: BaselineKey },
  built: { assemblyDir: string; stackName: string; templateFile: string },
): CachedTemplate {
  const template = basename(built.templateFile);
  // The entry file is written before the move: an entry in place is always whole.
  writeFileSync(
    join(built.assemblyDir, ENTRY_FILE),
    `${JSON.stringify({ key: entry.key ?? null, stackName: built.stackName, template }, null, 2)}\n`,
  );
  const dir = entryDir(cacheDir, entry);
  mkdirSync(dirname(dir), { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(built.assemblyDir, dir);
  return { stackName: built.stackName, templateFile: join(dir, template) };
}
