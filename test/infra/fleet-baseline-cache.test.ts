import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BaselineKey,
  cachedTemplate,
  entryDir,
  keyContext,
  stagingDir,
  storeTemplate,
} from '#infra/fleet/baseline-cache.ts';

// The git baseline's cache (infra/fleet/baseline-cache.ts), on files alone: an entry is served to exactly
// its key, and a change in any part of the key is a miss, which gitBaseline then builds again.

let dir: string;
let cacheDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
  cacheDir = join(dir, 'cdk.out', 'fleet', 'base-cache');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const key = (change: Partial<BaselineKey> = {}): BaselineKey => ({
  commit: 'a'.repeat(40),
  stage: 'prod',
  tenant: 'alpha',
  tenantsPath: 'infra/tenants',
  tenantBlob: 'b'.repeat(40),
  modules: 'c'.repeat(64),
  node: '20',
  fleet: 'd'.repeat(64),
  env: [['CDK_DEFAULT_REGION', 'eu-west-1']],
  ...change,
});

/** Synthesises (as the worker would) a cloud assembly into the staging folder and stores it. */
function store(entry: BaselineKey, text = `{"Resources":{"${entry.tenant}":{}}}`) {
  const staging = stagingDir(cacheDir);
  const assemblyDir = join(staging, entry.tenant);
  mkdirSync(assemblyDir, { recursive: true });
  const stackName = `Booking-${entry.tenant}-${entry.stage}`;
  const templateFile = join(assemblyDir, `${stackName}.template.json`);
  writeFileSync(templateFile, text);
  const stored = storeTemplate(cacheDir, { ...entry, key: entry }, { assemblyDir, stackName, templateFile });
  rmSync(staging, { recursive: true, force: true });
  return stored;
}

describe('the git baseline cache', () => {
  it('serves an entry to the same key, from its own folder', () => {
    const stored = store(key());
    expect(stored.templateFile).toBe(join(entryDir(cacheDir, key()), 'Booking-alpha-prod.template.json'));
    expect(cachedTemplate(cacheDir, key())).toEqual({
      stackName: 'Booking-alpha-prod',
      templateFile: stored.templateFile,
    });
  });

  it.each<[string, Partial<BaselineKey>]>([
    ['another commit', { commit: 'e'.repeat(40) }],
    ['another lock file', { modules: 'f'.repeat(64) }],
    ['another Node major version', { node: '22' }],
    ['another tenant file content', { tenantBlob: '0'.repeat(40) }],
    ['another tenants folder', { tenantsPath: 'tenants' }],
    ['another fleet synth code', { fleet: '1'.repeat(64) }],
    ['another CDK environment', { env: [['CDK_DEFAULT_REGION', 'us-east-1']] }],
    ['no CDK environment', { env: [] }],
  ])('misses on %s (so the baseline is built again)', (_, change) => {
    store(key());
    expect(cachedTemplate(cacheDir, key(change))).toBeUndefined();
  });

  it('never serves one tenant or stage for another, even an entry copied into its place', () => {
    store(key(), '{"alpha prod":1}');
    store(key({ stage: 'dev' }), '{"alpha dev":1}');
    expect(cachedTemplate(cacheDir, key({ tenant: 'beta' }))).toBeUndefined();
    expect(cachedTemplate(cacheDir, key({ stage: 'staging' }))).toBeUndefined();
    const prod = cachedTemplate(cacheDir, key());
    const dev = cachedTemplate(cacheDir, key({ stage: 'dev' }));
    expect(prod?.stackName).toBe('Booking-alpha-prod');
    expect(dev?.stackName).toBe('Booking-alpha-dev');
    expect(prod?.templateFile).not.toBe(dev?.templateFile);
    // alpha's entry copied where beta's or dev's would be is still alpha's prod key: refused.
    cpSync(entryDir(cacheDir, key()), entryDir(cacheDir, key({ tenant: 'beta' })), { recursive: true });
    cpSync(entryDir(cacheDir, key()), entryDir(cacheDir, key({ stage: 'staging' })), { recursive: true });
    expect(cachedTemplate(cacheDir, key({ tenant: 'beta' }))).toBeUndefined();
    expect(cachedTemplate(cacheDir, key({ stage: 'staging' }))).toBeUndefined();
  });

  it('misses on an entry without its template, with an unreadable entry file, or stored without a key', () => {
    const stored = store(key());
    rmSync(stored.templateFile);
    expect(cachedTemplate(cacheDir, key())).toBeUndefined();
    store(key());
    writeFileSync(join(entryDir(cacheDir, key()), 'fleet-baseline.json'), '{"key":');
    expect(cachedTemplate(cacheDir, key())).toBeUndefined();
    // A tenant file git cannot key (a symbolic link) is stored without a key, never served.
    const staging = stagingDir(cacheDir);
    mkdirSync(join(staging, 'alpha'));
    writeFileSync(join(staging, 'alpha', 'Booking-alpha-prod.template.json'), '{}');
    storeTemplate(
      cacheDir,
      { commit: key().commit, stage: 'prod', tenant: 'alpha' },
      {
        assemblyDir: join(staging, 'alpha'),
        stackName: 'Booking-alpha-prod',
        templateFile: join(staging, 'alpha', 'Booking-alpha-prod.template.json'),
      },
    );
    expect(cachedTemplate(cacheDir, key())).toBeUndefined();
  });

  it('keeps a tenant file named by dots inside its own entry', () => {
    expect(entryDir(cacheDir, key({ tenant: '..' }))).toBe(
      join(entryDir(cacheDir, key({ tenant: 'x' })), '..', '%2E%2E'),
    );
  });
});

