import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TenantWebhook } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { WEBHOOK_ENDPOINTS, webhookEndpointKey, webhookListKey } from '../kernel/storage/keys.ts';
import { queryAll, stripKeys } from '../kernel/storage/operations.ts';
import { ConditionsFailedError, transact } from '../kernel/storage/transact.ts';
import { type StoredWebhookEvent, webhookEventActions } from './outbox.ts';

/** Why an endpoint stopped receiving: its tenant file entry, a 410 Gone, or failures past the schedule. */
export type DisabledReason = 'tenant_file' | 'gone' | 'failing';

/** A webhook endpoint as stored: the tenant file's entry and the state of its deliveries. */
export interface StoredEndpoint extends TenantWebhook {
  /** Whether deliveries are made now (`enabled` is what the tenant file says). */
  active: boolean;
  disabled_reason?: DisabledReason;
  disabled_at?: number;
  last_success_at?: number;
  last_failure_at?: number;
  consecutive_failures: number;
  /** Whether the tenant file still lists it. */
  in_file: boolean;
}

/** Reads one endpoint's state. */
export async function getEndpoint(db: Db, endpointId: string): Promise<StoredEndpoint | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: webhookEndpointKey(endpointId) }),
  );
  return Item ? stripKeys<StoredEndpoint>(Item) : undefined;
}

/** Lists every endpoint, those removed from the tenant file included. */
export async function listEndpoints(db: Db): Promise<StoredEndpoint[]> {
  const records = await queryAll(db, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :list',
    ExpressionAttributeValues: { ':list': WEBHOOK_ENDPOINTS },
  });
  // The index holds the whole record: no second read per endpoint.
  return records.map((record) => stripKeys<StoredEndpoint>(record));
}

/**
 * Writes an endpoint from the tenant file: created active (unless the file disables it), changed in
 * place; the file's `enabled: false` disables it, and `true` re-enables only what the file had disabled
 * (a 410 or a failing receiver stays disabled until `enable`).
 */
export async function upsertEndpointFromFile(
  db: Db,
  options: { webhook: TenantWebhook; now: number },
): Promise<void> {
  const { webhook, now } = options;
  const existing = await getEndpoint(db, webhook.id);
  const active = webhook.enabled
    ? existing
      ? existing.active || existing.disabled_reason === 'tenant_file'
      : true
    : false;
  const disabled = active
    ? {}
    : {
        disabled_reason:
          existing && !existing.active ? (existing.disabled_reason ?? 'tenant_file') : 'tenant_file',
        disabled_at: existing && !existing.active ? (existing.disabled_at ?? now) : now,
      };
  await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookEndpointKey(webhook.id),
      UpdateExpression: `SET entity = :entity, id = :id, #url = :url, events = :events, #format = :format, enabled = :enabled, active = :active, in_file = :true, consecutive_failures = if_not_exists(consecutive_failures, :zero), created_at = if_not_exists(created_at, :now), updated_at = :now, gsi1pk = :list, gsi1sk = :id${
        active
          ? ' REMOVE disabled_reason, disabled_at'
          : ', disabled_reason = :reason, disabled_at = :disabledAt'
      }`,
      ExpressionAttributeNames: { '#url': 'url', '#format': 'format' },
      ExpressionAttributeValues: {
        ':entity': 'webhook_endpoint',
        ':id': webhook.id,
        ':url': webhook.url,
        ':events': webhook.events,
        ':format': webhook.format,
        ':enabled': webhook.enabled,
        ':active': active,
        ':true': true,
        ':zero': 0,
        ':now': now,
        ':list': webhookListKey(webhook.id).gsi1pk,
        ...(active ? {} : { ':reason': disabled.disabled_reason, ':disabledAt': disabled.disabled_at }),
      },
    }),
  );
}

/** Marks an endpoint the tenant file no longer lists: inactive, its history kept. */
export async function retireEndpoint(db: Db, options: { endpointId: string; now: number }): Promise<void> {
  await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookEndpointKey(options.endpointId),
      UpdateExpression:
        'SET in_file = :false, enabled = :false, active = :false, disabled_reason = if_not_exists(disabled_reason, :reason), disabled_at = if_not_exists(disabled_at, :now), updated_at = :now',
      ExpressionAttributeValues: { ':false': false, ':reason': 'tenant_file', ':now': options.now },
    }),
  );
}

/**
 * Disables an endpoint for a reason and records the `webhook.disabled` event (with its deliveries to the
 * endpoints that subscribe to it) in the same transaction; false, and nothing written, when the endpoint
 * was already disabled, so the event is recorded exactly once.
 */
export async function disableEndpointWithEvent(
  db: Db,
  options: {
    endpointId: string;
    reason: DisabledReason;
    now: number;
    event: StoredWebhookEvent;
    subscribers: string[];
    retentionDays: number;
  },
): Promise<boolean> {
  try {
    await transact(db, [
      {
        Update: {
          TableName: db.tableName,
          Key: webhookEndpointKey(options.endpointId),
          UpdateExpression:
            'SET active = :false, disabled_reason = :reason, disabled_at = :now, updated_at = :now',
          ConditionExpression: 'active = :true',
          ExpressionAttributeValues: {
            ':false': false,
            ':true': true,
            ':reason': options.reason,
            ':now': options.now,
          },
        },
      },
      ...webhookEventActions(db, {
        event: options.event,
        endpointIds: options.subscribers,
        retentionDays: options.retentionDays,
      }),
    ]);
    return true;
  } catch (error) {
    if (error instanceof ConditionsFailedError) return false;
    throw error;
  }
}

/** Enables an endpoint again (an operator's `enable`): deliveries resume and failures start from zero. */
export async function enableEndpoint(db: Db, options: { endpointId: string; now: number }): Promise<void> {
  await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookEndpointKey(options.endpointId),
      UpdateExpression:
        'SET active = :true, consecutive_failures = :zero, updated_at = :now REMOVE disabled_reason, disabled_at',
      ExpressionAttributeValues: { ':true': true, ':zero': 0, ':now': options.now },
    }),
  );
}

/** Records an attempt's outcome on its endpoint: the last success, or one more failure in a row. */
export async function recordEndpointOutcome(
  db: Db,
  options: { endpointId: string; success: boolean; now: number },
): Promise<void> {
  await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookEndpointKey(options.endpointId),
      UpdateExpression: options.success
        ? 'SET last_success_at = :now, consecutive_failures = :zero'
        : 'SET last_failure_at = :now ADD consecutive_failures :one',
      ExpressionAttributeValues: options.success
        ? { ':now': options.now, ':zero': 0 }
        : { ':now': options.now, ':one': 1 },
    }),
  );
}
