import type { Db } from '../kernel/storage/database.ts';
import { challengeKey } from '../kernel/storage/keys.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';

/** How long a spent challenge's record outlives the challenge's own expiry before DynamoDB TTL deletes it. */
const KEEP_SECONDS = 86_400;

/**
 * Spends a proof-of-work challenge in the transaction that uses it: a conditional put of its nonce, so
 * a solution works once, however many calls race with it. Kept past the challenge's expiry, after which
 * the challenge is refused anyway.
 */
export function spendChallengeAction(
  db: Db,
  options: { nonce: string; expiresAt: number; nowSeconds: number },
): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...challengeKey(options.nonce),
        entity: 'challenge',
        created_at: options.nowSeconds,
        ttl: options.expiresAt + KEEP_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
