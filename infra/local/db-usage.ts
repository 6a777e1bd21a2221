import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

// Counting DynamoDB calls and capacity for the benchmark: `npm start` with DYNAMODB_USAGE_FILE installs it
// (usage-file.ts), as do the benchmark's own servers. The service's client (lib/kernel/storage/database.ts) never does.

/** Running totals of a client's DynamoDB calls and the capacity units DynamoDB reported for them. */
export interface DbUsage {
  /** Commands sent, by the operation's name; a command the SDK retries counts once. */
  calls: Record<string, number>;
  /** Calls that ended in an error (a failed condition, a cancelled transaction): no capacity is reported. */
  failed: number;
  /** Successful calls of an operation that supports ReturnConsumedCapacity whose response carried none. */
  unreported: number;
  /** Read capacity units consumed. */
  rcu: number;
  /** Write capacity units consumed. */
  wcu: number;
  /**
   * Write units added to TransactWriteItems calls that reported fewer than two per write action, the least
   * DynamoDB bills an item: DynamoDB Local rounds the transaction's total size once, not each item's.
   */
  wcuAdded: number;
}

/** Zeroed usage totals. */
export const emptyDbUsage = (): DbUsage => ({
  calls: {},
  failed: 0,
  unreported: 0,
  rcu: 0,
  wcu: 0,
  wcuAdded: 0,
});

const READ_OPERATIONS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** Adds one successful call's reported capacity to `usage`. */
function addCapacity(usage: DbUsage, operation: string, input: object, reported: Capacity | Capacity[]) {
  let read = 0;
  let write = 0;
  for (const entry of Array.isArray(reported) ? reported : [reported]) {
    // TOTAL gives only CapacityUnits; the operation says which kind they are.
    const units = entry.CapacityUnits ?? 0;
    read += entry.ReadCapacityUnits ?? (READ_OPERATIONS.has(operation) ? units : 0);
    write += entry.WriteCapacityUnits ?? (WRITE_OPERATIONS.has(operation) ? units : 0);
  }
  if (operation === 'TransactWriteItems') {
    const actions = (input as { TransactItems?: Record<string, unknown>[] }).TransactItems ?? [];
    const writes = actions.filter((action) => action.Put || action.Update || action.Delete).length;
    const added = Math.max(0, 2 * writes - write);
    usage.wcuAdded += added;
    write += added;
  }
  usage.rcu += read;
  usage.wcu += write;
}

/**
 * An `instrument` hook that sets ReturnConsumedCapacity on every call that supports it and adds calls and
 * capacity to `usage`, calling `onChange` after each. Only `npm start` with DYNAMODB_USAGE_FILE (the
 * benchmark) installs it: Lambda's calls are never changed.
 */
export function countDbUsage(
  usage: DbUsage,
  onChange?: () => void,
): (client: DynamoDBClient) => DynamoDBClient {
  return (client) => {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        usage.calls[operation] = (usage.calls[operation] ?? 0) + 1;
        const reports = READ_OPERATIONS.has(operation) || WRITE_OPERATIONS.has(operation);
        const input = args.input as { ReturnConsumedCapacity?: string };
        try {
          const result = await next(
            reports && input.ReturnConsumedCapacity !== 'INDEXES'
              ? { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } }
              : args,
          );
          const reported = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
          if (reported) addCapacity(usage, operation, input, reported);
          else if (reports) usage.unreported += 1;
          return result;
        } catch (error) {
          usage.failed += 1;
          throw error;
        } finally {
          onChange?.();
        }
      },
      // Initialize: before the SDK's retries, so a retried command counts as one call.
      { step: 'initialize', name: 'countDbUsage', override: true },
    );
    return client;
  };
}
