import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { ApiDeps } from '#lib/http/group-handler.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from './deps.ts';
import { createTestDb } from './dynamo.ts';
import { makeTenant } from './tenant.ts';

/** What a test file's beforeAll keeps of its tenant: the table and the handlers over it. */
export interface TenantTable {
  db: Db;
  handlers: ReturnType<typeof createAllHandlers>;
}

/**
 * A fresh table named after `prefix` with the raw tenant file written to it (loaded now unless `loadedAt`
 * says when), and every handler over it on the test deps, with `clock` and any `deps` of the file's own.
 */
export async function loadTenant(
  prefix: string,
  tenantJson: Record<string, unknown>,
  options: { clock?: () => number; loadedAt?: number; deps?: Partial<ApiDeps> } = {},
): Promise<TenantTable> {
  const db = await createTestDb(prefix);
  await writeTenant(db, makeTenant(tenantJson), options.loadedAt ?? Date.now());
  const deps = testDeps(db, options.clock ? { clock: options.clock } : {});
  return { db, handlers: createAllHandlers({ ...deps, ...options.deps }) };
}
