import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTenantNew as tenantNew } from '#infra/cli/tenant-new.ts';
import { parseTenant } from '#lib/config/tenant-schema.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { createTestDb } from '#test/support/dynamo.ts';

// `npm run tenant:new <name>` (issue 15), always into a temporary directory: run as the script runs it for
// the scaffold that is then loaded, in this process (its exit code and output kept) for the refusals.
const runScript = (args: string[]) =>
  spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'infra/cli/tenant-new.ts', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
const runTenantNew = (args: string[]) => {
  const result = { status: 0, stdout: '', stderr: '' };
  result.status = tenantNew(args, {
    stdout: (text) => {
      result.stdout += text;
    },
    stderr: (text) => {
      result.stderr += text;
    },
  });
  return result;
};
const freshDir = () => mkdtempSync(join(tmpdir(), 'tenant-new-'));

describe('npm run tenant:new', () => {
  it('scaffolds a tenant file that the schema accepts and that loads into a table', {
    timeout: 60_000,
  }, async () => {
    const dir = freshDir();
    const result = runScript([
      'lakeview-2',
      '--company',
      'Lakeview Cottages',
      '--currency',
      'CAD',
      '--dir',
      dir,
    ]);
    expect(result.status).toBe(0);
    const file = join(dir, 'lakeview-2.json');
    expect(result.stdout).toContain('wrote ');
    expect(result.stdout).toContain('npm start');
    expect(result.stdout).toContain('npx cdk deploy -c tenant=lakeview-2');

    const raw = JSON.parse(readFileSync(file, 'utf8'));
    expect(resolve(dir, raw.$schema)).toBe(resolve('infra/tenants/tenant.schema.json'));
    const parsed = parseTenant(raw);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const tenant = parsed.tenant;
    expect(tenant.tenant).toBe('lakeview-2');
    expect(tenant.company.name).toBe('Lakeview Cottages');
    expect(tenant.locale).toMatchObject({ currency: 'CAD', currency_symbol: '$', decimals: 2 });
    expect(tenant.settings.booking_code_prefix).toBe('LAKE');
    expect(tenant.categories).toHaveLength(1);
    expect(tenant.items.length).toBeGreaterThanOrEqual(2);
    expect(tenant.accounts).toHaveLength(1);
    expect(tenant.settings.cors_origins.length).toBeGreaterThan(0);
    expect(tenant.settings.alerts.email).toBeDefined();
    expect(tenant.settings.void_unpaid_after_hours).toBe(72);

    const summary = await writeTenant(await createTestDb('tenant-new'), tenant, Date.now());
    expect(summary).toMatchObject({ items: tenant.items.length, accounts: 1 });
  });

  it('takes the currency symbol and decimals from the currency', { timeout: 30_000 }, () => {
    const dir = freshDir();
    expect(runTenantNew(['kyoto-inn', '--currency', 'JPY', '--dir', dir]).status).toBe(0);
    const locale = JSON.parse(readFileSync(join(dir, 'kyoto-inn.json'), 'utf8')).locale;
    expect(locale).toMatchObject({ currency: 'JPY', currency_symbol: '¥', decimals: 0 });
  });

  it('never overwrites an existing file', { timeout: 30_000 }, () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'taken.json'), 'mine\n');
    const result = runTenantNew(['taken', '--dir', dir]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('taken.json already exists');
    expect(readFileSync(join(dir, 'taken.json'), 'utf8')).toBe('mine\n');
  });

  it.each([
    ['Upper-Case'],
    ['under_score'],
    ['1starts-with-a-digit'],
    ['x'],
    ['a'.repeat(41)],
    ['../escape'],
  ])('refuses the name %s and writes nothing', { timeout: 30_000 }, (name) => {
    const dir = freshDir();
    const result = runTenantNew([name, '--dir', dir]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`"${name}" is not a tenant name`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses an unknown currency and a result the schema rejects, writing nothing', {
    timeout: 30_000,
  }, () => {
    const dir = freshDir();
    const currency = runTenantNew(['acme', '--currency', 'XYZ', '--dir', dir]);
    expect(currency.status).toBe(2);
    expect(currency.stderr).toContain('--currency XYZ');
    const company = runTenantNew(['acme', '--company', '', '--dir', dir]);
    expect(company.status).toBe(1);
    expect(company.stderr).toContain('company.name');
    expect(existsSync(join(dir, 'acme.json'))).toBe(false);
  });
});
