import { QueryCommand, type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import {
  WEBHOOK_DELIVERY_PREFIX,
  WEBHOOK_DUE,
  webhookDeliveryKey,
  webhookEventKey,
  webhookPartition,
  webhookPendingKeys,
} from '../kernel/storage/keys.ts';
import { applyIfCondition, stripKeys } from '../kernel/storage/operations.ts';
import {
  type DeliveryAttempt,
  retentionTtl,
  type StoredDelivery,
  type StoredWebhookEvent,
} from './outbox.ts';

/** How many attempts a delivery keeps in its log. */
const ATTEMPTS_KEPT = 10;

/** Lists the deliveries due at `now` (milliseconds), the earliest first, at most `limit`. */
export async function listDueDeliveries(
  db: Db,
  options: { now: number; limit: number },
): Promise<StoredDelivery[]> {
  const { Items } = await db.documents.send(
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
  const { Items } = await db.documents.send(
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
    db.documents.send(
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
    db.documents.send(
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
          ':ttl': retentionTtl(Math.max(options.nextAt, options.now), options.retentionDays),
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
    db.documents.send(
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
  const ttl = retentionTtl(options.now, options.retentionDays);
  const keepEvent = db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: webhookEventKey(event.event.event_id),
      UpdateExpression: 'SET #ttl = :ttl',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':ttl': ttl },
    }),
  );
  const requeue = db.documents.send(
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
    const page: QueryCommandOutput = await db.documents.send(
      new QueryCommand({ ...query, Select: 'COUNT', ExclusiveStartKey: cursor }),
    );
    total += page.Count ?? 0;
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  const rows: Record<string, unknown>[] = [];
  if (options.skip >= total) return { rows: [], total };
  const wanted = options.skip + options.take;
  do {
    const page: QueryCommandOutput = await db.documents.send(
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
