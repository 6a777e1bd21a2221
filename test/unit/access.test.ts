import { describe, expect, it } from 'vitest';
import { type AccessStore, RECORD_USE_INTERVAL_MS, resolveCaller } from '#lib/auth/access.ts';
import { hashSecret, hashToken } from '#lib/auth/secrets.ts';
import { ApiError, AuthError } from '#lib/http/errors.ts';
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
  last_used_at: NOW,
  ...overrides,
});

const makeStore = (
  options: {
    credentials?: StoreCredential[];
    tokens?: Record<string, { key: string; expires_at: number }>;
    disabled?: number[];
  } = {},
) => {
  const uses: unknown[] = [];
  const store: AccessStore = {
    getCredential: async (key) => (options.credentials ?? [makeCredential()]).find((c) => c.key === key),
    getToken: async (hash) => options.tokens?.[hash],
    getAccount: async (id) => (id <= 3 ? { enabled: !(options.disabled ?? []).includes(id) } : undefined),
    recordUse: async (use) => {
      uses.push(use);
    },
  };
  return { store, uses };
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
      [hashToken('bt_live')]: { key: 'bk_key', expires_at: NOW + 1 },
      [hashToken('bt_old')]: { key: 'bk_key', expires_at: NOW },
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
    const tokens = { [hashToken('bt_live')]: { key: 'bk_key', expires_at: NOW + 60_000 } };
    const { store } = makeStore({ tokens, credentials: [makeCredential({ status: 'revoked' })] });
    expect(
      await rejection(resolveCaller(store, { authorization: 'Bearer bt_live', sourceIp: '' }, NOW)),
    ).toBeInstanceOf(AuthError);
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
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(403);

    const unknown = await rejection(
      resolveCaller(
        allowed.store,
        { authorization: basic('bk_key', SECRET), onBehalf: '99', sourceIp: '' },
        NOW,
      ),
    );
    expect((unknown as ApiError).status).toBe(403);
    const malformed = await rejection(
      resolveCaller(
        allowed.store,
        { authorization: basic('bk_key', SECRET), onBehalf: 'admin', sourceIp: '' },
        NOW,
      ),
    );
    expect((malformed as ApiError).status).toBe(400);
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
