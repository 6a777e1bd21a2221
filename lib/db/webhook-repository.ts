import {
  GetCommand,
  QueryCommand,
  type QueryCommandOutput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { TenantWebhook } from '../config/tenant-schema.ts';
import { unixSeconds } from '../core/time.ts';
import type { StoredBooking, StoredEvent, StoredNote, StoredPayment } from './booking-repository.ts';
import type { Db } from './client.ts';
import {
  monthsBetween,
  WEBHOOK_DELIVERY_PREFIX,
  WEBHOOK_DUE,
  WEBHOOK_ENDPOINTS,
  webhookDeliveryKey,
  webhookEndpointKey,
  webhookEventIndexKeys,
  webhookEventKey,
  webhookEventMonthPartition,
  webhookListKey,
  webhookPartition,
  webhookPendingKeys,
} from './keys.ts';
import { applyIfCondition, queryAll, stripKeys } from './operations.ts';
import type { TransactItem } from './transact.ts';

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

/** The booking as it was at an event: what a webhook payload shows, whenever it is delivered. */
export interface BookingSnapshot {
  booking: StoredBooking;
  notes: StoredNote[];
  payments: StoredPayment[];
}

/** An event kept for delivery. */
export interface StoredWebhookEvent {
  event: StoredEvent;
  booking_id: number;
  /** The booking at that event; absent for events that are not about a booking (`webhook.disabled`). */
  snapshot?: BookingSnapshot;
}

/** What happened on one attempt. */
export interface DeliveryAttempt {
  at: number;
  status: number;
  duration_ms: number;
  outcome: string;
  error?: string;
  /** At most the first 1 KB of the response. */
  body?: string;
}

/** The delivery of one event to one endpoint. */
export interface StoredDelivery {
  endpoint_id: string;
  event_id: string;
  event_type: string;
  event_at: number;
  booking_id: number;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  /** Failed attempts since the last success or replay: the position in the retry schedule. */
  failures: number;
  next_at: number;
  attempts: DeliveryAttempt[];
  lease_until?: number;
  created_at: number;
  updated_at: number;
}

/** How many attempts a delivery keeps in its log. */
const ATTEMPTS_KEPT = 10;
const DAY_SECONDS = 86_400;

const expiryOf = (nowMs: number, retentionDays: number) => unixSeconds(nowMs) + retentionDays * DAY_SECONDS;

const deliveryItem = (delivery: StoredDelivery, ttl: number) => ({
  ...webhookDeliveryKey(delivery.endpoint_id, delivery.event_at, delivery.event_id),
  entity: 'webhook_delivery',
  ...delivery,
  ...(delivery.status === 'pending'
    ? webhookPendingKeys({
        endpointId: delivery.endpoint_id,
        bookingId: delivery.booking_id,
        eventAtMs: delivery.event_at,
        eventId: delivery.event_id,
        nextAtMs: delivery.next_at,
      })
    : {}),
  ttl,
});

/**
 * The outbox writes of one event, for the transaction that records it: the event with the booking as it
 * is now, and a pending delivery to each endpoint that subscribes to it.
 */
export function webhookEventActions(
  db: Db,
  options: { event: StoredWebhookEvent; endpointIds: string[]; retentionDays: number },
): TransactItem[] {
  const { event } = options;
  if (options.endpointIds.length === 0) return [];
  const at = event.event.at;
  const ttl = expiryOf(at, options.retentionDays);
  return [
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...webhookEventKey(event.event.event_id),
          entity: 'webhook_event',
          event: event.event,
          booking_id: event.booking_id,
          // One string: a snapshot may hold empty strings and deep maps, which DynamoDB stores awkwardly.
          ...(event.snapshot ? { snapshot: JSON.stringify(event.snapshot) } : {}),
          ...webhookEventIndexKeys(at, event.event.event_id),
          ttl,
        },
      },
    },
    ...options.endpointIds.map((endpointId) => ({
      Put: {
        TableName: db.tableName,
        Item: deliveryItem(
          {
            endpoint_id: endpointId,
            event_id: event.event.event_id,
            event_type: event.event.type,
            event_at: at,
            booking_id: event.booking_id,
            status: 'pending',
            failures: 0,
            next_at: at,
            attempts: [],
            created_at: at,
            updated_at: at,
          },
          ttl,
        ),
      },
    })),
  ];
}

const eventOf = (item: Record<string, unknown>): StoredWebhookEvent => ({
  event: item.event as StoredEvent,
  booking_id: Number(item.booking_id),
  ...(typeof item.snapshot === 'string' ? { snapshot: JSON.parse(item.snapshot) as BookingSnapshot } : {}),
});

