import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { diffFleet, type FleetDiff, type TenantDiff } from '#infra/fleet/diff.ts';
import { formatDiff } from '#infra/fleet/report.ts';
import { type FleetRepo, makeFleetRepo } from '#test/support/fleet-repo.ts';
import { type FleetRun, runFleetIn } from '#test/support/fleet-run.ts';

// Real synths and real git: a throwaway repository with a copy of the code and three tenants, committed;
// each test changes its working tree and diffs it against HEAD, built in a worktree by HEAD's own code.

let repo: FleetRepo;
beforeAll(() => {
  repo = makeFleetRepo(['alpha', 'beta', 'gamma']);
});
afterEach(() => repo.restore());
afterAll(() => repo.remove());

const diff = (names?: string[]): Promise<FleetDiff> =>
  diffFleet(
    {
      root: repo.root,
      tenantsDir: repo.tenantsDir,
      stage: 'prod',
      outDir: join(repo.root, 'cdk.out', 'fleet'),
      ...(names ? { names } : {}),
    },
    { kind: 'git', ref: 'HEAD' },
  );
const tenant = (result: FleetDiff, name: string): TenantDiff => {
  const found = result.tenants.find((entry) => entry.name === name);
  if (!found) throw new Error(`no ${name} in the diff`);
  return found;
};

/** runFleet with no AWS (so git HEAD is the baseline), its output kept. */
const fleet = (argv: string[]) => runFleetIn(repo.root, argv);

describe('npm run fleet -- synth', () => {
  it('synthesises every tenant with cdk-nag, and names an invalid tenant file and its problem (exit 1)', async () => {
    repo.writeTenant('broken', 'broken', (file) => {
      file.settings.hold_minutes = 'fifteen';
    });
    const { code, out } = await fleet(['synth']);
    expect(code).toBe(1);
    expect(out).toMatch(/^alpha\s+Booking-alpha-prod\s+ok/m);
    expect(out).toMatch(/^broken\s+invalid tenant file/m);
    expect(out).toContain('settings.hold_minutes');
    expect(out).toContain('3 of 4 synthesised into cdk.out/fleet/prod.');
    for (const id of ['alpha', 'beta', 'gamma']) {
      expect(
        existsSync(join(repo.root, 'cdk.out', 'fleet', 'prod', id, `Booking-${id}-prod.template.json`)),
      ).toBe(true);
    }
  }, 120_000);

  it('fails a tenant on a cdk-nag finding, naming the rule and the construct; --no-checks leaves the pack out', async () => {
    // Planted through infra/tenant-app.ts, which the fleet owns: whatever the stack holds, a queue of no
    // dead-letter queue and no TLS-only policy is a finding nobody acknowledged.
    repo.edit(
      'infra/tenant-app.ts',
      '  return stack;\n}',
      "  new Queue(stack, 'Unchecked');\n  return stack;\n}",
    );
    repo.edit(
      'infra/tenant-app.ts',
      "import { basename } from 'node:path';",
      "import { basename } from 'node:path';\nimport { Queue } from 'aws-cdk-lib/aws-sqs';",
    );
    const checked = await fleet(['synth', '--tenants', 'alpha']);
    expect(checked.code).toBe(1);
    expect(checked.out).toMatch(/^alpha\s+synth failed\s+validation failed/m);
    expect(checked.out).toMatch(
      /error AwsSolutions-SQS3 \(AwsSolutions\): Booking-alpha-prod\/Unchecked\/Resource/,
    );
    const unchecked = await fleet(['synth', '--tenants', 'alpha', '--no-checks']);
    expect(unchecked.code).toBe(0);
  }, 120_000);
});

