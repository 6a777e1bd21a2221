import type { AccountGrant } from '../config/index.ts';
import type { Caller } from './caller.ts';
import { AccessError, AuthError } from './errors.ts';
import {
  hashToken,
  isWellFormedApiKey,
  MAX_SECRET_LENGTH,
  MIN_SECRET_LENGTH,
  verifySecret,
} from './secrets.ts';

/** The stored facts access checks need, behind an interface so the rules stay free of I/O details. */
export interface AccessStore {
  getCredential(key: string): Promise<
    | {
        key: string;
        account_id: number;
        on_behalf: boolean;
        status: 'active' | 'revoked';
        secret_hash: string;
        salt: string;
        last_used_at: number;
        rotated_at: number;
      }
    | undefined
  >;
  getToken(tokenHash: string): Promise<{ key: string; expires_at: number; created_at: number } | undefined>;
  getAccount(
    accountId: number,
  ): Promise<{ enabled: boolean; partner?: boolean; grants?: readonly AccountGrant[] } | undefined>;
  recordUse(options: { key: string; accountId: number; ip: string; at: number }): Promise<void>;
}

/** What the caller presented. */
export interface Presented {
  authorization?: string;
  accessToken?: unknown;
  onBehalf?: string;
  sourceIp: string;
}

/** How often a credential's last use (and its account's last sign-in) is written. */
export const RECORD_USE_INTERVAL_MS = 15 * 60_000;

/** The longest bearer token accepted (generated ones have 46 characters). */
const MAX_TOKEN_LENGTH = 512;

/** The longest Authorization header read at all; anything longer is refused before it is decoded. */
const MAX_AUTHORIZATION_LENGTH = 4096;

type Proof = { kind: 'basic'; key: string; secret: string } | { kind: 'bearer'; token: string };

const readBearer = (token: string): Proof => {
  if (token.length > MAX_TOKEN_LENGTH) throw new AuthError('invalid_token', 'The bearer token is too long');
  return { kind: 'bearer', token };
};

// Every bound is checked here, before a lookup: an oversized key would reach DynamoDB as a partition key
// and fail there with a 500 instead of a 401.
const readProof = (presented: Presented): Proof | undefined => {
  const raw = presented.authorization ?? '';
  const header = raw.trim();
  if (header) {
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : header.slice(space + 1).trim();
    if (raw.length > MAX_AUTHORIZATION_LENGTH) {
      throw new AuthError(
        scheme === 'bearer' ? 'invalid_token' : 'unauthorized',
        'The Authorization header is too long',
      );
    }
    if (scheme === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon <= 0) throw new AuthError('unauthorized', 'Malformed Basic credentials');
      const key = decoded.slice(0, colon);
      const secret = decoded.slice(colon + 1);
      if (!isWellFormedApiKey(key) || secret.length > MAX_SECRET_LENGTH) {
        throw new AuthError('unauthorized', 'Invalid API key or secret');
      }
      return { kind: 'basic', key, secret };
    }
    if (scheme === 'bearer') {
      if (!value) throw new AuthError('invalid_token', 'Empty bearer token');
      return readBearer(value);
    }
    throw new AuthError('unauthorized', 'Unsupported authorization scheme; use Basic or Bearer');
  }
  if (presented.accessToken === undefined) return undefined;
  if (typeof presented.accessToken !== 'string' || presented.accessToken === '') {
    throw new AuthError('invalid_token', 'access_token must be one non-empty string');
  }
  return readBearer(presented.accessToken);
};

const credentialOf = async (store: AccessStore, proof: Proof, now: number) => {
  if (proof.kind === 'basic') {
    const credential = await store.getCredential(proof.key);
    const valid =
      credential !== undefined &&
      credential.status === 'active' &&
      proof.secret.length >= MIN_SECRET_LENGTH &&
      verifySecret(proof.secret, credential.salt, credential.secret_hash);
    if (!valid) throw new AuthError('unauthorized', 'Invalid API key or secret');
    return credential;
  }
  const token = await store.getToken(hashToken(proof.token));
  if (!token) throw new AuthError('invalid_token', 'Unknown bearer token');
  if (token.expires_at <= now) throw new AuthError('invalid_token', 'The bearer token has expired');
  const credential = await store.getCredential(token.key);
  if (credential?.status !== 'active') {
    throw new AuthError('invalid_token', 'The credential behind this token was revoked');
  }
  // A token issued in the very millisecond of a rotation counts as issued under the new secret; the
  // negated form also refuses a record that lacks either time.
  if (!(token.created_at >= credential.rotated_at)) {
    throw new AuthError('invalid_token', 'The bearer token was issued before the secret was rotated');
  }
  return credential;
};

/**
 * Resolves the caller from the Authorization header (Basic or Bearer), the `access_token` parameter and
 * `X-On-Behalf`. A present but invalid credential is always refused, never downgraded to a customer.
 */
export async function resolveCaller(store: AccessStore, presented: Presented, now: number): Promise<Caller> {
  const proof = readProof(presented);
  if (!proof) return { kind: 'customer' };
  const credential = await credentialOf(store, proof, now);
  const account = await store.getAccount(credential.account_id);
  if (!account?.enabled) throw new AuthError('unauthorized', 'The account of this credential is disabled');

  if (credential.last_used_at < now - RECORD_USE_INTERVAL_MS) {
    await store.recordUse({
      key: credential.key,
      accountId: credential.account_id,
      ip: presented.sourceIp,
      at: now,
    });
  }

  const onBehalf = presented.onBehalf?.trim().toLowerCase() ?? '';
  // A partner's own credential: its bookings are attributed to it and it sees only those.
  const partner = account.partner ? { partnerId: credential.account_id } : {};
  if (onBehalf === 'off') return { kind: 'customer', credentialKey: credential.key, ...partner };
  const staff = {
    kind: 'staff' as const,
    credentialKey: credential.key,
    credentialAccountId: credential.account_id,
  };
  if (onBehalf === '' || onBehalf === String(credential.account_id)) {
    return {
      ...staff,
      accountId: credential.account_id,
      // Accounts loaded before grants existed have none.
      ...(account.partner ? { ...partner, partnerOnly: true, grants: account.grants ?? [] } : {}),
    };
  }
  if (!/^\d{1,10}$/.test(onBehalf)) {
    throw new AccessError('validation_error', 'X-On-Behalf must be an account id or "off"', {
      'X-On-Behalf': 'an account id or "off"',
    });
  }
  if (account.partner || !credential.on_behalf) {
    throw new AccessError('forbidden', 'This credential may not act on behalf of other accounts');
  }
  const accountId = Number(onBehalf);
  const target = await store.getAccount(accountId);
  if (!target?.enabled) {
    throw new AccessError('forbidden', `Account ${accountId} does not exist or is disabled`);
  }
  // Staff acting for a partner book in its name (attributed), but keep their own view.
  return { ...staff, accountId, ...(target.partner ? { partnerId: accountId } : {}) };
}

/** Webhooks and channels are the whole tenant's: a partner's own credential may not see or steer them. */
export const assertNotPartner = (caller: Caller, what: 'webhooks' | 'channels' | 'payments' = 'webhooks') => {
  if (caller.kind === 'staff' && caller.partnerOnly) {
    throw new AccessError('forbidden', `A partner credential may not manage ${what}`);
  }
};