describe("the key's context", () => {
  const roots = () => {
    const root = join(dir, 'repo');
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
    writeFileSync(join(root, 'node_modules', '.package-lock.json'), '{"packages":{}}');
    const fleet = join(dir, 'synth-worker.ts');
    writeFileSync(fleet, 'export {};');
    return { root, fleet };
  };
  const context = (
    root: string,
    fleet: string,
    change: { env?: NodeJS.ProcessEnv; nodeVersion?: string } = {},
  ) =>
    keyContext({
      roots: [root],
      fleetFiles: [fleet],
      env: change.env ?? { CDK_DEFAULT_REGION: 'eu-west-1', PATH: '/usr/bin' },
      nodeVersion: change.nodeVersion ?? '20.20.2',
    });

  it('changes with the lock files, the installed modules, the fleet code, Node major and CDK_* only', () => {
    const { root, fleet } = roots();
    const before = context(root, fleet);
    expect(before.node).toBe('20');
    expect(before.env).toEqual([['CDK_DEFAULT_REGION', 'eu-west-1']]);
    // What does not decide a template leaves the key as it is.
    expect(
      context(root, fleet, { env: { CDK_DEFAULT_REGION: 'eu-west-1', PATH: '/bin', CDK_OUTDIR: 'x' } }),
    ).toEqual(before);
    expect(context(root, fleet, { nodeVersion: '20.1.0' })).toEqual(before);
    expect(context(root, fleet, { nodeVersion: '22.12.0' }).node).toBe('22');
    expect(
      context(root, fleet, { env: { CDK_DEFAULT_REGION: 'eu-west-1', CDK_DEFAULT_ACCOUNT: '1' } }).env,
    ).toHaveLength(2);
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3,"name":"x"}');
    const relocked = context(root, fleet);
    expect(relocked.modules).not.toBe(before.modules);
    writeFileSync(join(root, 'node_modules', '.package-lock.json'), '{"packages":{"a":{}}}');
    expect(context(root, fleet).modules).not.toBe(relocked.modules);
    writeFileSync(fleet, 'export const changed = 1;');
    expect(context(root, fleet).fleet).not.toBe(before.fleet);
  });
});
