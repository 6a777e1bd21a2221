import { describe, expect, it } from 'vitest';
import { type AccessStore, RECORD_USE_INTERVAL_MS, resolveCaller } from '#lib/access/access.ts';
import { AccessError } from '#lib/access/errors.ts';
import { hashSecret, hashToken } from '#lib/access/secrets.ts';
import { AuthError, ERRORS } from '#lib/http/errors.ts';

/** The HTTP status the error table gives an access error. */
const statusOf = (error: unknown): number => ERRORS[(error as AccessError).code].status;

import { basic } from '#test/support/events.ts';

const NOW = 1_800_000_000_000;
const SECRET = 'correct-horse-battery-staple';

type StoreCredential = Awaited<ReturnType<AccessStore['getCredential']>> & object;

const makeCredential = (overrides: Partial<StoreCredential> = {}): StoreCredential => ({
  key: 'bk_key',
  account_id: 1,
  on_behalf: false,
  status: 'active',
  salt: 'salt',
  secret_hash: hashSecret(SECRET, 'salt'),
  rotated_at: NOW - 3_600_000,
  last_used_at: NOW,
  ...overrides,
});

const makeStore = (
  options: {
    credentials?: StoreCredential[];
    tokens?: Record<string, { key: string; expires_at: number; created_at: number }>;
    disabled?: number[];
  } = {},
) => {
  const uses: unknown[] = [];
  const lookups: string[] = [];
  const store: AccessStore = {
    getCredential: async (key) => {
      lookups.push(`credential ${key}`);
      return (options.credentials ?? [makeCredential()]).find((c) => c.key === key);
    },
    getToken: async (hash) => {
      lookups.push(`token ${hash}`);
      return options.tokens?.[hash];
    },
    getAccount: async (id) => (id <= 3 ? { enabled: !(options.disabled ?? []).includes(id) } : undefined),
    recordUse: async (use) => {
      uses.push(use);
    },
  };
  return { store, uses, lookups };
};

const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

