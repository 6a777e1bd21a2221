import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { idCounterKey } from '../kernel/storage/keys.ts';
import { unixSeconds } from '../kernel/time.ts';

/** Takes the next number of an id counter (atomic; ids may have gaps, never repeats). */
export async function nextId(db: Db, name: 'booking' | 'customer', now: number): Promise<number> {
  const { Attributes } = await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: idCounterKey(name),
      UpdateExpression: 'ADD #value :one SET entity = :entity, first_at = if_not_exists(first_at, :now)',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':entity': 'id_counter',
        ':now': unixSeconds(now),
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.value);
}

/** When the first id of a counter was taken (Unix seconds), or undefined if none was. */
export async function firstIdAt(db: Db, name: 'booking' | 'customer'): Promise<number | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: idCounterKey(name) }),
  );
  return Item?.first_at ? Number(Item.first_at) : undefined;
}
