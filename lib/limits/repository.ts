import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { type GuessKind, guessAttemptsKey, rateWindowKey } from '../kernel/storage/keys.ts';

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
    const { Attributes } = await db.documents.send(
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

/** Where one client's guesses of one kind are counted: its key and the window it counts in. */
export interface GuessWindow {
  kind: GuessKind;
  client: string;
  windowStart: number;
}

/**
 * Takes one guess (a gift certificate code, a booking's token) from a client's budget of its window with
 * one conditional update (the count grows only while under the budget, so concurrent guesses cannot
 * overdraw it); the record expires by TTL soon after its window. Refused: the budget is spent and nothing
 * is counted.
 */
export async function takeGuessAttempt(
  db: Db,
  options: GuessWindow & { windowSeconds: number; budget: number },
): Promise<{ admitted: boolean; attempts: number }> {
  try {
    const { Attributes } = await db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: guessAttemptsKey(options.kind, options.client, options.windowStart),
        UpdateExpression: 'ADD attempts :one SET entity = :entity, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(attempts) OR attempts < :budget',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':entity': `${options.kind.toLowerCase()}_attempts`,
          ':ttl': options.windowStart + options.windowSeconds + 60,
          ':budget': options.budget,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { admitted: true, attempts: numberOf(Attributes?.attempts) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { admitted: false, attempts: numberOf(error.Item?.attempts) };
  }
}

/** Gives back a guess taken by `takeGuessAttempt` (one that was right), never below zero. */
export async function returnGuessAttempt(db: Db, options: GuessWindow): Promise<void> {
  try {
    await db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: guessAttemptsKey(options.kind, options.client, options.windowStart),
        UpdateExpression: 'ADD attempts :minus',
        ConditionExpression: 'attempts > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
