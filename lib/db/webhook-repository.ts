import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand, QueryCommand, type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
import type { StoredConfig } from './tenant-repository.ts';
import { ConditionsFailedError, type TransactItem, transact } from './transact.ts';

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

/** The tenant settings a booking is shown with (names, money, dates, taxes), as they were at the event. */
export type SnapshotConfig = Pick<StoredConfig, 'statuses' | 'taxes' | 'locale'> & { timezone: string };

/** The booking as it was at an event: what a webhook payload shows, whenever it is delivered. */
export interface BookingSnapshot {
  booking: StoredBooking;
  notes: StoredNote[];
  payments: StoredPayment[];
  config?: SnapshotConfig;
  /** Notes left out because the snapshot would not fit in one record (counted here). */
  notes_omitted?: number;
}

/** An event kept for delivery. */
export interface StoredWebhookEvent {
  event: StoredEvent;
  booking_id: number;
  /** The booking's version after the change (0 for an event about no booking): the delivery order. */
  sequence: number;
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
  sequence: number;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  /** Failed attempts since the last success or replay: the position in the retry schedule. */
  failures: number;
  next_at: number;
  attempts: DeliveryAttempt[];
  lease_until?: number;
  /** Who holds the lease: only its attempt may finish the delivery. */
  lease_id?: string;
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
        sequence: delivery.sequence,
        eventAtMs: delivery.event_at,
        eventId: delivery.event_id,
        nextAtMs: delivery.next_at,
      })
    : {}),
  ttl,
});

/** A snapshot stays under this size (compressed), so an event record never outgrows DynamoDB's 400 KB. */
const SNAPSHOT_LIMIT = 300_000;

/** A snapshot as stored: compressed JSON, without the notes if even that would not fit. */
export function packSnapshot(snapshot: BookingSnapshot): Uint8Array {
  const packed = deflateRawSync(JSON.stringify(snapshot));
  if (packed.length <= SNAPSHOT_LIMIT) return packed;
  return deflateRawSync(
    JSON.stringify({
      ...snapshot,
      notes: [],
      notes_omitted: snapshot.notes.length,
    } satisfies BookingSnapshot),
  );
}

const unpackSnapshot = (stored: unknown): BookingSnapshot | undefined => {
  if (stored instanceof Uint8Array)
    return JSON.parse(inflateRawSync(stored).toString('utf8')) as BookingSnapshot;
  return typeof stored === 'string' ? (JSON.parse(stored) as BookingSnapshot) : undefined;
};

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
          sequence: event.sequence,
          // Compressed in one binary attribute: a booking with many notes stays well under 400 KB.
          ...(event.snapshot ? { snapshot: packSnapshot(event.snapshot) } : {}),
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
            sequence: event.sequence,
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

const eventOf = (item: Record<string, unknown>): StoredWebhookEvent => {
  const snapshot = unpackSnapshot(item.snapshot);
  return {
    event: item.event as StoredEvent,
    booking_id: Number(item.booking_id),
    sequence: Number(item.sequence ?? 0),
    ...(snapshot ? { snapshot } : {}),
  };
};

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
): Promise<StoredDelivery | undefined> {
  const { gsi1pk } = webhookPendingKeys({ ...options, sequence: 0, eventAtMs: 0, eventId: '', nextAtMs: 0 });
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
  return first ? stripKeys<StoredDelivery>(first) : undefined;
}

const deliveryKeyOf = (delivery: StoredDelivery) =>
  webhookDeliveryKey(delivery.endpoint_id, delivery.event_at, delivery.event_id);

const pendingKeysOf = (delivery: StoredDelivery, nextAt: number) =>
  webhookPendingKeys({
    endpointId: delivery.endpoint_id,
    bookingId: delivery.booking_id,
    sequence: delivery.sequence,
    eventAtMs: delivery.event_at,
    eventId: delivery.event_id,
    nextAtMs: nextAt,
  });

/**
 * Claims a pending delivery for one attempt until `leaseUntil`, as the run read it (same next time and
 * failures): false when it changed meanwhile, is no longer pending, or another run holds it. Two runs
 * never send one delivery at once, and a run that read it before another attempt never sends it again.
 */
export function claimDelivery(
  db: Db,
  options: { delivery: StoredDelivery; now: number; leaseUntil: number; leaseId: string },
): Promise<boolean> {
  const { delivery } = options;
  return applyIfCondition(() =>
    db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: deliveryKeyOf(delivery),
        UpdateExpression: 'SET lease_until = :lease, lease_id = :leaseId',
        ConditionExpression:
          '#status = :pending AND next_at = :next AND failures = :failures AND (attribute_not_exists(lease_until) OR lease_until < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':lease': options.leaseUntil,
          ':leaseId': options.leaseId,
          ':now': options.now,
          ':pending': 'pending',
          ':next': delivery.next_at,
          ':failures': delivery.failures,
        },
      }),
    ),
  );
}

/**
 * Records the end of an attempt (`leaseId`: only the run holding the lease may) or of a skip (only if
 * the delivery is still as the run read it): its status, failures and next time, the attempt added to its
 * log; pending deliveries keep their index keys, the others lose them. It is kept `retentionDays` past its
 * next time. False when the delivery was no longer the caller's to finish.
 */