/** Reads an event kept for delivery. */
export async function getWebhookEvent(db: Db, eventId: string): Promise<StoredWebhookEvent | undefined> {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: webhookEventKey(eventId) }),
  );
  return Item ? eventOf(Item) : undefined;
}

/** Lists the events kept for delivery from `from` to `to` (milliseconds), oldest first, at most `limit`. */
export async function listWebhookEventsBetween(
  db: Db,
  options: { from: number; to: number; limit: number },
): Promise<StoredWebhookEvent[]> {
  const found: StoredWebhookEvent[] = [];
  // A range that ends before it starts holds nothing (and DynamoDB refuses a BETWEEN that way round).
  if (options.from > options.to) return found;
  const pad = (ms: number) => String(Math.max(0, ms)).padStart(15, '0');
  for (const month of monthsBetween(unixSeconds(options.from), unixSeconds(options.to)).reverse()) {
    const records = await queryAll(db, {
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :month AND gsi3sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':month': webhookEventMonthPartition(month),
        ':from': pad(options.from),
        ':to': `${pad(options.to)}~`,
      },
    });
    for (const record of records) {
      found.push(eventOf(record));
      if (found.length >= options.limit) return found;
    }
  }
  return found;
}

/** Writes an event that is not part of a booking change (`webhook.disabled`) and its deliveries. */
export async function putWebhookEvent(
  db: Db,
  options: { event: StoredWebhookEvent; endpointIds: string[]; retentionDays: number },
): Promise<void> {
  const actions = webhookEventActions(db, options);
  if (actions.length) await db.client.send(new TransactWriteCommand({ TransactItems: actions }));
}

/** Lists the deliveries due at `now` (milliseconds), the earliest first, at most `limit`. */
export async function listDueDeliveries(
  db: Db,
  options: { now: number; limit: number },
): Promise<StoredDelivery[]> {
  const { Items } = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :due AND gsi2sk <= :now',
      ExpressionAttributeValues: { ':due': WEBHOOK_DUE, ':now': `${String(options.now).padStart(15, '0')}~` },
      Limit: options.limit,
    }),
  );
  return (Items ?? []).map((item) => stripKeys<StoredDelivery>(item));
}

/** The first pending delivery of a booking's events to an endpoint: only it may be attempted. */
export async function firstPendingOfBooking(
  db: Db,
  options: { endpointId: string; bookingId: number },
): Promise<{ event_id: string } | undefined> {
  const { gsi1pk } = webhookPendingKeys({ ...options, eventAtMs: 0, eventId: '', nextAtMs: 0 });
  const { Items } = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :order',
      ExpressionAttributeValues: { ':order': gsi1pk },
      Limit: 1,
    }),
  );
  const first = Items?.[0];
  return first ? { event_id: String(first.event_id) } : undefined;
}

/**
 * Claims a pending delivery for one attempt until `leaseUntil`, so two dispatchers never send it at once;
 * false when it is no longer pending or someone else holds it.
 */
export function claimDelivery(
  db: Db,
  options: { delivery: StoredDelivery; now: number; leaseUntil: number },
): Promise<boolean> {
  const { delivery } = options;
  return applyIfCondition(() =>
    db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: webhookDeliveryKey(delivery.endpoint_id, delivery.event_at, delivery.event_id),
        UpdateExpression: 'SET lease_until = :lease',
        ConditionExpression:
          '#status = :pending AND (attribute_not_exists(lease_until) OR lease_until < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':lease': options.leaseUntil,
          ':now': options.now,
          ':pending': 'pending',
        },
      }),
    ),
  );
}

/**
 * Records the end of an attempt (or a skip): the delivery's new status, failures and next time, with the
 * attempt added to its log; pending deliveries keep their index keys, the others lose them.
 */
export async function finishDelivery(
  db: Db,
  options: {
    delivery: StoredDelivery;
    status: StoredDelivery['status'];
    failures: number;
    nextAt: number;
    attempt?: DeliveryAttempt;
    now: number;
  },
): Promise<void> {
  const { delivery } = options;
  const attempts = options.attempt
    ? [...delivery.attempts, options.attempt].slice(-ATTEMPTS_KEPT)
    : delivery.attempts;
  const pending = options.status === 'pending';
  const keys = webhookPendingKeys({
    endpointId: delivery.endpoint_id,
    bookingId: delivery.booking_id,
    eventAtMs: delivery.event_at,
    eventId: delivery.event_id,
    nextAtMs: options.nextAt,
  });
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookDeliveryKey(delivery.endpoint_id, delivery.event_at, delivery.event_id),
      UpdateExpression: pending
        ? 'SET #status = :status, failures = :failures, next_at = :next, attempts = :attempts, updated_at = :now, gsi1pk = :g1pk, gsi1sk = :g1sk, gsi2pk = :g2pk, gsi2sk = :g2sk REMOVE lease_until'
        : 'SET #status = :status, failures = :failures, next_at = :next, attempts = :attempts, updated_at = :now REMOVE lease_until, gsi1pk, gsi1sk, gsi2pk, gsi2sk',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': options.status,
        ':failures': options.failures,
        ':next': options.nextAt,
        ':attempts': attempts,
        ':now': options.now,
        ...(pending
          ? { ':g1pk': keys.gsi1pk, ':g1sk': keys.gsi1sk, ':g2pk': keys.gsi2pk, ':g2sk': keys.gsi2sk }
          : {}),
      },
    }),
  );
}

