import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { createDb, type Db } from '#lib/kernel/storage/database.ts';
import { giftcertKey, stockKey } from '#lib/kernel/storage/keys.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { COUNTER_FIELDS, counterValues } from '#lib/stock/repository.ts';

/** Whether an endpoint is on this machine; test setup refuses anything else. */
function isLocalEndpoint(endpoint: string | undefined): boolean {
  if (!endpoint) return false;
  const host = new URL(endpoint).hostname;
  return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');
}

/** A fresh table on the test run's DynamoDB Local; refuses anything but a local endpoint. */
export async function createTestDb(prefix = 'test'): Promise<Db> {
  const endpoint = inject('dynamoEndpoint');
  if (!isLocalEndpoint(endpoint)) throw new Error(`Refusing to run tests against ${endpoint}`);
  const db = createDb({ endpoint, tableName: `${prefix}-${randomUUID()}` });
  await ensureTable(db);
  return db;
}

/** A view of a test table that shows `see` every command sent through it (its class name and input). */
export function watchCommands(db: Db, see: (name: string, input: unknown) => void): Db {
  const client = new Proxy(db.documents, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { constructor: { name: string }; input: unknown }, ...rest: unknown[]) => {
        see(command.constructor.name, command.input);
        return (target.send as (...args: unknown[]) => unknown)(command, ...rest);
      };
    },
  });
  return { ...db, documents: client };
}

/** A view of a test table that records every command sent through it (to count calls, spot scans). */
export function recordCommands(db: Db): { db: Db; commands: string[] } {
  const commands: string[] = [];
  return { db: watchCommands(db, (name) => commands.push(name)), commands };
}

/** Sets how many units of an item's slot are used, as the service writes a counter: with its span-index keys. */
export const setUsed = (db: Db, itemId: number, slot: string, used: number) =>
  db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: stockKey(itemId, slot),
      UpdateExpression: `SET used = :used, ${COUNTER_FIELDS}`,
      ExpressionAttributeValues: { ':used': used, ...counterValues(itemId, slot) },
    }),
  );

/** Sets a gift certificate's balance (minor units), as spending it would leave it. */
export const setGiftcertBalance = (db: Db, code: string, balance: number) =>
  db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: giftcertKey(code),
      UpdateExpression: 'SET balance = :balance',
      ExpressionAttributeValues: { ':balance': balance },
    }),
  );

/** How many units of an item's slot are used, read consistently (0 where no counter was ever written). */
export async function readUsed(db: Db, itemId: number, slot: string): Promise<number> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: stockKey(itemId, slot), ConsistentRead: true }),
  );
  return Number(Item?.used ?? 0);
}