export function finishDelivery(
  db: Db,
  options: {
    delivery: StoredDelivery;
    status: StoredDelivery['status'];
    failures: number;
    nextAt: number;
    attempt?: DeliveryAttempt;
    leaseId?: string;
    now: number;
    retentionDays: number;
  },
): Promise<boolean> {
  const { delivery } = options;
  const attempts = options.attempt
    ? [...delivery.attempts, options.attempt].slice(-ATTEMPTS_KEPT)
    : delivery.attempts;
  const pending = options.status === 'pending';
  const keys = pendingKeysOf(delivery, options.nextAt);
  return applyIfCondition(() =>
    db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: deliveryKeyOf(delivery),
        UpdateExpression: `SET #status = :status, failures = :failures, next_at = :next, attempts = :attempts, updated_at = :now, #ttl = :ttl${
          pending
            ? ', gsi1pk = :g1pk, gsi1sk = :g1sk, gsi2pk = :g2pk, gsi2sk = :g2sk REMOVE lease_until, lease_id'
            : ' REMOVE lease_until, lease_id, gsi1pk, gsi1sk, gsi2pk, gsi2sk'
        }`,
        ConditionExpression: options.leaseId
          ? 'lease_id = :leaseId'
          : '#status = :pending AND next_at = :seenNext AND failures = :seenFailures',
        ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':status': options.status,
          ':failures': options.failures,
          ':next': options.nextAt,
          ':attempts': attempts,
          ':now': options.now,
          ':ttl': expiryOf(Math.max(options.nextAt, options.now), options.retentionDays),
          ...(options.leaseId
            ? { ':leaseId': options.leaseId }
            : { ':pending': 'pending', ':seenNext': delivery.next_at, ':seenFailures': delivery.failures }),
          ...(pending
            ? { ':g1pk': keys.gsi1pk, ':g1sk': keys.gsi1sk, ':g2pk': keys.gsi2pk, ':g2sk': keys.gsi2sk }
            : {}),
        },
      }),
    ),
  );
}

/**
 * Moves a waiting delivery's time to `nextAt` (behind the earlier event of its booking it waits for, or
 * to now once that one is done), only if it is still as the caller read it and has not been attempted.
 */
export function rescheduleDelivery(
  db: Db,
  options: { delivery: StoredDelivery; nextAt: number },
): Promise<boolean> {
  const { delivery } = options;
  const keys = pendingKeysOf(delivery, options.nextAt);
  return applyIfCondition(() =>
    db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: deliveryKeyOf(delivery),
        UpdateExpression: 'SET next_at = :next, gsi2sk = :g2sk',
        ConditionExpression: '#status = :pending AND next_at = :seenNext AND failures = :seenFailures',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':next': options.nextAt,
          ':g2sk': keys.gsi2sk,
          ':pending': 'pending',
          ':seenNext': delivery.next_at,
          ':seenFailures': delivery.failures,
        },
      }),
    ),
  );
}

/**
 * Makes an event due again for an endpoint (a replay): its delivery, new or delivered before, becomes
 * pending now with a fresh retry schedule and keeps its attempt log; the event is kept as long as it.
 */
export async function requeueDelivery(
  db: Db,
  options: { endpointId: string; event: StoredWebhookEvent; now: number; retentionDays: number },
): Promise<void> {
  const { event } = options;
  const keys = webhookPendingKeys({
    endpointId: options.endpointId,
    bookingId: event.booking_id,
    sequence: event.sequence,
    eventAtMs: event.event.at,
    eventId: event.event.event_id,
    nextAtMs: options.now,
  });
  const ttl = expiryOf(options.now, options.retentionDays);
  const keepEvent = db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookEventKey(event.event.event_id),
      UpdateExpression: 'SET #ttl = :ttl',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':ttl': ttl },
    }),
  );
  const requeue = db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookDeliveryKey(options.endpointId, event.event.at, event.event.event_id),
      UpdateExpression:
        'SET entity = :entity, endpoint_id = :endpoint, event_id = :eventId, event_type = :type, event_at = :at, booking_id = :booking, #sequence = :sequence, #status = :pending, failures = :zero, next_at = :now, attempts = if_not_exists(attempts, :none), created_at = if_not_exists(created_at, :now), updated_at = :now, gsi1pk = :g1pk, gsi1sk = :g1sk, gsi2pk = :g2pk, gsi2sk = :g2sk, #ttl = :ttl REMOVE lease_until, lease_id',
      ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl', '#sequence': 'sequence' },
      ExpressionAttributeValues: {
        ':entity': 'webhook_delivery',
        ':endpoint': options.endpointId,
        ':eventId': event.event.event_id,
        ':type': event.event.type,
        ':at': event.event.at,
        ':booking': event.booking_id,
        ':sequence': event.sequence,
        ':pending': 'pending',
        ':zero': 0,
        ':now': options.now,
        ':none': [],
        ':g1pk': keys.gsi1pk,
        ':g1sk': keys.gsi1sk,
        ':g2pk': keys.gsi2pk,
        ':g2sk': keys.gsi2sk,
        ':ttl': ttl,
      },
    }),
  );
  await Promise.all([keepEvent, requeue]);
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
  if (options.skip >= total) return { rows: [], total };
  const wanted = options.skip + options.take;
  do {
    const page: QueryCommandOutput = await db.client.send(
      new QueryCommand({
        ...query,
        ScanIndexForward: false,
        Limit: Math.min(1000, wanted - rows.length),
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
