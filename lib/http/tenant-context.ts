import { getCredential, getToken, recordCredentialUse } from '../access/index.ts';
import {
  DEFAULT_CONFIG_CACHE_MS,
  getAccount,
  getConfig,
  recordAccountLogin,
  type StoredConfig,
} from '../config/index.ts';

import type { Db } from '../kernel/storage/database.ts';
import { unixSeconds } from '../kernel/time.ts';
import { type EnvelopeTenant, UNKNOWN_TENANT } from './envelope.ts';
import { type TrustedProxies, trustedProxies } from './requester-address.ts';

/** The tenant fields every envelope carries, or the unknown tenant when no configuration could be read. */
export const envelopeTenant = (config: StoredConfig | undefined): EnvelopeTenant =>
  config
    ? {
        account_id: config.company.account_id,
        host_id: config.company.host_id,
        name: config.company.name,
        locale: { id: config.locale.id, lang: config.locale.lang, currency: config.locale.currency },
      }
    : UNKNOWN_TENANT;

/**
 * Caches the tenant configuration for a short time, so most requests read nothing for the envelope. With
 * `publicUrl`, the configuration carries it as `service_url`.
 */
export function createConfigCache(options: {
  db: Db;
  ttlMs?: number | undefined;
  publicUrl?: (() => string) | undefined;
}) {
  const ttl = options.ttlMs ?? DEFAULT_CONFIG_CACHE_MS;
  let cached: { config: StoredConfig; until: number } | undefined;
  return async (now: number): Promise<StoredConfig> => {
    if (cached && cached.until > now) return cached.config;
    const stored = await getConfig(options.db);
    if (!stored) throw new Error('No tenant is loaded into the table');
    const config = options.publicUrl ? { ...stored, service_url: options.publicUrl() } : stored;
    cached = { config, until: now + ttl };
    return config;
  };
}

/** The trusted proxies of a configuration (its own and `extra`), built once per configuration read. */
export const createTrustedCache = (extra: readonly string[]) => {
  const cache = new WeakMap<StoredConfig, TrustedProxies>();
  return (config: StoredConfig): TrustedProxies => {
    let list = cache.get(config);
    if (!list) {
      list = trustedProxies([...config.settings.trusted_proxies, ...extra]);
      cache.set(config, list);
    }
    return list;
  };
};

/** The credential store the access rules read, and where they record a credential's use (once a minute). */
export const accessStore = (db: Db) => ({
  getCredential: (key: string) => getCredential(db, key),
  getToken: (hash: string) => getToken(db, hash),
  getAccount: (accountId: number) => getAccount(db, accountId),
  recordUse: async (options: { key: string; accountId: number; ip: string; at: number }) => {
    const recorded = await recordCredentialUse(db, {
      key: options.key,
      at: options.at,
      notBefore: options.at - 60_000,
    });
    if (recorded) {
      await recordAccountLogin(db, {
        accountId: options.accountId,
        at: unixSeconds(options.at),
        ip: options.ip,
      });
    }
  },
});
