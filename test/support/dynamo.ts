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

/** A view of a test table that shows `see` every command sent through it (its class name and input). */
export function watchCommands(db: Db, see: (name: string, input: unknown) => void): Db {
  const client = new Proxy(db.client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { constructor: { name: string }; input: unknown }, ...rest: unknown[]) => {
        see(command.constructor.name, command.input);
        return (target.send as (...args: unknown[]) => unknown)(command, ...rest);
      };
    },
  });
  return { ...db, client };
}

/** A view of a test table that records every command sent through it (to count calls, spot scans). */
export function recordCommands(db: Db): { db: Db; commands: string[] } {
  const commands: string[] = [];
  return { db: watchCommands(db, (name) => commands.push(name)), commands };
}
