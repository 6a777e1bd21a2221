import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { providerEventKey } from '../kernel/storage/keys.ts';
import { applyIfCondition } from '../kernel/storage/operations.ts';

// The provider events this service has acted on, each recorded once by its id: a conditional put, kept (by TTL)
// well past the provider's retries (Stripe retries for three days), so a duplicate finds it and does nothing.

/** How long an event's record is kept: longer than the provider retries or replays an event. */
export const PROVIDER_EVENT_RETENTION_SECONDS = 30 * 86_400;

/** Claims a provider event by its id: true the first time, false when it was claimed before (a duplicate). */
export async function claimProviderEvent(
  db: Db,
  options: { provider: string; eventId: string; nowSeconds: number },
): Promise<boolean> {
  return applyIfCondition(() =>
    db.documents.send(
      new PutCommand({
        TableName: db.tableName,
        Item: {
          ...providerEventKey(options.provider, options.eventId),
          entity: 'provider_event',
          created: options.nowSeconds,
          ttl: options.nowSeconds + PROVIDER_EVENT_RETENTION_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
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
        'SET outcome = :orphan, object_id = :object, booking_id = :booking, payment_id = :payment, orphaned = :now',
      ExpressionAttributeValues: {
        ':orphan': 'orphan',
        ':object': options.objectId,
        ':booking': options.bookingId ?? '',
        ':payment': options.paymentId ?? '',
        ':now': options.nowSeconds,
      },
    }),
  );
}
