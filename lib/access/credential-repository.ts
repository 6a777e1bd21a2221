import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { CREDENTIAL_LIST, credentialKey, credentialListKey, tokenKey } from '../kernel/storage/keys.ts';
import { applyIfCondition, queryAll, stripKeys } from '../kernel/storage/operations.ts';

/** A staff API credential as stored: the secret only as a salted hash. */
export interface StoredCredential {
  key: string;
  account_id: number;
  label: string;
  on_behalf: boolean;
  status: 'active' | 'revoked';
  secret_hash: string;
  salt: string;
  created_at: number;
  rotated_at: number;
  revoked_at?: number;
  last_used_at: number;
}

/** A bearer token as stored: only the hash of its value. */
export interface StoredToken {
  token_hash: string;
  key: string;
  expires_at: number;
  created_at: number;
}

/** Thrown when a credential that must exist does not. */
export class CredentialNotFoundError extends Error {
  readonly code = 'not_found';

  constructor(key: string) {
    super(`No active credential ${key}`);
    this.name = 'CredentialNotFoundError';
  }
}

const credentialItem = (credential: StoredCredential) => ({
  ...credentialKey(credential.key),
  ...credentialListKey(credential.key),
  entity: 'credential',
  ...credential,
});

/** Reads one credential by its key. */
export async function getCredential(db: Db, key: string): Promise<StoredCredential | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: credentialKey(key) }),
  );
  return Item ? stripKeys<StoredCredential>(Item) : undefined;
}

/** Stores a new credential; refuses to overwrite an existing key. */
export async function putCredential(db: Db, credential: StoredCredential): Promise<void> {
  await db.documents.send(
    new PutCommand({
      TableName: db.tableName,
      Item: credentialItem(credential),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * Writes a credential over a missing or active one (the operator's configured admin credential); false
 * when the key was revoked, which no write may undo.
 */
export async function replaceUnrevokedCredential(db: Db, credential: StoredCredential): Promise<boolean> {
  return applyIfCondition(() =>
    db.documents.send(
      new PutCommand({
        TableName: db.tableName,
        Item: credentialItem(credential),
        // Checked in the write itself, so a revoke that lands after the caller's read still wins.
        ConditionExpression: 'attribute_not_exists(pk) OR #status <> :revoked',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked' },
      }),
    ),
  );
}

/** Lists every credential through its index (never a scan). */
export async function listCredentials(db: Db): Promise<StoredCredential[]> {
  const records = await queryAll(db, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :list',
    ExpressionAttributeValues: { ':list': CREDENTIAL_LIST },
  });
  return records.map((record) => stripKeys<StoredCredential>(record));
}

const updateExisting = async (
  db: Db,
  key: string,
  update: { expression: string; values: Record<string, unknown>; condition?: string },
): Promise<void> => {
  const applied = await applyIfCondition(() =>
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: credentialKey(key),
        UpdateExpression: update.expression,
        ConditionExpression: `attribute_exists(pk)${update.condition ? ` AND ${update.condition}` : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: update.values,
      }),
    ),
  );
  if (!applied) throw new CredentialNotFoundError(key);
};

/** Revokes a credential: its secret and every token issued for it stop working at once. */
export async function revokeCredential(db: Db, options: { key: string; at: number }): Promise<void> {
  await updateExisting(db, options.key, {
    expression: 'SET #status = :revoked, revoked_at = :at',
    values: { ':revoked': 'revoked', ':at': options.at },
  });
}

/** Replaces a credential's secret hash; the old secret, and tokens issued before `at`, stop working. */
export async function rotateCredentialSecret(
  db: Db,
  options: { key: string; secretHash: string; salt: string; at: number },
): Promise<void> {
  await updateExisting(db, options.key, {
    expression: 'SET secret_hash = :hash, salt = :salt, rotated_at = :at',
    values: { ':hash': options.secretHash, ':salt': options.salt, ':at': options.at, ':active': 'active' },
    condition: '#status = :active',
  });
}

/** Notes that a credential was used, at most once per interval (a conditional write, never backwards). */
export async function recordCredentialUse(
  db: Db,
  options: { key: string; at: number; notBefore: number },
): Promise<boolean> {
  return applyIfCondition(() =>
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: credentialKey(options.key),
        UpdateExpression: 'SET last_used_at = :at',
        ConditionExpression: 'attribute_exists(pk) AND last_used_at < :notBefore',
        ExpressionAttributeValues: { ':at': options.at, ':notBefore': options.notBefore },
      }),
    ),
  );
}

/** Stores a bearer token; it expires by its own time, and DynamoDB TTL deletes it later. */
export async function putToken(db: Db, token: StoredToken): Promise<void> {
  await db.documents.send(
    new PutCommand({
      TableName: db.tableName,
      Item: {
        ...tokenKey(token.token_hash),
        entity: 'token',
        ...token,
        ttl: Math.ceil(token.expires_at / 1000) + 86_400,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Reads a bearer token by the hash of its value. */
export async function getToken(db: Db, tokenHash: string): Promise<StoredToken | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: tokenKey(tokenHash) }),
  );
  if (!Item) return undefined;
  return {
    token_hash: Item.token_hash,
    key: Item.key,
    expires_at: Item.expires_at,
    created_at: Item.created_at,
  };
}
