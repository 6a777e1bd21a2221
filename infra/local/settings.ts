import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseTenant, type Tenant } from '#lib/config/index.ts';
import { parseProxyList } from '#lib/http/requester-address.ts';
import { createDb, type Db } from '#lib/kernel/storage/database.ts';
import {
  createFileSecretStore,
  createSecretsManagerStore,
  type WebhookSecretStore,
} from '#lib/webhooks/index.ts';

/** The local runner's knobs, from the environment (design §4). */
export const localSettings = () => ({
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  dataDir: resolve(process.env.DATA_DIR ?? '.data'),
  dynamoEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
  tenantFile: resolve(process.env.TENANT_FILE ?? 'infra/tenants/demo.json'),
  adminKey: process.env.ADMIN_API_KEY || undefined,
  adminSecret: process.env.ADMIN_API_SECRET || undefined,
  sweepIntervalMs: Number(process.env.SWEEP_INTERVAL_MS ?? 15_000),
  webhookIntervalMs: Number(process.env.WEBHOOK_INTERVAL_MS ?? 1_000),
  // Channel feeds are polled as the stack's schedule does: every five minutes.
  channelSyncIntervalMs: Number(process.env.CHANNEL_SYNC_INTERVAL_MS ?? 300_000),
  // The CPU time one feed's read may take (5 s, READ_BUDGET_MS, unless set).
  channelReadBudgetMs: process.env.CHANNEL_READ_BUDGET_MS
    ? Number(process.env.CHANNEL_READ_BUDGET_MS)
    : undefined,
  tableName: process.env.TABLE_NAME || undefined,
  trustedProxies: parseProxyList(process.env.TRUSTED_PROXIES),
  // Where guests reach this runner when it is not its own address (a tunnel, a proxy): the links' base.
  publicUrl: process.env.PUBLIC_URL || undefined,
  // The benchmark's opt-in: count the request path's DynamoDB calls and capacity into this file.
  usageFile: process.env.DYNAMODB_USAGE_FILE || undefined,
});

/** The table name of a tenant when TABLE_NAME does not say otherwise. */
export const defaultTableName = (tenant: string): string => `booking-${tenant}`;

/** Where a running `npm start` says its DynamoDB is, so the CLIs can reach it. */
export const connectionFile = (dataDir: string): string => join(dataDir, 'connection.json');

/** Where `npm start` keeps the webhook endpoints' signing secrets (mode 600). */
export const webhookSecretsFile = (dataDir: string): string => join(dataDir, 'webhook-secrets.json');

/** A tenant file problem list, printed one problem a line. */
export class TenantFileError extends Error {
  constructor(file: string, problems: { path: string; message: string }[]) {
    super(
      `${file} is not a valid tenant file:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`,
    );
    this.name = 'TenantFileError';
  }
}

/** Reads and validates a tenant file, listing every problem by path when it is invalid. */
export function readTenantFile(file: string): Tenant {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new TenantFileError(file, [{ path: '(file)', message: (error as Error).message }]);
  }
  const result = parseTenant(raw);
  if (!result.ok) throw new TenantFileError(file, result.problems);
  return result.tenant;
}

/**
 * The table the CLIs work on: DYNAMODB_ENDPOINT and TABLE_NAME when set (AWS when no endpoint is set),
 * otherwise the DynamoDB Local of the `npm start` running on DATA_DIR.
 */
export function connectForCli(): Db {
  const settings = localSettings();
  const file = connectionFile(settings.dataDir);
  if (!settings.dynamoEndpoint && !settings.tableName && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { endpoint: string; tableName: string };
    return createDb({ endpoint: saved.endpoint, tableName: saved.tableName });
  }
  if (!settings.tableName) {
    throw new Error(
      `Set TABLE_NAME (and DYNAMODB_ENDPOINT for a local table), or start the service (no ${file})`,
    );
  }
  return createDb({
    endpoint: settings.dynamoEndpoint,
    tableName: settings.tableName,
    region: process.env.AWS_REGION,
  });
}

/**
 * Whether the CLIs work on a local table (the running `npm start`, or DYNAMODB_ENDPOINT): outbound fetches
 * then follow the local policy (http and loopback allowed), otherwise the deployed one.
 */
export function cliIsLocal(): boolean {
  const settings = localSettings();
  if (settings.dynamoEndpoint) return true;
  return !settings.tableName && existsSync(connectionFile(settings.dataDir));
}

/**
 * The webhook secrets the CLIs work on: the tenant stack's Secrets Manager secret when
 * WEBHOOK_SECRETS_ARN is set, otherwise the file of the `npm start` on DATA_DIR.
 */
export function webhookSecretsForCli(): WebhookSecretStore {
  const arn = process.env.WEBHOOK_SECRETS_ARN;
  return arn
    ? createSecretsManagerStore({ secretArn: arn, region: process.env.AWS_REGION, cacheMs: 0 })
    : createFileSecretStore(webhookSecretsFile(localSettings().dataDir));
}
