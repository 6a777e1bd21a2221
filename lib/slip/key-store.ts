import {
  EXTENSION_DEFAULT_PORT,
  type ExtensionSecretOptions,
  readExtensionSecret,
} from '../kernel/extension-secret.ts';
import type { SlipKey } from './codec.ts';
import { parseSlipKeys } from './keys.ts';

export { EXTENSION_DEFAULT_PORT };

/** How long an instance keeps the keys before asking the extension again (which keeps them 5 minutes). */
export const SLIP_KEYS_CACHE_MS = 60_000;

/** What reads the SLIP secret (lib/kernel/extension-secret.ts), and how long its keys are kept. */
export interface SecretSlipKeysOptions extends ExtensionSecretOptions {
  cacheMs?: number;
}

/**
 * Loads the SLIP signing keys from their Secrets Manager secret through the AWS Parameters and Secrets
 * Lambda Extension (a layer of the items, session and bookings functions), keeping them a minute, so a
 * rotated secret is picked up within six minutes without a deploy. The extension, which AWS recommends
 * over the SDK in a function, spares each of those bundles the Secrets Manager client (issue 33).
 */
export function createSecretSlipKeys(options: SecretSlipKeysOptions) {
  const cacheMs = options.cacheMs ?? SLIP_KEYS_CACHE_MS;
  let cached: { keys: SlipKey[]; until: number } | undefined;
  return async (): Promise<SlipKey[]> => {
    const now = Date.now();
    if (cached && cached.until > now) return cached.keys;
    const keys = parseSlipKeys(await readExtensionSecret(options));
    cached = { keys, until: now + cacheMs };
    return keys;
  };
}
