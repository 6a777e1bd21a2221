import { request } from 'node:http';
import type { SlipKey } from './codec.ts';
import { parseSlipKeys } from './keys.ts';

/** Where the AWS Parameters and Secrets Lambda Extension listens unless told otherwise. */
export const EXTENSION_DEFAULT_PORT = 2773;

/** How long an instance keeps the keys before asking the extension again (which keeps them 5 minutes). */
export const SLIP_KEYS_CACHE_MS = 60_000;

/** What reads the SLIP secret: the extension's port and the token it checks (the function's session). */
export interface SecretSlipKeysOptions {
  secretArn: string;
  port?: number;
  sessionToken?: string;
  cacheMs?: number;
  /** Milliseconds the extension may take to answer (it calls Secrets Manager on a cache miss). */
  timeoutMs?: number;
}

/**
 * GETs the secret from the extension on localhost (`/secretsmanager/get`), as Secrets Manager's
 * GetSecretValue answers it. node:http rather than fetch: the SDK has loaded it already, and fetch's first
 * use would load undici during a guest's first request.
 */
const getSecretString = (options: SecretSlipKeysOptions): Promise<string> =>
  new Promise((resolve, reject) => {
    const path = `/secretsmanager/get?secretId=${encodeURIComponent(options.secretArn)}`;
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port ?? EXTENSION_DEFAULT_PORT,
        path,
        headers: { 'X-Aws-Parameters-Secrets-Token': options.sessionToken ?? '' },
        timeout: options.timeoutMs ?? 5_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) {
            reject(new Error(`The secrets extension answered ${response.statusCode}: ${text.slice(0, 200)}`));
            return;
          }
          const { SecretString } = JSON.parse(text) as { SecretString?: string };
          resolve(SecretString ?? '');
        });
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('The secrets extension did not answer in time')));
    req.on('error', reject);
    req.end();
  });

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
    const keys = parseSlipKeys(await getSecretString(options));
    cached = { keys, until: now + cacheMs };
    return keys;
  };
}