/**
 * Makes an event due again for an endpoint (a replay): its delivery, new or delivered before, becomes
 * pending now with a fresh retry schedule and keeps its attempt log.
 */
export async function requeueDelivery(
  db: Db,
  options: { endpointId: string; event: StoredWebhookEvent; now: number; retentionDays: number },
): Promise<void> {
  const { event } = options;
  const keys = webhookPendingKeys({
    endpointId: options.endpointId,
    bookingId: event.booking_id,
    eventAtMs: event.event.at,
    eventId: event.event.event_id,
    nextAtMs: options.now,
  });
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookDeliveryKey(options.endpointId, event.event.at, event.event.event_id),
      UpdateExpression:
        'SET entity = :entity, endpoint_id = :endpoint, event_id = :eventId, event_type = :type, event_at = :at, booking_id = :booking, #status = :pending, failures = :zero, next_at = :now, attempts = if_not_exists(attempts, :none), created_at = if_not_exists(created_at, :now), updated_at = :now, gsi1pk = :g1pk, gsi1sk = :g1sk, gsi2pk = :g2pk, gsi2sk = :g2sk, #ttl = :ttl REMOVE lease_until',
      ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':entity': 'webhook_delivery',
        ':endpoint': options.endpointId,
        ':eventId': event.event.event_id,
        ':type': event.event.type,
        ':at': event.event.at,
        ':booking': event.booking_id,
        ':pending': 'pending',
        ':zero': 0,
        ':now': options.now,
        ':none': [],
        ':g1pk': keys.gsi1pk,
        ':g1sk': keys.gsi1sk,
        ':g2pk': keys.gsi2pk,
        ':g2sk': keys.gsi2sk,
        ':ttl': expiryOf(options.now, options.retentionDays),
      },
    }),
  );
}

/** A page of an endpoint's deliveries, newest first: the pages before it are read past, the total counted. */
export async function listDeliveriesOfEndpoint(
  db: Db,
  options: { endpointId: string; skip: number; take: number },
): Promise<{ rows: StoredDelivery[]; total: number }> {
  const query = {
    TableName: db.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': webhookPartition(options.endpointId),
      ':prefix': WEBHOOK_DELIVERY_PREFIX,
    },
  };
  let total = 0;
  let cursor: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await db.client.send(
      new QueryCommand({ ...query, Select: 'COUNT', ExclusiveStartKey: cursor }),
    );
    total += page.Count ?? 0;
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  const rows: Record<string, unknown>[] = [];
  const wanted = options.skip + options.take;
  do {
    const page: QueryCommandOutput = await db.client.send(
      new QueryCommand({
        ...query,
        ScanIndexForward: false,
        Limit: wanted - rows.length,
        ExclusiveStartKey: cursor,
      }),
    );
    rows.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor && rows.length < wanted);
  return { rows: rows.slice(options.skip).map((row) => stripKeys<StoredDelivery>(row)), total };
}

/** Reads one endpoint's state. */
export async function getEndpoint(db: Db, endpointId: string): Promise<StoredEndpoint | undefined> {
  const { Item } = await db.client.send(
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
  const endpoints = await Promise.all(records.map((record) => getEndpoint(db, String(record.id))));
  return endpoints.filter((endpoint): endpoint is StoredEndpoint => endpoint !== undefined);
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
  await db.client.send(
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
  await db.client.send(
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
 * Disables an endpoint for a reason; true only for the call that disabled it (an endpoint already
 * disabled stays as it was), so the `webhook.disabled` event is recorded once.
 */
export function disableEndpoint(
  db: Db,
  options: { endpointId: string; reason: DisabledReason; now: number },
): Promise<boolean> {
  return applyIfCondition(() =>
    db.client.send(
      new UpdateCommand({
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
      }),
    ),
  );
}

/** Enables an endpoint again (an operator's `enable`): deliveries resume and failures start from zero. */
export async function enableEndpoint(db: Db, options: { endpointId: string; now: number }): Promise<void> {
  await db.client.send(
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
  await db.client.send(
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
