import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DEFAULT_CONFIG_CACHE_MS } from '../config/limits.ts';
import { createDb, type Db, type DbOptions } from '../db/client.ts';
import { createSecretSlipKeys, EXTENSION_DEFAULT_PORT } from '../db/slip-key-store.ts';
import { parseSlipKeys } from '../slip/keys.ts';
import type { ApiDeps } from './api.ts';
import { edgeOriginFromEnv } from './edge-origin.ts';
import { createMetrics } from './observability.ts';
import { parsePublicUrl } from './public-url.ts';

/** An environment variable a deployed function cannot run without: its absence fails the cold start. */
export const requiredEnv = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Missing environment variable ${name}`);
  return value;
};

/**
 * The table of a deployed function (TABLE_NAME, and DYNAMODB_ENDPOINT for a local one); `instrument` is a
 * traced function's tracer (`tracedDbFromEnv` in tracing.ts: channel sync).
 */
export const dbFromEnv = (instrument?: DbOptions['instrument']) =>
  createDb({
    tableName: requiredEnv('TABLE_NAME'),
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: process.env.AWS_REGION,
    ...(instrument ? { instrument } : {}),
  });

/** The metrics of a deployed function, with its tenant (TENANT) as a dimension. */
export const metricsFromEnv = () => createMetrics(requiredEnv('TENANT'));

/** A number from the environment, or its default. */
export const numberFromEnv = (name: string, fallback: number): number =>
  Number(process.env[name] ?? fallback);

/**
 * The dependencies of a deployed function, read from its environment once at cold start: a missing
 * variable fails the cold start, not a request. The SLIP keys are inline (SLIP_KEYS: the local runner,
 * the benchmark) or read through the secrets extension (SLIP_SECRET_ARN: items, session and bookings).
 * The channels function passes its traced table and its metrics, which its scheduled round shares. With
 * EDGE_PROXIES and EDGE_ORIGIN_TOKEN, CloudFront is in front (`edgeOriginFromEnv`).
 */
export function runtimeFromEnv(options: { db?: Db; metrics?: Metrics } = {}): ApiDeps {
  const publicUrl = parsePublicUrl(requiredEnv('PUBLIC_URL'));
  const region = process.env.AWS_REGION;
  const inlineKeys = process.env.SLIP_KEYS ? parseSlipKeys(process.env.SLIP_KEYS) : undefined;
  const secretArn = process.env.SLIP_SECRET_ARN;
  const slipKeys = inlineKeys
    ? async () => inlineKeys
    : secretArn
      ? createSecretSlipKeys({
          secretArn,
          port: numberFromEnv('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT', EXTENSION_DEFAULT_PORT),
          sessionToken: process.env.AWS_SESSION_TOKEN,
        })
      : undefined;
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
