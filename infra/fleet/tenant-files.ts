import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FleetUsageError } from './errors.ts';

/** A tenant file of the fleet, by the name `--tenants` and `-c tenant=` use (the file name less `.json`). */
export interface TenantFile {
  name: string;
  file: string;
}

/** The scaffold `npm run tenant:new` copies (infra/tenants/template.json): a tenant file, but no tenant's. */
export const SCAFFOLD_FILE = 'template.json';

/** Whether a file name in the tenant folder is a tenant file (`*.json`, not the schema nor the scaffold). */
export const isTenantFileName = (entry: string): boolean =>
  entry.endsWith('.json') && !entry.endsWith('.schema.json') && entry !== SCAFFOLD_FILE;

/**
 * Every tenant file of a folder, by name: `*.json` but the JSON Schema (`*.schema.json`) and the scaffold,
 * which would otherwise be deployed as a tenant of its own ("Example Inn").
 */
export function listTenantFiles(dir: string): TenantFile[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter(isTenantFileName)
    .sort()
    .map((entry) => ({ name: entry.slice(0, -'.json'.length), file: join(dir, entry) }));
}

/**
 * The tenants a command works on: `--tenants a,b` in the order given (the first is the deploy's canary),
 * otherwise every tenant file in name order. An unknown name is a usage error that lists the known ones.
 */
export function selectTenants(all: TenantFile[], names: string[] | undefined, dir: string): TenantFile[] {
  if (!names) {
    if (all.length === 0) throw new FleetUsageError(`no tenant files (*.json) in ${dir}`);
    return all;
  }
  const byName = new Map(all.map((tenant) => [tenant.name, tenant]));
  const unknown = names.filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    const known = all.map((tenant) => tenant.name).join(', ') || 'none';
    throw new FleetUsageError(
      `unknown tenant${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: no such file in ${dir} (tenants: ${known})`,
    );
  }
  return [...new Set(names)].map((name) => byName.get(name) as TenantFile);
}

/** The tenant id a file names (`"tenant"`), read without validating the rest; undefined when unreadable. */
export function tenantIdOf(file: string): string | undefined {
  try {
    return tenantIdIn(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The tenant id a tenant file's text names, read without validating the rest; undefined when unreadable. */
export function tenantIdIn(text: string): string | undefined {
  try {
    const id = (JSON.parse(text) as { tenant?: unknown }).tenant;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}
