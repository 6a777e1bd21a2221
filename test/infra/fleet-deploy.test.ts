import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AlarmState, AwsPorts } from '#infra/fleet/aws.ts';
import { type CfnTemplate, stackPolicyFor } from '#infra/fleet/stateful.ts';
import { type FleetRepo, makeFleetRepo } from '#test/support/fleet-repo.ts';
import { runFleetIn } from '#test/support/fleet-run.ts';

// Real synths of a throwaway repository's tenants, compared with a folder of templates and with fake
// deployed stacks; `deploy` runs against a fake command runner and fake AWS ports.

let repo: FleetRepo;
let deployed: Map<string, CfnTemplate>;
beforeAll(async () => {
  repo = makeFleetRepo(['alpha', 'gamma']);
  const { code } = await fleet(['synth', '--no-checks']);
  expect(code).toBe(0);
  // What is "deployed": the templates of the committed tree, kept apart from the next synths' output.
  cpSync(join(repo.root, 'cdk.out', 'fleet', 'prod'), join(repo.root, 'baseline-templates'), {
    recursive: true,
  });
  const read = (id: string) =>
    JSON.parse(
      readFileSync(join(repo.root, 'baseline-templates', id, `Booking-${id}-prod.template.json`), 'utf8'),
    ) as CfnTemplate;
  deployed = new Map([
    ['Booking-alpha-prod', read('alpha')],
    ['Booking-gamma-prod', read('gamma')],
  ]);
}, 120_000);
afterEach(() => repo.restore());
afterAll(() => repo.remove());

/** Fake AWS: the deployed templates above, the policies set, the alarms of each stack. */
function fakeAws(alarms: Record<string, AlarmState[]> = {}) {
  const calls: string[] = [];
  const policies = new Map<string, string>();
  const ports: AwsPorts = {
    region: 'eu-west-1',
    cloudFormation: {
      getTemplate: async (stackName) => deployed.get(stackName),
      listStackNames: async () => [...deployed.keys(), 'Booking-alpha-dev', 'CDKToolkit'],
      setStackPolicy: async (stackName, body) => {
        calls.push(`policy ${stackName}`);
        policies.set(stackName, body);
      },
      listStackResources: async (stackName) =>
        (alarms[stackName] ?? []).map((alarm, index) => ({
          logicalId: `Alarm${index}`,
          physicalId: alarm.name,
          type: 'AWS::CloudWatch::Alarm',
        })),
    },
    alarms: {
      describeAlarms: async (names) =>
        Object.values(alarms)
          .flat()
          .filter((alarm) => names.includes(alarm.name)),
    },
  };
  return { ports, calls, policies };
}

const fleet = (argv: string[], aws?: AwsPorts) =>
  runFleetIn(repo.root, argv, { connectAws: async () => aws });

describe('a changed table key against a folder of templates', () => {
  // The diff command's own exit 1 on such a change: test/infra/review-fleet-findings.test.ts.
  it('is a replacement of the table: deploy shows it in its diff and refuses before deploying anything', async () => {
    repo.edit('lib/kernel/storage/table-definition.ts', "sortKey: 'sk',", "sortKey: 'sk2',");
    const { ports, calls } = fakeAws();
    const deploy = await fleet(['deploy', '--base', 'baseline-templates', '--tenants', 'alpha'], ports);
    expect(deploy.out).toContain('Baseline: templates in ');
    expect(deploy.out).toMatch(
      /^alpha\s+Booking-alpha-prod\s+changed\s+0\s+\d+\s+[1-9]\d*\s+0\s+DataTable\w+ \(WILL_REPLACE\)/m,
    );
    expect(deploy.out).toMatch(
      /replaced\s+WILL_REPLACE\s+DataTable\w+\s+AWS::DynamoDB::GlobalTable\s+STATEFUL: the bookings table/,
    );
    expect(deploy.code).toBe(1);
    expect(deploy.out).toContain('REFUSED: stateful data is at risk');
    expect(deploy.commands).toEqual([]);
    expect(calls).toEqual([]);
  }, 120_000);
});

describe('the deployed stacks as the baseline', () => {
  it('is the default with AWS credentials, and tells a tenant id change by the template metadata', async () => {
    repo.writeTenant('gamma', 'gamma2');
    const { code, out } = await fleet(['diff'], fakeAws().ports);
    expect(code).toBe(1);
    expect(out).toContain('Baseline: the deployed stacks (CloudFormation GetTemplate, region eu-west-1)');
    expect(out).toMatch(/^alpha\s+Booking-alpha-prod\s+unchanged/m);
    expect(out).toMatch(/^gamma\s+Booking-gamma2-prod\s+renamed.*Booking-gamma-prod keeps the data$/m);
    // A stack of another stage, or no tenant's, is none of this diff's business.
    expect(out).not.toContain('Booking-alpha-dev');
    expect(out).not.toContain('CDKToolkit');
  }, 120_000);

  it('deploys an unchanged fleet with cdk deploy, sets the stack policy and reads the alarms after the bake', async () => {
    const { ports, calls, policies } = fakeAws({
      'Booking-alpha-prod': [{ name: 'Booking-alpha-prod-api-5xx-rate', state: 'OK', reason: '' }],
    });
    const { code, out, commands, sleeps } = await fleet(
      ['deploy', '--tenants', 'alpha', '--bake', '60'],
      ports,
    );
    expect(code).toBe(0);
    expect(commands).toEqual([
      [
        'npx',
        'cdk',
        'deploy',
        'Booking-alpha-prod',
        '-c',
        'tenant=alpha',
        '-c',
        'stage=prod',
        '--require-approval',
        'never',
        '--output',
        'cdk.out/fleet/deploy-prod/alpha',
      ],
    ]);
    expect(calls).toEqual(['policy Booking-alpha-prod']);
    const template = deployed.get('Booking-alpha-prod') as CfnTemplate;
    expect(JSON.parse(policies.get('Booking-alpha-prod') as string)).toEqual(stackPolicyFor(template));
    expect(sleeps).toEqual([60_000]);
    expect(out).toMatch(/^alpha\s+Booking-alpha-prod\s+1\s+deployed\s+stack policy set$/m);
    expect(out).toContain('All 1 stacks deployed');
  }, 120_000);
});
