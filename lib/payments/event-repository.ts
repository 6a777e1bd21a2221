import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { providerEventKey } from '../kernel/storage/keys.ts';
import { applyIfCondition } from '../kernel/storage/operations.ts';

// The provider events this service has acted on, each recorded once by its id and kept (by TTL) well past the
// provider's retries (Stripe retries for three days), so a duplicate finds it and does nothing. An event is
// claimed for a lease while it is handled and marked done after: a handler that died holding it (its Lambda
// timed out, or the table failed as it gave the event back) leaves a lease that runs out, and the provider's
// retry is then acted on instead of being taken for a duplicate, so no payment is lost.

/** How long an event's record is kept: longer than the provider retries or replays an event. */
export const PROVIDER_EVENT_RETENTION_SECONDS = 30 * 86_400;

/** How long a claim holds an event being handled: longer than the webhook function's 10 s timeout. */
export const PROVIDER_EVENT_LEASE_SECONDS = 30;

/** What claiming an event found: it is ours to handle, it was handled before, or another handler holds it. */
export type ProviderEventClaim = 'claimed' | 'duplicate' | 'in_progress';

/**
 * Claims a provider event by its id for a lease: `claimed` the first time (or when an earlier claim's lease
 * ran out before it was done), `duplicate` once it was handled, `in_progress` while another handler holds it.
 */
export async function claimProviderEvent(
  db: Db,
  options: { provider: string; eventId: string; nowSeconds: number },
): Promise<ProviderEventClaim> {
  const key = providerEventKey(options.provider, options.eventId);
  const claimed = await applyIfCondition(() =>
    db.documents.send(
      new PutCommand({
        TableName: db.tableName,
        Item: {
          ...key,
          entity: 'provider_event',
          created: options.nowSeconds,
          state: 'working',
          lease_until: options.nowSeconds + PROVIDER_EVENT_LEASE_SECONDS,
          ttl: options.nowSeconds + PROVIDER_EVENT_RETENTION_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR (#state = :working AND lease_until < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':working': 'working', ':now': options.nowSeconds },
      }),
    ),
  );
  if (claimed) return 'claimed';
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }),
  );
  return Item?.state === 'working' ? 'in_progress' : 'duplicate';
}

/** Marks a claimed event handled: from now on a delivery of it is a duplicate. */
export async function completeProviderEvent(
  db: Db,
  options: { provider: string; eventId: string },
): Promise<void> {
  await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: providerEventKey(options.provider, options.eventId),
      UpdateExpression: 'SET #state = :done REMOVE lease_until',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':done': 'done' },
    }),
  );
}

/** Gives a claimed event back, so the provider's retry of an event that failed here is acted on. */
export async function releaseProviderEvent(
  db: Db,
  options: { provider: string; eventId: string },
): Promise<void> {
  await db.documents.send(
    new DeleteCommand({ TableName: db.tableName, Key: providerEventKey(options.provider, options.eventId) }),
  );
}

/**
 * Marks a claimed event an orphan: it named a booking or attempt not recorded here long after the provider
 * made it, so it was answered 200 and given up; what it named stays on its record (for as long as the record
 * is kept) for an operator to look into.
 */
export async function recordOrphanEvent(
  db: Db,
  options: {
    provider: string;
    eventId: string;
    objectId: string;
    bookingId?: string | undefined;
    paymentId?: string | undefined;
    nowSeconds: number;
  },
): Promise<void> {
  await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: providerEventKey(options.provider, options.eventId),
      UpdateExpression:
        'SET outcome = :orphan, #state = :done, object_id = :object, booking_id = :booking, payment_id = :payment, orphaned = :now REMOVE lease_until',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':orphan': 'orphan',
        ':done': 'done',
        ':object': options.objectId,
        ':booking': options.bookingId ?? '',
        ':payment': options.paymentId ?? '',
        ':now': options.nowSeconds,
      },
    }),
  );
}
