import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, inject, it } from 'vitest';
import { readTenantFile } from '#infra/local/settings.ts';
import { createCredential, ensureCredential, revoke } from '#lib/access/credential-admin.ts';
import { getCredential } from '#lib/access/credential-repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { createDb, type Db } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { basic } from '#test/support/events.ts';
import { startService, stopService, tempDirs } from '#test/support/local-runner.ts';

const tenant = readTenantFile('infra/tenants/demo.json');
const accountId = tenant.accounts.find((account) => account.enabled)?.account_id ?? 0;
// Each test stops its service before it ends (DYNAMODB_ENDPOINT: no Java of their own on the DATA_DIRs).
const dirs = tempDirs();
afterAll(() => dirs.remove());

/** A table on the test run's DynamoDB Local, loaded with the demo tenant as `npm start` would load it. */
const makeStartTable = async (): Promise<Db> => {
  const db = createDb({ endpoint: inject('dynamoEndpoint'), tableName: `admin-${randomUUID()}` });
  await ensureTable(db);
  await writeTenant(db, tenant, Date.now());
  return db;
};

// DYNAMODB_ENDPOINT spares each start its own DynamoDB Local; both starts run side by side, each on a
// port the system picks (a random fixed one can meet an outgoing connection's ephemeral port).
const startOn = (db: Db, extra: Record<string, string>) =>
  startService({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: extra.DATA_DIR ?? dirs.make('admin-'),
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    TABLE_NAME: db.tableName,
    ADMIN_API_KEY: '',
    ADMIN_API_SECRET: '',
    ...extra,
  });

const accountStatus = (base: string, key: string, secret: string) =>
  fetch(`${base}/account`, { headers: { authorization: basic(key, secret) } }).then((r) => r.status);

describe.concurrent('npm start with a revoked admin credential', () => {
  it('keeps a revoked ADMIN_API_KEY revoked, says so, and still serves', { timeout: 120_000 }, async ({
    expect,
  }) => {
    const db = await makeStartTable();
    const key = 'smoke-key-0001';
    const secret = 'smoke-secret-long-enough';
    await ensureCredential(db, { key, secret, accountId, onBehalf: true, label: 'ADMIN_API_KEY', now: 1 });
    await revoke(db, { key, now: Date.now() });

    const service = await startOn(db, { ADMIN_API_KEY: key, ADMIN_API_SECRET: secret });
    try {
      expect(service.output()).toContain(
        `ADMIN_API_KEY ${key} was revoked and stays revoked; set another key`,
      );
      expect((await fetch(`${service.base}/ping`)).status).toBe(200);
      expect(await accountStatus(service.base, key, secret)).toBe(401);
      expect((await getCredential(db, key))?.status).toBe('revoked');
    } finally {
      expect(await stopService(service)).toBe(true);
    }
  });

  it('replaces a revoked generated credential in DATA_DIR with a new one, like a first start', {
    timeout: 120_000,
  }, async ({ expect }) => {
    const db = await makeStartTable();
    const dataDir = dirs.make('admin-');
    const file = join(dataDir, 'admin-credential.json');
    const old = await createCredential(db, { accountId, onBehalf: true, label: 'generated admin', now: 1 });
    await revoke(db, { key: old.key, now: Date.now() });
    writeFileSync(file, `${JSON.stringify(old)}\n`, { mode: 0o644 });

    const service = await startOn(db, { DATA_DIR: dataDir });
    try {
      const fresh = JSON.parse(readFileSync(file, 'utf8')) as { key: string; secret: string };
      expect(fresh.key).not.toBe(old.key);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(service.output()).toContain(`key ${fresh.key} secret ${fresh.secret}`);
      expect(await accountStatus(service.base, fresh.key, fresh.secret)).toBe(200);
      expect(await accountStatus(service.base, old.key, old.secret)).toBe(401);
      expect((await getCredential(db, old.key))?.status).toBe('revoked');
    } finally {
      expect(await stopService(service)).toBe(true);
    }
  });
});
