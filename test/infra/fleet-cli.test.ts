import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFleetArgs } from '#infra/fleet/args.ts';
import { runFleetIn } from '#test/support/fleet-run.ts';

// The command line: what it accepts, and how it refuses what it does not (exit 2, before any synth).

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-cli-'));
  for (const name of ['lakeside', 'harbour'])
    writeFileSync(join(dir, `${name}.json`), `{"tenant":"${name}"}`);
  writeFileSync(join(dir, 'tenant.schema.json'), '{}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fleet = (argv: string[]) => runFleetIn(process.cwd(), argv);

describe('the fleet command line', () => {
  it('reads the contract flags with their defaults', () => {
    expect(parseFleetArgs(['deploy', '--tenants', 'b,a', '--wave', '3'])).toMatchObject({
      command: 'deploy',
      names: ['b', 'a'],
      stage: 'prod',
      tenantsDir: 'infra/tenants',
      waveSize: 3,
      concurrency: 2,
      bakeSeconds: 300,
      allowStateful: false,
    });
    expect(parseFleetArgs(['synth'])).toMatchObject({ command: 'synth', checks: true, waveSize: 5 });
    expect(parseFleetArgs(['synth', '--no-checks', '--stage', 'dev'])).toMatchObject({
      checks: false,
      stage: 'dev',
    });
    expect(parseFleetArgs(['--help'])).toBe('help');
  });

  it.each([
    [['deploy', '--wave', '0'], '--wave takes a whole number from 1 to 1000, not "0"'],
    [['deploy', '--wave', 'two'], '--wave takes a whole number from 1 to 1000, not "two"'],
    [['deploy', '--wave', '2.5'], '--wave takes a whole number from 1 to 1000, not "2.5"'],
    [['deploy', '--concurrency=-1'], '--concurrency takes a whole number from 1 to 50, not "-1"'],
    [['deploy', '--bake', 'soon'], '--bake takes a whole number from 0 to 86400, not "soon"'],
    [['synth', '--wave', '3'], '--wave is for deploy, not synth'],
    [['diff', '--no-checks'], '--no-checks is for synth, not diff'],
    [['synth', '--base', 'HEAD'], '--base is for diff and deploy, not synth'],
    [['launch'], 'unknown command "launch": synth, diff or deploy'],
    [[], 'which command: synth, diff or deploy?'],
    [['diff', 'lakeside'], 'unexpected argument "lakeside" (tenants go in --tenants a,b)'],
    [['diff', '--tenant', 'lakeside'], "Unknown option '--tenant'"],
    [
      ['diff', '--tenants', 'lakeside,'],
      '--tenants takes tenant file names separated by commas, not "lakeside,"',
    ],
    [['diff', '--stage', 'prod_1'], '--stage "prod_1" cannot be part of a stack name'],
  ])('refuses %j with exit 2 and says why', async (argv, message) => {
    const { code, err, out } = await fleet(argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(out).toBe('');
  });

  it('refuses an unknown tenant with exit 2, naming the tenants there are', async () => {
    for (const command of ['synth', 'diff', 'deploy']) {
      const { code, err } = await fleet([command, '--tenants-dir', dir, '--tenants', 'lakeside,atlantis']);
      if (command === 'deploy') {
        // Deploy asks for AWS first: without it nothing, not even a tenant, is looked at.
        expect(code).toBe(1);
        expect(err).toContain('deploy needs AWS credentials and a region');
        continue;
      }
      expect(code, command).toBe(2);
      expect(err).toContain(`unknown tenant atlantis: no such file in ${dir} (tenants: harbour, lakeside)`);
    }
  });

  it('refuses a baseline that is neither a folder nor a commit, and AWS when there is none', async () => {
    const ref = await fleet(['diff', '--base', 'no-such-ref']);
    expect(ref.code).toBe(2);
    expect(ref.err).toContain('--base no-such-ref is neither a folder of templates nor a git commit');
    const aws = await fleet(['diff', '--base', 'aws']);
    expect(aws.code).toBe(2);
    expect(aws.err).toContain('--base aws: no AWS credentials and region are configured');
  });

  it('refuses a git baseline for tenant files outside the repository', async () => {
    const { code, err } = await fleet(['diff', '--tenants-dir', dir]);
    expect(code).toBe(2);
    expect(err).toContain(
      'is outside the repository, so HEAD has no tenant files there: use --base <folder>',
    );
  });

  it('prints its usage on --help, exit 0', async () => {
    const { code, out } = await fleet(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('usage: npm run fleet -- <synth|diff|deploy> [options]');
  });

  it('exits 2 from the shell too (npm run fleet)', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/fleet.ts', 'diff', '--wave', '3'],
      {
        encoding: 'utf8',
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('fleet: --wave is for deploy, not diff');
  });
});
