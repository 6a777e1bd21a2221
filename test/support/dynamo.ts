import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { createDb, type Db, isLocalEndpoint } from '#lib/db/client.ts';
import { ensureTable } from '#lib/db/table-admin.ts';

/** A fresh table on the test run's DynamoDB Local; refuses anything but a local endpoint. */
export async function createTestDb(prefix = 'test'): Promise<Db> {
  const endpoint = inject('dynamoEndpoint');
  if (!isLocalEndpoint(endpoint)) throw new Error(`Refusing to run tests against ${endpoint}`);
  const db = createDb({ endpoint, tableName: `${prefix}-${randomUUID()}` });
  await ensureTable(db);
  return db;
}
