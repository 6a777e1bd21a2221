import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DEFAULT_CONFIG_CACHE_MS } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { dbFromEnv, metricsFromEnv, numberFromEnv, requiredEnv, slipKeysFromEnv } from '../runtime/env.ts';
import { edgeOriginFromEnv } from './edge-origin.ts';
import type { ApiDeps } from './group-handler.ts';
import { parsePublicUrl } from './public-url.ts';

/**
 * The dependencies of a deployed function, read from its environment once at cold start: a missing
 * variable fails the cold start, not a request. The SLIP keys are inline (SLIP_KEYS: the local runner,
 * the benchmark) or read through the secrets extension (SLIP_SECRET_ARN: items, session and bookings).
 * The channels function passes its traced table and its metrics, which its scheduled round shares. With
 * EDGE_PROXIES and EDGE_ORIGIN_TOKEN, CloudFront is in front (`edgeOriginFromEnv`).
 */
export function apiDepsFromEnv(options: { db?: Db; metrics?: Metrics } = {}): ApiDeps {
  const publicUrl = parsePublicUrl(requiredEnv('PUBLIC_URL'));
  const region = process.env.AWS_REGION;
  const slipKeys = slipKeysFromEnv();
  const edge = edgeOriginFromEnv(process.env);
  return {
    ...(slipKeys ? { slipKeys } : {}),
    ...(edge ? { edge } : {}),
    db: options.db ?? dbFromEnv(),
    metrics: options.metrics ?? metricsFromEnv(),
    publicUrl: () => publicUrl,
    provider: region ? `aws:${region}` : 'local',
    configTtlMs: numberFromEnv('CONFIG_CACHE_MS', DEFAULT_CONFIG_CACHE_MS),
  };
}
