import { BatchWriteCommand, type BatchWriteCommandOutput, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#lib/kernel/storage/database.ts';

/** What a copy did: items read from the source and written to the target. */
export interface CopyReport {
  read: number;
  written: number;
}

/** How a copy reads and writes: DynamoDB's batch limit, and retries of what it left unprocessed. */
export interface CopyOptions {
  /** Items per Scan page (DynamoDB's own limit is 1 MB a page); smaller pages only for tests. */
  pageSize?: number;
  /** Parallel scan segments (each a Scan of its own share of the table). */
  segments?: number;
  /** Attempts of a batch whose items DynamoDB left unprocessed (throttled), with backoff between them. */
  attempts?: number;
  /** Waits between attempts (injected by tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Told after each page written. */
  progress?: (report: CopyReport) => void;
}

const BATCH = 25;

/** Whether a table holds any item (one item read at most). */
export async function isEmpty(db: Db): Promise<boolean> {
  const page = await db.documents.send(new ScanCommand({ TableName: db.tableName, Limit: 1 }));
  return (page.Items?.length ?? 0) === 0;
}

async function writeBatch(
  target: Db,
  items: Record<string, unknown>[],
  attempts: number,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  let requests = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 1; requests.length > 0; attempt += 1) {
    if (attempt > attempts) {
      throw new Error(
        `${requests.length} items still unprocessed after ${attempts} attempts: run the copy again`,
      );
    }
    if (attempt > 1) await sleep(Math.min(100 * 2 ** (attempt - 2), 5_000));
    const result: BatchWriteCommandOutput = await target.documents.send(
      new BatchWriteCommand({ RequestItems: { [target.tableName]: requests } }),
    );
    requests = (result.UnprocessedItems?.[target.tableName] ?? []).map((request) => ({
      PutRequest: { Item: request.PutRequest?.Item ?? {} },
    }));
  }
}

/**
 * Copies every item of `source` into `target` as it is (keys, counters, TTLs, outbox records), for the
 * restore runbook: a restored backup into the stack's new, empty table. Refuses the same table and a target
 * that holds anything, where a restored item could overwrite a newer one.
 */
export async function copyTable(source: Db, target: Db, options: CopyOptions = {}): Promise<CopyReport> {
  if (source.tableName === target.tableName) {
    throw new Error(`source and target are the same table (${source.tableName})`);
  }
  if (!(await isEmpty(target))) {
    throw new Error(
      `${target.tableName} is not empty: a restore copies into the stack's new, empty table only`,
    );
  }
  const segments = options.segments ?? 4;
  const attempts = options.attempts ?? 8;
  const sleep = options.sleep ?? ((ms: number) => new Promise((done) => setTimeout(done, ms)));
  const report: CopyReport = { read: 0, written: 0 };
  const copySegment = async (segment: number) => {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await source.documents.send(
        new ScanCommand({
          TableName: source.tableName,
          Segment: segment,
          TotalSegments: segments,
          ConsistentRead: true,
          ExclusiveStartKey: start,
          Limit: options.pageSize,
        }),
      );
      const items = page.Items ?? [];
      report.read += items.length;
      for (let from = 0; from < items.length; from += BATCH) {
        const batch = items.slice(from, from + BATCH);
        await writeBatch(target, batch, attempts, sleep);
        report.written += batch.length;
      }
      options.progress?.({ ...report });
      start = page.LastEvaluatedKey;
    } while (start);
  };
  await Promise.all(Array.from({ length: segments }, (_, segment) => copySegment(segment)));
  return report;
}