describe('npm run fleet -- diff against a git ref', () => {
  // The unchanged tree's diff, made once: it builds HEAD's templates in a worktree, and every later diff
  // against HEAD takes them from the cache (which the tests assert).
  let unchanged: FleetRun;
  beforeAll(async () => {
    unchanged = await fleet(['diff']);
  }, 120_000);

  it('finds no change in an unchanged tree (exit 0), and leaves no worktree behind', () => {
    const { code, out } = unchanged;
    expect(code).toBe(0);
    expect(out).toMatch(
      /^Baseline: git HEAD \([0-9a-f]{7}\): each stack built by that commit's own infra\/[^;]*$/m,
    );
    for (const id of ['alpha', 'beta', 'gamma']) {
      expect(out).toMatch(new RegExp(`^${id}\\s+Booking-${id}-prod\\s+unchanged\\s+0\\s+0\\s+0\\s+0$`, 'm'));
    }
    expect(out).toContain('No stateful resource is replaced, destroyed or orphaned.');
    expect(repo.git('worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('finds only updates in a changed setting (exit 0), and names a renamed tenant file', async () => {
    repo.git('mv', 'infra/tenants/beta.json', 'infra/tenants/bravo.json');
    repo.writeTenant('bravo', 'beta', (file) => {
      file.settings.alerts.api_5xx_percent = 7;
    });
    const { code, out } = await fleet(['diff', '--tenants', 'bravo']);
    expect(code).toBe(0);
    expect(out).toMatch(/^bravo\s+Booking-beta-prod\s+changed\s+0\s+[1-9]\d*\s+0\s+0$/m);
    expect(out).toMatch(/changed\s+WILL_UPDATE\s+Alarmsapi5xxrate\w+\s+AWS::CloudWatch::Alarm/);
    expect(out).toContain('bravo (Booking-beta-prod): built from beta.json in the baseline');
    // beforeAll's diff built HEAD's templates; this one takes beta's from the cache, no worktree.
    expect(out).toMatch(/^Baseline: git HEAD .*; beta as built before \(.*cdk\.out\/fleet\/base-cache\)$/m);
    expect(out).toContain('No stateful resource is replaced, destroyed or orphaned.');
  }, 120_000);

  it('refuses a construct renamed around the table: the table is orphaned, another one added (exit 1)', async () => {
    repo.edit('infra/tenant-stack.ts', "new TenantTable(this, 'Data'", "new TenantTable(this, 'Store'");
    const result = await diff(['beta']);
    const beta = tenant(result, 'beta');
    expect(result.blocked).toBe(true);
    expect(beta.status).toBe('changed');
    const table = beta.changes?.dangerous.find((change) => change.type === 'AWS::DynamoDB::GlobalTable');
    expect(table).toMatchObject({ kind: 'removed', impact: 'WILL_ORPHAN', stateful: 'the bookings table' });
    expect(table?.logicalId).toMatch(/^DataTable/);
    expect(table?.addedInstead).toEqual([expect.stringMatching(/^StoreTable/)]);
    const report = formatDiff(result);
    expect(report).toMatch(/^beta\s+Booking-beta-prod\s+changed.*DataTable\w+ \(WILL_ORPHAN\)$/m);
    expect(report).toContain('STATEFUL DATA AT RISK in beta');
  }, 120_000);

  it('refuses a tenant id change (a new stack beside the old one), and names new and removed tenant files', async () => {
    repo.writeTenant('gamma', 'gamma2');
    repo.writeTenant('delta', 'delta');
    repo.git('rm', '-q', 'infra/tenants/alpha.json');
    const { code, out } = await fleet(['diff']);
    expect(code).toBe(1);
    expect(out).toMatch(/^gamma\s+Booking-gamma2-prod\s+renamed.*Booking-gamma-prod keeps the data$/m);
    expect(out).toContain('the tenant id in gamma.json changed. Booking-gamma-prod');
    expect(out).toMatch(/^delta\s+Booking-delta-prod\s+new\s+\d+\s+0\s+0\s+0$/m);
    expect(out).toMatch(/^beta\s+Booking-beta-prod\s+unchanged/m);
    expect(out).toContain(
      'Booking-alpha-prod: in the baseline, but no tenant file builds it now (it came from alpha.json)',
    );
    expect(out).toContain('STATEFUL DATA AT RISK in gamma');
    expect(out).not.toMatch(/Booking-gamma-prod: in the baseline/);
    // HEAD's gamma and beta come from the cache; the removed alpha.json is still read from HEAD.
    expect(out).toMatch(/^Baseline: git HEAD .*; beta, gamma as built before/m);
  }, 120_000);

  it("builds a ref from before infra/tenant-app.ts with that ref's own TenantStack", async () => {
    repo.git('rm', '-q', 'infra/tenant-app.ts');
    repo.git('commit', '-q', '-m', 'before the fleet');
    const before = repo.git('rev-parse', 'HEAD');
    repo.git('reset', '-q', '--hard', 'HEAD~1');
    const { code, out } = await fleet(['diff', '--base', before, '--tenants', 'alpha']);
    expect(code).toBe(0);
    expect(out).toContain(`Baseline: git ${before} (${before.slice(0, 7)})`);
    // Another commit: built afresh, never HEAD's cached templates.
    expect(out).not.toContain('as built before');
    expect(out).toMatch(/^alpha\s+Booking-alpha-prod\s+unchanged/m);
  }, 120_000);
});
