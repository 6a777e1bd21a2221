import { getAccount } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import {
  CredentialNotFoundError,
  getCredential,
  listCredentials,
  putCredential,
  putToken,
  replaceUnrevokedCredential,
  revokeCredential,
  rotateCredentialSecret,
  type StoredCredential,
} from './credential-repository.ts';
import {
  generateApiKey,
  generateSalt,
  generateSecret,
  generateToken,
  hashSecret,
  hashToken,
  isWellFormedApiKey,
  MAX_API_KEY_LENGTH,
  MAX_SECRET_LENGTH,
  MIN_SECRET_LENGTH,
  verifySecret,
} from './secrets.ts';

/** The stable codes of credential administration problems. */
export type CredentialAdminErrorCode =
  | 'unknown_account'
  | 'weak_secret'
  | 'invalid_key'
  | 'not_found'
  | 'revoked'
  | 'invalid_ttl'
  | 'partner_on_behalf';

/** A credential problem the CLI reports as a one-line message. */
export class CredentialAdminError extends Error {
  readonly code: CredentialAdminErrorCode;

  constructor(code: CredentialAdminErrorCode, message: string) {
    super(message);
    this.name = 'CredentialAdminError';
    this.code = code;
  }
}

const revokedError = (key: string) =>
  new CredentialAdminError('revoked', `Credential ${key} was revoked and stays revoked; use another key`);

const requireAccount = async (db: Db, accountId: number, onBehalf: boolean): Promise<void> => {
  const account = await getAccount(db, accountId);
  if (!account?.enabled)
    throw new CredentialAdminError('unknown_account', `No enabled staff account ${accountId}`);
  if (onBehalf && account.partner) {
    throw new CredentialAdminError(
      'partner_on_behalf',
      `Account ${accountId} is a partner: its credentials cannot act on behalf of others`,
    );
  }
};

/** Creates a credential for a staff account; the secret is returned once and stored only as a hash. */
export async function createCredential(
  db: Db,
  options: { accountId: number; onBehalf: boolean; label: string; now: number },
): Promise<{ key: string; secret: string }> {
  await requireAccount(db, options.accountId, options.onBehalf);
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
 * ADMIN_API_KEY / ADMIN_API_SECRET), never re-activating a revoked key; reports whether anything changed.
 */
export async function ensureCredential(
  db: Db,
  options: { key: string; secret: string; accountId: number; onBehalf: boolean; label: string; now: number },
): Promise<'created' | 'updated' | 'unchanged'> {
  // Refused here too, or the credential would be stored and then never accepted by resolveCaller.
  if (!isWellFormedApiKey(options.key)) {
    throw new CredentialAdminError(
      'invalid_key',
      `The key must be 1 to ${MAX_API_KEY_LENGTH} letters, digits, '-', '_' or '.'`,
    );
  }
  if (options.secret.length < MIN_SECRET_LENGTH || options.secret.length > MAX_SECRET_LENGTH) {
    throw new CredentialAdminError(
      'weak_secret',
      `The secret must be ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters`,
    );
  }
  await requireAccount(db, options.accountId, options.onBehalf);
  const existing = await getCredential(db, options.key);
  if (existing?.status === 'revoked') throw revokedError(options.key);
  const kept =
    existing !== undefined && verifySecret(options.secret, existing.salt, existing.secret_hash)
      ? existing
      : undefined;
  if (kept && kept.account_id === options.accountId && kept.on_behalf === options.onBehalf) {
    return 'unchanged';
  }
  const salt = kept?.salt ?? generateSalt();
  const written = await replaceUnrevokedCredential(db, {
    key: options.key,
    account_id: options.accountId,
    label: options.label,
    on_behalf: options.onBehalf,
    status: 'active',
    secret_hash: kept?.secret_hash ?? hashSecret(options.secret, salt),
    salt,
    created_at: existing?.created_at ?? options.now,
    // Only a new secret is a rotation: it ends the tokens issued under the old one.
    rotated_at: kept?.rotated_at ?? options.now,
    last_used_at: existing?.last_used_at ?? 0,
  });
  if (!written) throw revokedError(options.key);
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

/**
 * Gives an active credential a new secret (returned once); the old secret and every token issued
 * before it stop working at once.
 */
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
const MAX_TOKEN_TTL_SECONDS = 30 * 86_400;

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
