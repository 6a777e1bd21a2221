import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** What the fleet's stacks are built from: the code, the lock file the functions name, the CDK settings. */
const COPIED = [
  'infra',
  'lib',
  'functions',
  'widget',
  'package.json',
  'package-lock.json',
  'cdk.json',
  'tsconfig.json',
  '.gitignore',
];

/** A throwaway git repository holding a copy of this project's code and tenant files of its own. */
export interface FleetRepo {
  root: string;
  tenantsDir: string;
  git: (...args: string[]) => string;
  /** Writes `<name>.json`: the template tenant with this id, changed by `change`. */
  writeTenant: (name: string, id: string, change?: (tenant: Record<string, any>) => void) => void;
  /** Edits a file of the copy (its code) by replacing one text with another, which must be there. */
  edit: (path: string, from: string, to: string) => void;
  /** Puts the working tree back to the last commit (outputs under cdk.out stay). */
  restore: () => void;
  remove: () => void;
}

/**
 * Copies the project's code (the working tree as it is, uncommitted files included) into a new
 * repository with one tenant file per id, and commits it: HEAD is the baseline the tests diff against.
 */
export function makeFleetRepo(ids: string[]): FleetRepo {
  const project = resolve('.');
  const root = mkdtempSync(join(tmpdir(), 'fleet-repo-'));
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      [
        '-c',
        'user.name=fleet test',
        '-c',
        'user.email=fleet@example.com',
        '-c',
        'commit.gpgsign=false',
        ...args,
      ],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    ).trim();
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...COPIED], {
    cwd: project,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(project, file), join(root, file));
  }
  symlinkSync(realpathSync(join(project, 'node_modules')), join(root, 'node_modules'), 'dir');
  const tenantsDir = join(root, 'infra', 'tenants');
  for (const entry of readdirSync(tenantsDir)) {
    if (!entry.endsWith('.schema.json')) rmSync(join(tenantsDir, entry));
  }
  const template = readFileSync(join(project, 'infra', 'tenants', 'template.json'), 'utf8');
  const writeTenant: FleetRepo['writeTenant'] = (name, id, change) => {
    const tenant = JSON.parse(template) as Record<string, any>;
    tenant.tenant = id;
    change?.(tenant);
    writeFileSync(join(tenantsDir, `${name}.json`), `${JSON.stringify(tenant, null, 2)}\n`);
  };
  for (const id of ids) writeTenant(id, id);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'baseline');
  return {
    root,
    tenantsDir,
    git,
    writeTenant,
    edit: (path, from, to) => {
      const file = join(root, path);
      const text = readFileSync(file, 'utf8');
      if (!text.includes(from)) throw new Error(`${path} has no "${from}"`);
      writeFileSync(file, text.replace(from, to));
    },
    restore: () => {
      git('reset', '-q', '--hard', 'HEAD');
      git('clean', '-fdq', '--', 'infra', 'lib');
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