describe('resolveCaller', () => {
  it('treats a caller without credentials as a customer', async () => {
    expect(await resolveCaller(makeStore().store, { sourceIp: '1.2.3.4' }, NOW)).toEqual({
      kind: 'customer',
    });
  });

  it('accepts HTTP Basic with the key and secret, whatever the scheme case', async () => {
    const header = basic('bk_key', SECRET).replace('Basic', 'BASIC');
    expect(
      await resolveCaller(makeStore().store, { authorization: header, sourceIp: '1.2.3.4' }, NOW),
    ).toEqual({
      kind: 'staff',
      accountId: 1,
      credentialKey: 'bk_key',
      credentialAccountId: 1,
    });
  });

  it.each([
    ['a wrong secret', basic('bk_key', 'wrong-secret-wrong-secret')],
    ['an unknown key', basic('bk_nope', SECRET)],
    ['a malformed Basic value', 'Basic !!!'],
    ['an unknown scheme', 'Digest abc'],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with a 401, never a silent customer', async (_name, authorization) => {
    const error = await rejection(
      resolveCaller(makeStore().store, { authorization, sourceIp: '1.2.3.4' }, NOW),
    );
    expect(error).toBeInstanceOf(AuthError);
  });

  it('refuses a revoked credential and a disabled account', async () => {
    const revoked = makeStore({ credentials: [makeCredential({ status: 'revoked' })] });
    expect(
      await rejection(
        resolveCaller(revoked.store, { authorization: basic('bk_key', SECRET), sourceIp: '' }, NOW),
      ),
    ).toBeInstanceOf(AuthError);
    const disabled = makeStore({ disabled: [1] });
    expect(
      await rejection(
        resolveCaller(disabled.store, { authorization: basic('bk_key', SECRET), sourceIp: '' }, NOW),
      ),
    ).toBeInstanceOf(AuthError);
  });

  it('accepts a bearer token until it expires, from the header or access_token', async () => {
    const tokens = {
      [hashToken('bt_live')]: { key: 'bk_key', expires_at: NOW + 1, created_at: NOW - 1 },
      [hashToken('bt_old')]: { key: 'bk_key', expires_at: NOW, created_at: NOW - 1 },
    };
    const { store } = makeStore({ tokens });
    expect(await resolveCaller(store, { authorization: 'BEARER bt_live', sourceIp: '' }, NOW)).toMatchObject({
      kind: 'staff',
      accountId: 1,
    });
    expect(await resolveCaller(store, { accessToken: 'bt_live', sourceIp: '' }, NOW)).toMatchObject({
      kind: 'staff',
    });
    const expired = (await rejection(
      resolveCaller(store, { authorization: 'Bearer bt_old', sourceIp: '' }, NOW),
    )) as AuthError;
    expect(expired.error).toBe('invalid_token');
    expect(
      await rejection(resolveCaller(store, { accessToken: ['bt_live'], sourceIp: '' }, NOW)),
    ).toBeInstanceOf(AuthError);
  });

  it('stops honouring tokens once their credential is revoked', async () => {
    const tokens = { [hashToken('bt_live')]: { key: 'bk_key', expires_at: NOW + 60_000, created_at: NOW } };
    const { store } = makeStore({ tokens, credentials: [makeCredential({ status: 'revoked' })] });
    expect(
      await rejection(resolveCaller(store, { authorization: 'Bearer bt_live', sourceIp: '' }, NOW)),
    ).toBeInstanceOf(AuthError);
  });

  it.each([
    ['refuses', 'one millisecond before the secret was rotated', -1, 'invalid_token'],
    ['accepts', 'in the same millisecond as the rotation', 0, undefined],
    ['accepts', 'one millisecond after the rotation', 1, undefined],
  ])('%s a bearer token issued %s', async (_verdict, _name, offset, refusal) => {
    const rotatedAt = NOW - 60_000;
    const tokens = {
      [hashToken('bt_tok')]: { key: 'bk_key', expires_at: NOW + 60_000, created_at: rotatedAt + offset },
    };
    const { store } = makeStore({ tokens, credentials: [makeCredential({ rotated_at: rotatedAt })] });
    const presented = { authorization: 'Bearer bt_tok', sourceIp: '' };
    if (refusal === undefined) {
      expect(await resolveCaller(store, presented, NOW)).toMatchObject({ kind: 'staff', accountId: 1 });
      return;
    }
    const error = (await rejection(resolveCaller(store, presented, NOW))) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error.error).toBe(refusal);
    expect(error.message).toContain('issued before the secret was rotated');
  });

  it.each([
    ['a Basic key of 129 characters', { authorization: basic('k'.repeat(129), SECRET) }, 'unauthorized'],
    [
      'a Basic secret of 1025 characters',
      { authorization: basic('bk_key', 's'.repeat(1025)) },
      'unauthorized',
    ],
    [
      'a Basic key with a character keys never hold',
      { authorization: basic('bk key/..', SECRET) },
      'unauthorized',
    ],
    ['a Basic key with a non-ASCII letter', { authorization: basic('bk_kéy', SECRET) }, 'unauthorized'],
    ['a bearer token of 513 characters', { authorization: `Bearer ${'t'.repeat(513)}` }, 'invalid_token'],
    ['an access_token of 513 characters', { accessToken: 't'.repeat(513) }, 'invalid_token'],
    [
      'a padded Basic header over 4096 characters',
      { authorization: `Basic${' '.repeat(4100)}${basic('bk_key', SECRET).slice(6)}` },
      'unauthorized',
    ],
    [
      'a padded Bearer header over 4096 characters',
      { authorization: `Bearer${' '.repeat(4100)}bt_tok` },
      'invalid_token',
    ],
  ])('refuses %s with a 401 before any lookup', async (_name, presented, code) => {
    const { store, lookups } = makeStore();
    const error = (await rejection(resolveCaller(store, { ...presented, sourceIp: '' }, NOW))) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error.error).toBe(code);
    expect(lookups).toEqual([]);
  });

  it.each([
    ['a generated key', 'bk_AbC-12_xyz'],
    ['an operator key with dots and dashes', 'smoke-key-0001.local'],
    ['a key of exactly 128 characters', 'k'.repeat(128)],
  ])('still looks up %s', async (_name, key) => {
    const { store, lookups } = makeStore({ credentials: [makeCredential({ key })] });
    const secret = 's'.repeat(1024);
    const long = makeStore({
      credentials: [makeCredential({ key, secret_hash: hashSecret(secret, 'salt') })],
    });
    expect(
      await resolveCaller(store, { authorization: basic(key, SECRET), sourceIp: '' }, NOW),
    ).toMatchObject({
      kind: 'staff',
      credentialKey: key,
    });
    expect(lookups).toEqual([`credential ${key}`]);
    expect(
      await resolveCaller(long.store, { authorization: basic(key, secret), sourceIp: '' }, NOW),
    ).toMatchObject({ kind: 'staff', credentialKey: key });
  });

  it('still looks up a bearer token of exactly 512 characters', async () => {
    const token = `bt_${'t'.repeat(509)}`;
    const tokens = { [hashToken(token)]: { key: 'bk_key', expires_at: NOW + 1, created_at: NOW } };
    const { store } = makeStore({ tokens });
    expect(await resolveCaller(store, { accessToken: token, sourceIp: '' }, NOW)).toMatchObject({
      kind: 'staff',
    });
  });

  it('acts as a customer with X-On-Behalf: off in any case', async () => {
    const caller = await resolveCaller(
      makeStore().store,
      { authorization: basic('bk_key', SECRET), onBehalf: ' OFF ', sourceIp: '' },
      NOW,
    );
    expect(caller).toEqual({ kind: 'customer', credentialKey: 'bk_key' });
  });

  it('acts on behalf of another account only when the credential may', async () => {
    const allowed = makeStore({ credentials: [makeCredential({ on_behalf: true })] });
    const caller = await resolveCaller(
      allowed.store,
      { authorization: basic('bk_key', SECRET), onBehalf: '2', sourceIp: '' },
      NOW,
    );
    expect(caller).toMatchObject({ kind: 'staff', accountId: 2, credentialAccountId: 1 });

    const refused = await rejection(
      resolveCaller(
        makeStore().store,
        { authorization: basic('bk_key', SECRET), onBehalf: '2', sourceIp: '' },
        NOW,
      ),
    );
    expect(refused).toBeInstanceOf(AccessError);
    expect(statusOf(refused)).toBe(403);

    const unknown = await rejection(
      resolveCaller(
        allowed.store,
        { authorization: basic('bk_key', SECRET), onBehalf: '99', sourceIp: '' },
        NOW,
      ),
    );
    expect(statusOf(unknown)).toBe(403);
    const malformed = await rejection(
      resolveCaller(
        allowed.store,
        { authorization: basic('bk_key', SECRET), onBehalf: 'admin', sourceIp: '' },
        NOW,
      ),
    );
    expect(statusOf(malformed)).toBe(400);
  });

  it('records a credential use at most once per interval', async () => {
    const fresh = makeStore();
    await resolveCaller(fresh.store, { authorization: basic('bk_key', SECRET), sourceIp: '9.9.9.9' }, NOW);
    expect(fresh.uses).toEqual([]);
    const stale = makeStore({
      credentials: [makeCredential({ last_used_at: NOW - RECORD_USE_INTERVAL_MS - 1 })],
    });
    await resolveCaller(stale.store, { authorization: basic('bk_key', SECRET), sourceIp: '9.9.9.9' }, NOW);
    expect(stale.uses).toEqual([{ key: 'bk_key', accountId: 1, ip: '9.9.9.9', at: NOW }]);
  });
});
