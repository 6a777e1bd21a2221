import {
  CreateTableCommand,
  type CreateTableCommandInput,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { Db } from './database.ts';
import { KEY_ATTRIBUTES, TABLE_DEFINITION } from './table-definition.ts';

/** The CreateTable request for the tenant table, built from the shared definition. */
function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE_DEFINITION.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

/** Creates the tenant table (with its TTL attribute) unless it exists; safe to call on every start. */
export async function ensureTable(db: Db): Promise<'created' | 'existed'> {
  try {
    await db.documents.send(new CreateTableCommand(createTableInput(db.tableName)));
  } catch (error) {
    if (error instanceof ResourceInUseException) return 'existed';
    throw error;
  }
  await waitUntilTableExists({ client: db.documents, maxWaitTime: 60 }, { TableName: db.tableName });
  await db.documents.send(
    new UpdateTimeToLiveCommand({
      TableName: db.tableName,
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
    }),
  );
  return 'created';
}
