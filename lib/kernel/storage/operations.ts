import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Db } from './database.ts';

/** Runs a query to its last page and returns every record. */
export async function queryAll(
  db: Db,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.documents.send(
      new QueryCommand({ ...input, TableName: db.tableName, ExclusiveStartKey: cursor }),
    );
    records.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return records;
}

/** Runs a conditional write; true if it was applied, false if its condition did not hold. */
export async function applyIfCondition(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** A record without its key, index and bookkeeping attributes: what the entity itself holds. */
export const stripKeys = <T>(record: Record<string, unknown>): T => {
  const {
    pk: _pk,
    sk: _sk,
    entity: _e,
    gsi1pk: _a,
    gsi1sk: _b,
    gsi2pk: _c,
    gsi2sk: _d,
    gsi3pk: _f,
    gsi3sk: _g,
    ttl: _t,
    ...rest
  } = record;
  return rest as T;
};
