import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import {
  CredentialAdminError,
  createCredential,
  ensureCredential,
  issueToken,
  listCredentialSummaries,
  revoke,
  rotate,
} from '#lib/access/credential-admin.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke } from '#test/support/events.ts';
import { makeTenant } from '#test/support/tenant.ts';

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
const statusOf = async (authorization: string) =>
  (await invoke(handlers.meta, { path: 'account', headers: { authorization } })).status;

beforeAll(async () => {
  db = await createTestDb('credentials');
  await writeTenant(db, makeTenant(), Date.now());
  handlers = createAllHandlers({ db, provider: 'test', configTtlMs: 0 });
});

describe('credentials', () => {
  it('creates a credential whose secret works once shown and is never stored', async () => {
    const { key, secret } = await createCredential(db, {
      accountId: 1,
      onBehalf: false,
      label: 'desk',
      now: Date.now(),
    });
    expect(await statusOf(basic(key, secret))).toBe(200);
    const listed = await listCredentialSummaries(db);
    expect(listed.find((entry) => entry.key === key)).toMatchObject({
      account_id: 1,
      label: 'desk',
      status: 'active',
    });
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('refuses a credential for an unknown account', async () => {
    await expect(
      createCredential(db, { accountId: 42, onBehalf: false, label: 'x', now: 1 }),
    ).rejects.toBeInstanceOf(CredentialAdminError);
  });

  it('rotates: the old secret stops working and the new one works', async () => {
    const { key, secret } = await createCredential(db, {
      accountId: 1,
      onBehalf: false,
      label: 'rot',
      now: Date.now(),
    });
    const rotated = await rotate(db, { key, now: Date.now() });
    expect(await statusOf(basic(key, secret))).toBe(401);
    expect(await statusOf(basic(key, rotated.secret))).toBe(200);
  });

  it('revokes a credential and every token issued for it', async () => {
    const { key, secret } = await createCredential(db, {
      accountId: 1,
      onBehalf: false,
      label: 'rev',
      now: Date.now(),
    });
    const { token } = await issueToken(db, { key, ttlSeconds: 3600, now: Date.now() });
    expect(await statusOf(`Bearer ${token}`)).toBe(200);
    expect((await invoke(handlers.meta, { path: 'account', query: `access_token=${token}` })).status).toBe(
      200,
    );
    await revoke(db, { key, now: Date.now() });
    expect(await statusOf(basic(key, secret))).toBe(401);
    expect(await statusOf(`Bearer ${token}`)).toBe(401);
    await expect(rotate(db, { key, now: Date.now() })).rejects.toBeInstanceOf(CredentialAdminError);
    await expect(revoke(db, { key: 'bk_missing', now: Date.now() })).rejects.toBeInstanceOf(
      CredentialAdminError,
    );
  });

  it('issues tokens that expire', async () => {
    const { key } = await createCredential(db, {
      accountId: 1,
      onBehalf: false,
      label: 'tok',
      now: Date.now(),
    });
    const { token } = await issueToken(db, { key, ttlSeconds: 60, now: Date.now() - 61_000 });
    expect(await statusOf(`Bearer ${token}`)).toBe(401);
    await expect(issueToken(db, { key, ttlSeconds: 5, now: Date.now() })).rejects.toBeInstanceOf(
      CredentialAdminError,
    );
  });

  it('ensures the configured admin credential idempotently, following a changed secret', async () => {
    const base = { key: 'admin-key', accountId: 1, onBehalf: true, label: 'ADMIN_API_KEY', now: Date.now() };
    expect(await ensureCredential(db, { ...base, secret: 'first-secret-long-enough' })).toBe('created');
    expect(await ensureCredential(db, { ...base, secret: 'first-secret-long-enough' })).toBe('unchanged');
    expect(await ensureCredential(db, { ...base, secret: 'second-secret-long-enough' })).toBe('updated');
    expect(await statusOf(basic('admin-key', 'first-secret-long-enough'))).toBe(401);
    expect(await statusOf(basic('admin-key', 'second-secret-long-enough'))).toBe(200);
    await expect(ensureCredential(db, { ...base, secret: 'short' })).rejects.toBeInstanceOf(
      CredentialAdminError,
    );
  });

  it('refuses to re-activate a revoked key through ensureCredential', async () => {
    const base = {
      key: 'smoke-key-0001',
      accountId: 1,
      onBehalf: true,
      label: 'ADMIN_API_KEY',
      now: Date.now(),
    };
    const secret = 'revoked-secret-long-enough';
    expect(await ensureCredential(db, { ...base, secret })).toBe('created');
    await revoke(db, { key: base.key, now: Date.now() });
    for (const attempt of [secret, 'another-secret-long-enough']) {
      const error = await ensureCredential(db, { ...base, secret: attempt }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CredentialAdminError);
      expect(error).toMatchObject({ code: 'revoked' });
      expect((error as Error).message).toContain('smoke-key-0001');
      expect(await statusOf(basic(base.key, attempt))).toBe(401);
    }
    const listed = await listCredentialSummaries(db);
    expect(listed.find((entry) => entry.key === base.key)).toMatchObject({ status: 'revoked' });
  });

  it('ends the tokens issued before a rotation with the CLI', async () => {
    const { key } = await createCredential(db, {
      accountId: 1,
      onBehalf: false,
      label: 'r',
      now: Date.now(),
    });
    const issuedAt = Date.now();
    const before = await issueToken(db, { key, ttlSeconds: 3600, now: issuedAt });
    expect(await statusOf(`Bearer ${before.token}`)).toBe(200);
    await rotate(db, { key, now: issuedAt + 1 });
    const refused = await invoke(handlers.meta, {
      path: 'account',
      headers: { authorization: `Bearer ${before.token}` },
    });
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.json)).toContain('issued before the secret was rotated');
    // Issued in the very millisecond of the rotation, a token is under the new secret.
    const after = await issueToken(db, { key, ttlSeconds: 3600, now: issuedAt + 1 });
    expect(await statusOf(`Bearer ${after.token}`)).toBe(200);
  });

  it('ends the tokens issued before ADMIN_API_SECRET changed, but not on an unchanged restart', async () => {
    const base = { key: 'admin-rotating', accountId: 1, onBehalf: true, label: 'ADMIN_API_KEY' };
    const first = 'first-secret-long-enough';
    await ensureCredential(db, { ...base, secret: first, now: Date.now() - 10_000 });
    const { token } = await issueToken(db, { key: base.key, ttlSeconds: 3600, now: Date.now() - 5_000 });
    expect(await ensureCredential(db, { ...base, secret: first, now: Date.now() })).toBe('unchanged');
    expect(await statusOf(`Bearer ${token}`)).toBe(200);
    expect(
      await ensureCredential(db, { ...base, secret: 'changed-secret-long-enough', now: Date.now() }),
    ).toBe('updated');
    expect(await statusOf(`Bearer ${token}`)).toBe(401);
  });

  it('answers a Basic key longer than any DynamoDB key with a 401, not a store error', async () => {
    expect(await statusOf(basic('k'.repeat(3000), 'any-secret-long-enough'))).toBe(401);
  });
});
