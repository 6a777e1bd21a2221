import { randomBytes } from 'node:crypto';
import type { SlipKey } from './codec.ts';

/** The shortest SLIP signing secret accepted. */
const MIN_SLIP_SECRET_LENGTH = 32;

/**
 * Reads SLIP keys from text: secrets separated by commas or white space, the first signing and every
 * one verifying (put the new key first and keep the old one while its SLIPs may still be in use).
 */
export function parseSlipKeys(text: string): SlipKey[] {
  const secrets = text.split(/[\s,]+/).filter((secret) => secret !== '');
  if (secrets.length === 0) throw new Error('No SLIP signing key configured');
  for (const secret of secrets) {
    if (secret.length < MIN_SLIP_SECRET_LENGTH) {
      throw new Error(`A SLIP signing key must be at least ${MIN_SLIP_SECRET_LENGTH} characters`);
    }
  }
  return secrets.map((secret) => ({ secret }));
}

/** A new random SLIP signing secret. */
export const generateSlipSecret = (): string => randomBytes(32).toString('base64url');
