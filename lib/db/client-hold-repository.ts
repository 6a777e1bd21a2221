import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './client.ts';
import { clientHoldKey, clientSessionsKey } from './keys.ts';
import type { TransactItem } from './transact.ts';

/** How long a client's budget records outlive their last change before DynamoDB TTL deletes them. */
const KEEP_SECONDS = 7 * 86_400;

/**
 * Adds `units` to what a client holds of a counter, only while it stays within the client's allowance
 * (conditions cannot add, so the caller passes allowance − units) and, with `cooldownSession`, only once
 * the client's re-hold cooldown on the counter is over or for the very session that let go of it (which
 * gains nothing by it: its lifetime runs from its first hold).
 */
export function holdClientUnitsAction(
  db: Db,
  options: {
    client: string;
    counterId: string;
    units: number;
    allowance: number;
    nowSeconds: number;
    /** Set: the hold also waits for the client's re-hold cooldown, unless this session started it. */
    cooldownSession?: string;
  },
): TransactItem {
  const checkCooldown = options.cooldownSession !== undefined;
  const cooldown = checkCooldown
    ? ' AND (attribute_not_exists(cooldown_until) OR cooldown_until <= :now OR cooldown_session = :session)'
    : '';
  return {
    Update: {
      TableName: db.tableName,
      Key: clientHoldKey(options.client, options.counterId),
      UpdateExpression: 'ADD held :units SET entity = :entity, #ttl = :ttl',
      ConditionExpression: `(attribute_not_exists(held) OR held <= :room)${cooldown}`,
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':units': options.units,
        ':room': options.allowance - options.units,
        ':entity': 'client_hold',
        ':ttl': options.nowSeconds + KEEP_SECONDS,
        ...(checkCooldown ? { ':now': options.nowSeconds, ':session': options.cooldownSession } : {}),
      },
    },
  };
}

/** A re-hold cooldown: until when (Unix seconds), started by which session, written at what time. */
export interface Cooldown {
  until: number;
  sessionId: string;
  nowSeconds: number;
}

/**
 * Takes `units` off what a client holds of a counter (never refused, like releasing stock); with a
 * `cooldown` the client may not hold the counter again before its end, but from the session that let go
 * (the record then lives a week past it, so TTL deletes it only long after the cooldown).
 */
export function releaseClientUnitsAction(
  db: Db,
  options: { client: string; counterId: string; units: number; cooldown?: Cooldown | undefined },
): TransactItem {
  const { cooldown } = options;
  return {
    Update: {
      TableName: db.tableName,
      Key: clientHoldKey(options.client, options.counterId),
      UpdateExpression: `ADD held :units SET entity = :entity${cooldown ? ', cooldown_until = :until, cooldown_session = :session, #ttl = :ttl' : ''}`,
      ...(cooldown ? { ExpressionAttributeNames: { '#ttl': 'ttl' } } : {}),
      ExpressionAttributeValues: {
        ':units': -options.units,
        ':entity': 'client_hold',
        ...(cooldown
          ? {
              ':until': cooldown.until,
              ':session': cooldown.sessionId,
              ':ttl': Math.max(cooldown.until, cooldown.nowSeconds) + KEEP_SECONDS,
            }
          : {}),
      },
    },
  };
}

/** A client's re-hold cooldown on a counter, if one was ever recorded (consistent read). */
export async function getClientCooldown(
  db: Db,
  options: { client: string; counterId: string },
): Promise<{ until: number; sessionId: string } | undefined> {
  const { Item } = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: clientHoldKey(options.client, options.counterId),
      ConsistentRead: true,
      ProjectionExpression: 'cooldown_until, cooldown_session',
    }),
  );
  return typeof Item?.cooldown_until === 'number'
    ? { until: Item.cooldown_until, sessionId: String(Item.cooldown_session ?? '') }
    : undefined;
}

/** Enters a session in its client's set of holding sessions, only while the set has room (or has it). */
export function claimClientSessionAction(
  db: Db,
  options: { client: string; sessionId: string; max: number; nowSeconds: number },
): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: clientSessionsKey(options.client),
      UpdateExpression: 'ADD sessions :ids SET entity = :entity, #ttl = :ttl',
      ConditionExpression:
        'attribute_not_exists(sessions) OR size(sessions) < :max OR contains(sessions, :id)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':ids': new Set([options.sessionId]),
        ':id': options.sessionId,
        ':max': options.max,
        ':entity': 'client_sessions',
        ':ttl': options.nowSeconds + KEEP_SECONDS,
      },
    },
  };
}

/** Takes a session out of its client's set of holding sessions. */
export function dropClientSessionAction(
  db: Db,
  options: { client: string; sessionId: string },
): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: clientSessionsKey(options.client),
      UpdateExpression: 'DELETE sessions :ids',
      ExpressionAttributeValues: { ':ids': new Set([options.sessionId]) },
    },
  };
}

/** Lists a client's holding sessions as recorded in its set (consistent read). */
export async function getClientSessions(db: Db, client: string): Promise<string[]> {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: clientSessionsKey(client), ConsistentRead: true }),
  );
  return [...((Item?.sessions as Set<string> | undefined) ?? [])];
}
