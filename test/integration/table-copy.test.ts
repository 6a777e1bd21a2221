import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BatchWriteCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { copyTable } from '#infra/restore/copy-table.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { formBody, invoke } from '#test/support/events.ts';
import { expectInvariant, sessionClient, sessionOf } from '#test/support/session.ts';
import { demoTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Issue 34: the restore runbook's last steps, run for real on DynamoDB Local: a restored table (here a
// tenant table with a catalogue, a held cart, a booking and its outbox, and many more items than a page)
// copied into the stack's new, empty table, which then holds exactly the same items and passes reconcile.

const run = promisify(execFile);
let source: Db;

/** Every item of a table, in key order. */
const everything = async (db: Db): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.documents.send(
      new ScanCommand({ TableName: db.tableName, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const key = (item: Record<string, unknown>) => `${item.pk}\u0000${item.sk}`;
  return items.sort((a, b) => (key(a) < key(b) ? -1 : 1));
};

beforeAll(async () => {
  const tenant = await loadTenant('copy-source', demoTenantJson());
  source = tenant.db;
  const client = sessionClient(tenant.handlers);
  const day = addDays(todayIn('America/Toronto', Date.now()), 20);
  const held = await client.add([await client.slip(3, `date=${day}&param[qty]=2`)]);
  expect(held.status).toBe(200);
  const booked = await client.add([await client.slip(4, `date=${day}&param[qty]=1`)]);
  const created = await invoke(tenant.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      session_id: sessionOf(booked).id,
      'form[customer_name]': 'Restored Guest',
      'form[customer_email]': 'restored@example.com',
    }),
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(created.status).toBe(200);
  // More items than a page, of every attribute shape a record may carry.
  for (let from = 0; from < 300; from += 25) {
    await source.documents.send(
      new BatchWriteCommand({
        RequestItems: {
          [source.tableName]: Array.from({ length: 25 }, (_, n) => ({
            PutRequest: {
              Item: {
                pk: `COPYTEST#${from + n}`,
                sk: 'A',
                count: from + n,
                nested: { list: [1, 'two', { three: true }], empty: '' },
                tags: new Set(['a', `b${n}`]),
                ttl: 2_000_000_000,
              },
            },
          })),
        },
      }),
    );
  }
});

describe('copying a restored table into the stack’s new one', () => {
  it('copies every item as it is, across pages and segments, and the copy passes reconcile', async () => {
    const target = await createTestDb('copy-target');
    const report = await copyTable(source, target, { pageSize: 37, segments: 3 });
    const original = await everything(source);
    expect(original.length).toBeGreaterThan(300);
    expect(report).toEqual({ read: original.length, written: original.length });
    expect(await everything(target)).toEqual(original);
    await expectInvariant(target);
  });

  it('refuses a target that holds anything, and writes nothing to it', async () => {
    const target = await createTestDb('copy-busy');
    await target.documents.send(
      new PutCommand({ TableName: target.tableName, Item: { pk: 'NEWER', sk: 'A' } }),
    );
    await expect(copyTable(source, target)).rejects.toThrow(/is not empty/);
    expect(await everything(target)).toEqual([{ pk: 'NEWER', sk: 'A' }]);
  });

  it('refuses to copy a table onto itself', async () => {
    await expect(copyTable(source, source)).rejects.toThrow(/same table/);
  });

  it('writes again what DynamoDB left unprocessed (throttled), and gives up with a clear error', async () => {
    const throttled = (target: Db, times: number): Db => {
      let left = times;
      const client = new Proxy(target.documents, {
        get(real, property, receiver) {
          if (property !== 'send') return Reflect.get(real, property, receiver);
          return async (command: { input: any }) => {
            if (!(command instanceof BatchWriteCommand) || left === 0) return real.send(command as never);
            left -= 1;
            // DynamoDB's answer to a throttled batch: the first half written, the rest handed back.
            const requests = command.input.RequestItems?.[target.tableName] ?? [];
            const half = Math.ceil(requests.length / 2);
            await real.send(
              new BatchWriteCommand({ RequestItems: { [target.tableName]: requests.slice(0, half) } }),
            );
            return { UnprocessedItems: { [target.tableName]: requests.slice(half) } };
          };
        },
      });
      return { ...target, documents: client };
    };
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const target = await createTestDb('copy-throttled');
    const report = await copyTable(source, throttled(target, 5), { segments: 1, sleep });
    expect(report.written).toBe(report.read);
    expect(await everything(target)).toEqual(await everything(source));
    // The first batch was cut in half four times before its last item went in alone: a wait before each retry,
    // doubling.
    expect(waits).toEqual([100, 200, 400, 800]);

    const stuck = await createTestDb('copy-stuck');
    await expect(
      copyTable(source, throttled(stuck, 1_000), { segments: 1, attempts: 3, sleep }),
    ).rejects.toThrow(/unprocessed after 3 attempts: run the copy again/);
  });

  it('is the npm run table:copy command, which says what it copied and refuses missing arguments', async () => {
    const target = await createTestDb('copy-cli');
    const env = { ...process.env, DYNAMODB_ENDPOINT: inject('dynamoEndpoint'), AWS_REGION: 'local' };
    const cli = ['tsx', 'infra/cli/table-copy.ts'];
    const done = await run('npx', [...cli, '--from', source.tableName, '--to', target.tableName], { env });
    const count = (await everything(source)).length;
    expect(done.stdout).toContain(
      `copied ${count} of ${count} items from ${source.tableName} to ${target.tableName}`,
    );
    const missing = await run('npx', [...cli, '--from', source.tableName], { env }).catch((error) => error);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/both --from and --to are needed/);
  });
});
