import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new API key: an identifier, not a secret. */
export const generateApiKey = (): string => `bk_${randomBytes(12).toString('base64url')}`;

/** The longest API key accepted, far below DynamoDB's 2048-byte partition key limit. */
export const MAX_API_KEY_LENGTH = 128;

/**
 * Whether a string can be an API key: generated keys are `bk_` and base64url, and operator keys
 * (ADMIN_API_KEY) keep to the same letters, digits, `-`, `_` and `.`.
 */
export const isWellFormedApiKey = (key: string): boolean =>
  key.length <= MAX_API_KEY_LENGTH && /^[A-Za-z0-9._-]+$/.test(key);

/** A new API secret: 256 random bits, shown once and stored only as a hash. */
export const generateSecret = (): string => randomBytes(32).toString('base64url');

/** A new bearer token: 256 random bits, shown once and stored only as a hash. */
export const generateToken = (): string => `bt_${randomBytes(32).toString('base64url')}`;

/** A new random salt for a secret hash. */
export const generateSalt = (): string => randomBytes(16).toString('base64url');

/** Secrets shorter than this are refused (also for ADMIN_API_SECRET). */
export const MIN_SECRET_LENGTH = 16;

/** Secrets longer than this are refused, so a caller cannot make every request hash megabytes. */
export const MAX_SECRET_LENGTH = 1024;

/**
 * Hashes a secret with its salt. A fast hash suffices because generated secrets carry 256 random bits
 * (nothing to brute-force), and it keeps Basic authentication cheap on every request.
 */
export const hashSecret = (secret: string, salt: string): string =>
  createHash('sha256').update(salt).update('\0').update(secret).digest('base64url');

/** The lookup hash of a bearer token. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** Compares a presented secret with a stored hash in constant time. */
export function verifySecret(secret: string, salt: string, expectedHash: string): boolean {
  return sameSecret(hashSecret(secret, salt), expectedHash);
}

/** Whether two secret strings are equal, compared in constant time (the one compare of the service). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const actual = Buffer.from(given);
  const wanted = Buffer.from(expected);
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}
