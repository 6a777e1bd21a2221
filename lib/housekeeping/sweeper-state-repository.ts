import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { sweeperStateKey } from '../kernel/storage/keys.ts';

/** The minute (Unix seconds) from which the next sweep must read, or undefined before the first sweep. */
export async function getSweptUntil(db: Db): Promise<number | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: sweeperStateKey() }),
  );
  return Item ? Number(Item.swept_until) : undefined;
}

/** Records the minute from which the next sweep must read. */
export async function putSweptUntil(db: Db, minuteStart: number, now: number): Promise<void> {
  await db.documents.send(
    new PutCommand({
      TableName: db.tableName,
      Item: { ...sweeperStateKey(), entity: 'sweeper', swept_until: minuteStart, updated_at: now },
    }),
  );
}
