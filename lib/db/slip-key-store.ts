import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SlipKey } from '../slip/codec.ts';
import { parseSlipKeys } from '../slip/keys.ts';

/**
 * Loads the SLIP signing keys from a Secrets Manager secret, caching them for a few minutes so a rotated
 * secret is picked up without a deploy.
 */
export function createSecretSlipKeys(options: { secretArn: string; region?: string; cacheMs?: number }) {
  const client = new SecretsManagerClient({ region: options.region });
  const cacheMs = options.cacheMs ?? 300_000;
  let cached: { keys: SlipKey[]; until: number } | undefined;
  return async (): Promise<SlipKey[]> => {
    const now = Date.now();
    if (cached && cached.until > now) return cached.keys;
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: options.secretArn }));
    const keys = parseSlipKeys(SecretString ?? '');
    cached = { keys, until: now + cacheMs };
    return keys;
  };
}
