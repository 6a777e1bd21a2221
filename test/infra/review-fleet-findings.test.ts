import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CfnResource, CfnTemplate } from '#infra/fleet/stateful.ts';
import { diffStack } from '#infra/fleet/template-diff.ts';
import { listTenantFiles } from '#infra/fleet/tenant-files.ts';
import { TENANTS_DIR } from '#infra/tenant-names.ts';
import { type FleetRepo, makeFleetRepo } from '#test/support/fleet-repo.ts';
import { runFleetIn } from '#test/support/fleet-run.ts';

// Adversarial review: each test states what the issue (or the project's own docs) promise and fails on
// the change as it stands. None of them fixes anything.

let repo: FleetRepo;
const fleet = (argv: string[]) => runFleetIn(repo.root, argv);
/** The committed tree's templates, synthesised once: the deployed commit's, as docs/fleet.md makes them. */
const DEPLOYED = 'cdk.out/fleet/prod';
beforeAll(async () => {
  repo = makeFleetRepo(['alpha']);
  expect((await fleet(['synth', '--no-checks'])).code).toBe(0);
}, 120_000);
afterEach(() => repo.restore());
afterAll(() => repo.remove());

describe('review: fleet diff lets stored data go at risk with exit 0', () => {
  it('--base cdk.out/fleet/prod (docs/fleet.md: "after a synth of the deployed commit") still sees a table key change', async () => {
    // The change: the table's sort key (a replacement: a new, empty table).
    repo.edit('infra/constructs/table.ts', 'sortKey: key(TABLE_DEFINITION.sortKey),', "sortKey: key('sk2'),");
    const { code, out } = await fleet(['diff', '--base', DEPLOYED]);
    // The diff synthesises into the very folder it reads the baseline from: it compares new with new.
    expect(out).toContain('WILL_REPLACE');
    expect(code).toBe(1);
  }, 180_000);

  it('a table turned from Retain to Delete (deletion protection and point-in-time recovery off) is data at risk', async () => {
    repo.edit(
      'infra/tenant-stack.ts',
      "new TenantTable(this, 'Data', {\n      removalPolicy,",
      "new TenantTable(this, 'Data', {\n      removalPolicy: RemovalPolicy.DESTROY,",
    );
    const { code, out } = await fleet(['diff', '--base', DEPLOYED]);
    expect(out).toMatch(/DataTable\w+\s+AWS::DynamoDB::GlobalTable/);
    expect(code).toBe(1);
  }, 180_000);

  it("a change of the webhook secrets' literal overwrites the loaded whsec_ secrets: data at risk", async () => {
    // infra/tenant-stack.ts itself says: "CloudFormation writes the value when it changes, which would
    // replace the loaded secrets".
    repo.edit(
      'infra/tenant-stack.ts',
      "SecretValue.unsafePlainText('{}')",
      "SecretValue.unsafePlainText('{ }')",
    );
    const { code, out } = await fleet(['diff', '--base', DEPLOYED]);
    expect(out).toMatch(/WebhookSigningSecrets\w+/);
    expect(code).toBe(1);
  }, 180_000);
});

describe('review: fleet diff refuses what is not data', () => {
  const secret = (deletion: string): CfnResource => ({
    Type: 'AWS::SecretsManager::Secret',
    Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } },
    DeletionPolicy: deletion,
    UpdateReplacePolicy: deletion,
  });
  it("the origin token rotation's second deploy (docs/edge.md) is not refused: the old token secret holds nothing", () => {
    const base: CfnTemplate = {
      Resources: {
        DomainEdgeOriginTokenD0CC2337: secret('Delete'),
        DomainEdgeOriginToken296A8A0DA: secret('Delete'),
      },
    };
    const next: CfnTemplate = { Resources: { DomainEdgeOriginToken296A8A0DA: secret('Delete') } };
    expect(diffStack(base, next).dangerous).toEqual([]);
  });
});

describe('review: the fleet takes the scaffold for a tenant', () => {
  it('infra/tenants/template.json (the tenant:new scaffold) is not a tenant the fleet deploys', () => {
    const names = listTenantFiles(TENANTS_DIR).map((tenant) => tenant.name);
    expect(names).not.toContain('template');
  });
});

describe("review: the teardown's list of what the stack keeps", () => {
  it('does not rely on DescribeStackResources (first 100 resources only) for a stack of more than 100', () => {
    const template = JSON.parse(
      readFileSync(join(repo.root, DEPLOYED, 'alpha', 'Booking-alpha-prod.template.json'), 'utf8'),
    ) as CfnTemplate;
    const count = Object.keys(template.Resources ?? {}).length;
    expect(count).toBeGreaterThan(100);
    const guide = readFileSync(join('docs', 'deploy.md'), 'utf8');
    const teardown = guide.slice(guide.indexOf('## 7. Remove a tenant'), guide.indexOf('## 8.'));
    expect(teardown).not.toContain('describe-stack-resources');
  });
});
