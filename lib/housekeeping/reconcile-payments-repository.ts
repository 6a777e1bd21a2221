import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import type { PaymentSnapshot } from './reconcile-payments.ts';

/**
 * Reads every booking, payment attempt and transaction row of the table for the money audit: an operator's
 * whole-table check, never a request path, as the stock audit's scan. Segments run in parallel.
 */
export async function scanPayments(db: Db, segments = 4): Promise<PaymentSnapshot> {
  const snapshot: PaymentSnapshot = { bookings: [], attempts: [], transactions: [] };
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let cursor: Record<string, unknown> | undefined;
      do {
        const page = await db.documents.send(
          new ScanCommand({
            TableName: db.tableName,
            Segment: segment,
            TotalSegments: segments,
            ConsistentRead: true,
            FilterExpression: 'entity IN (:booking, :attempt, :payment)',
            ExpressionAttributeValues: {
              ':booking': 'booking',
              ':attempt': 'payment_attempt',
              ':payment': 'payment',
            },
            ExclusiveStartKey: cursor,
          }),
        );
        for (const item of page.Items ?? []) {
          if (item.entity === 'booking') {
            snapshot.bookings.push({
              booking_id: Number(item.booking_id),
              code: String(item.code),
              status_id: String(item.status_id),
              paid_total: Number(item.paid_total ?? 0),
              ...(item.giftcert ? { giftcert: { amount: Number(item.giftcert.amount) } } : {}),
            });
          } else if (item.entity === 'payment_attempt') {
            snapshot.attempts.push({
              booking_id: Number(item.booking_id),
              payment_id: String(item.payment_id),
              provider: String(item.provider),
              status: String(item.status),
              captured: Number(item.captured ?? 0),
              refunded: Number(item.refunded ?? 0),
              applied: Number(item.applied ?? 0),
              created: Number(item.created ?? 0),
              ...(item.provider_payment_id ? { provider_payment_id: String(item.provider_payment_id) } : {}),
              ...(item.flag ? { flag: String(item.flag) } : {}),
              ...(item.kept
                ? { kept: { account_id: Number(item.kept.account_id), at: Number(item.kept.at) } }
                : {}),
            });
          } else {
            snapshot.transactions.push({
              booking_id: Number(item.booking_id),
              transaction_id: String(item.transaction_id),
              amount: Number(item.amount ?? 0),
              method: String(item.method),
            });
          }
        }
        cursor = page.LastEvaluatedKey;
      } while (cursor);
    }),
  );
  return snapshot;
}
