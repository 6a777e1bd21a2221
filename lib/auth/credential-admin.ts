import type { Db } from '../db/client.ts';
import {
  CredentialNotFoundError,
  getCredential,
  listCredentials,
  putCredential,
  putToken,
  replaceCredential,
  revokeCredential,
  rotateCredentialSecret,
  type StoredCredential,
} from '../db/credential-repository.ts';
import { getAccount } from '../db/tenant-repository.ts';
import {
  generateApiKey,
  generateSalt,
  generateSecret,
  generateToken,
  hashSecret,
  hashToken,
  MIN_SECRET_LENGTH,
  verifySecret,
} from './secrets.ts';

/** A credential problem the CLI reports as a one-line message. */
export class CredentialAdminError extends Error {
  readonly code: string;

  constructor(code: 'unknown_account' | 'weak_secret' | 'not_found' | 'invalid_ttl', message: string) {
    super(message);
    this.name = 'CredentialAdminError';
    this.code = code;
  }
}

const requireAccount = async (db: Db, accountId: number): Promise<void> => {
  const account = await getAccount(db, accountId);
  if (!account?.enabled)
    throw new CredentialAdminError('unknown_account', `No enabled staff account ${accountId}`);
};

/** Creates a credential for a staff account; the secret is returned once and stored only as a hash. */
export async function createCredential(
  db: Db,
  options: { accountId: number; onBehalf: boolean; label: string; now: number },
): Promise<{ key: string; secret: string }> {
  await requireAccount(db, options.accountId);
  const key = generateApiKey();
  const secret = generateSecret();
  const salt = generateSalt();
  await putCredential(db, {
    key,
    account_id: options.accountId,
    label: options.label,
    on_behalf: options.onBehalf,
    status: 'active',
    secret_hash: hashSecret(secret, salt),
    salt,
    created_at: options.now,
    rotated_at: options.now,
    last_used_at: 0,
  });
  return { key, secret };
}

/**
 * Makes sure a credential with exactly this key and secret exists and is active (the operator's
 * ADMIN_API_KEY / ADMIN_API_SECRET); reports whether anything had to change.
 */
export async function ensureCredential(
  db: Db,
  options: { key: string; secret: string; accountId: number; onBehalf: boolean; label: string; now: number },
): Promise<'created' | 'updated' | 'unchanged'> {
  if (options.secret.length < MIN_SECRET_LENGTH) {
    throw new CredentialAdminError(
      'weak_secret',
      `The secret must be at least ${MIN_SECRET_LENGTH} characters`,
    );
  }
  await requireAccount(db, options.accountId);
  const existing = await getCredential(db, options.key);
  const matches =
    existing !== undefined &&
    existing.status === 'active' &&
    existing.account_id === options.accountId &&
    existing.on_behalf === options.onBehalf &&
    verifySecret(options.secret, existing.salt, existing.secret_hash);
  if (matches) return 'unchanged';
  const salt = generateSalt();
  await replaceCredential(db, {
    key: options.key,
    account_id: options.accountId,
    label: options.label,
    on_behalf: options.onBehalf,
    status: 'active',
    secret_hash: hashSecret(options.secret, salt),
    salt,
    created_at: existing?.created_at ?? options.now,
    rotated_at: options.now,
    last_used_at: existing?.last_used_at ?? 0,
  });
  return existing ? 'updated' : 'created';
}

/** Lists credentials without anything secret. */
export async function listCredentialSummaries(db: Db) {
  const credentials = await listCredentials(db);
  return credentials
    .sort((a, b) => a.created_at - b.created_at)
    .map(({ secret_hash: _hash, salt: _salt, ...summary }) => summary);
}

/** Revokes a credential and, with it, every token issued for it. */
export async function revoke(db: Db, options: { key: string; now: number }): Promise<void> {
  try {
    await revokeCredential(db, { key: options.key, at: options.now });
  } catch (error) {
    if (error instanceof CredentialNotFoundError) throw new CredentialAdminError('not_found', error.message);
    throw error;
  }
}

/** Gives an active credential a new secret (returned once); the old secret stops working at once. */
export async function rotate(
  db: Db,
  options: { key: string; now: number },
): Promise<{ key: string; secret: string }> {
  const secret = generateSecret();
  const salt = generateSalt();
  try {
    await rotateCredentialSecret(db, {
      key: options.key,
      secretHash: hashSecret(secret, salt),
      salt,
      at: options.now,
    });
  } catch (error) {
    if (error instanceof CredentialNotFoundError) throw new CredentialAdminError('not_found', error.message);
    throw error;
  }
  return { key: options.key, secret };
}

/** The longest a bearer token may live. */
export const MAX_TOKEN_TTL_SECONDS = 30 * 86_400;

/** Issues a bearer token for an active credential; the token is returned once and stored only as a hash. */
export async function issueToken(
  db: Db,
  options: { key: string; ttlSeconds: number; now: number },
): Promise<{ token: string; expiresAt: number }> {
  if (
    !Number.isInteger(options.ttlSeconds) ||
    options.ttlSeconds < 60 ||
    options.ttlSeconds > MAX_TOKEN_TTL_SECONDS
  ) {
    throw new CredentialAdminError(
      'invalid_ttl',
      `The lifetime must be 60 to ${MAX_TOKEN_TTL_SECONDS} seconds`,
    );
  }
  const credential: StoredCredential | undefined = await getCredential(db, options.key);
  if (credential?.status !== 'active') {
    throw new CredentialAdminError('not_found', `No active credential ${options.key}`);
  }
  const token = generateToken();
  const expiresAt = options.now + options.ttlSeconds * 1000;
  await putToken(db, {
    token_hash: hashToken(token),
    key: options.key,
    expires_at: expiresAt,
    created_at: options.now,
  });
  return { token, expiresAt };
}
