import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { giftcertKey } from '../kernel/storage/keys.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';

/** Spends (positive) or restores (negative) a gift certificate balance; a spend never takes it below 0. */
export function giftcertBalanceAction(db: Db, options: { code: string; spend: number }): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: giftcertKey(options.code),
      UpdateExpression: 'SET balance = balance - :spend',
      ConditionExpression:
        options.spend > 0 ? 'attribute_exists(pk) AND balance >= :spend' : 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':spend': options.spend },
    },
  };
}

/** A gift certificate's balance (minor units) and expiry. */
export async function getGiftcert(
  db: Db,
  code: string,
): Promise<{ balance: number; expires?: string } | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: giftcertKey(code), ConsistentRead: true }),
  );
  return Item
    ? { balance: Number(Item.balance), ...(Item.expires ? { expires: String(Item.expires) } : {}) }
    : undefined;
}
