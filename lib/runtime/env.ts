import { createDb, type DbOptions } from '../kernel/storage/database.ts';
import type { SlipKey } from '../slip/index.ts';
import { createSecretSlipKeys, EXTENSION_DEFAULT_PORT, parseSlipKeys } from '../slip/index.ts';

import { createMetrics } from './metrics.ts';

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
 * The SLIP keys of a deployed function: inline (SLIP_KEYS: the local runner, the benchmark) or read through
 * the secrets extension (SLIP_SECRET_ARN: items, session and bookings); undefined for a function without.
 */
export function slipKeysFromEnv(): (() => Promise<readonly SlipKey[]>) | undefined {
  const inlineKeys = process.env.SLIP_KEYS ? parseSlipKeys(process.env.SLIP_KEYS) : undefined;
  const secretArn = process.env.SLIP_SECRET_ARN;
  if (inlineKeys) return async () => inlineKeys;
  if (!secretArn) return undefined;
  return createSecretSlipKeys({
    secretArn,
    port: numberFromEnv('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT', EXTENSION_DEFAULT_PORT),
    sessionToken: process.env.AWS_SESSION_TOKEN,
  });
}
