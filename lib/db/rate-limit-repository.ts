import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './client.ts';
import { rateWindowKey } from './keys.ts';

/** The budgets a request counts against in its window: every request, and writes when it is one. */
export interface WindowBudgets {
  requests: number;
  writes?: number;
}

/** A window's counts after a request: admitted and counted, or refused (counted nowhere). */
export type WindowCount =
  | { admitted: true; requests: number; writes?: number }
  | { admitted: false; requests: number; writes: number; exceeded: 'requests' | 'writes' };

const numberOf = (value: unknown): number => {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'N' in value) return Number((value as { N: string }).N);
  return 0;
};

/**
 * Counts one request of a client in a fixed window with one conditional update: the counters grow only
 * while under their budgets, so every function instance shares them and a refused request costs the
 * client nothing. The record expires by TTL soon after its window.
 */
export async function countRequestInWindow(
  db: Db,
  options: { client: string; windowStart: number; windowSeconds: number; budgets: WindowBudgets },
): Promise<WindowCount> {
  const write = options.budgets.writes !== undefined;
  try {
    const { Attributes } = await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: rateWindowKey(options.client, options.windowStart),
        UpdateExpression: `ADD requests :one${write ? ', writes :one' : ''} SET entity = :entity, #ttl = :ttl`,
        ConditionExpression: `(attribute_not_exists(requests) OR requests < :requests)${
          write ? ' AND (attribute_not_exists(writes) OR writes < :writes)' : ''
        }`,
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':entity': 'rate_window',
          ':ttl': options.windowStart + options.windowSeconds + 60,
          ':requests': options.budgets.requests,
          ...(write ? { ':writes': options.budgets.writes } : {}),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return {
      admitted: true,
      requests: numberOf(Attributes?.requests),
      ...(write ? { writes: numberOf(Attributes?.writes) } : {}),
    };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const requests = numberOf(error.Item?.requests);
    const writes = numberOf(error.Item?.writes);
    return {
      admitted: false,
      requests,
      writes,
      exceeded: requests >= options.budgets.requests ? 'requests' : 'writes',
    };
  }
}
