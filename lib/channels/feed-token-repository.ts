import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { FEED_SCOPE_LIST, feedScopeKey, feedScopeListKey, feedTokenKey } from '../kernel/storage/keys.ts';
import { applyIfCondition, queryAll } from '../kernel/storage/operations.ts';
import { transact } from '../kernel/storage/transact.ts';

/**
 * What a calendar feed token opens: one item's channel feed (for every reader, or for one channel, whose own
 * blocks it leaves out), or the staff calendar of bookings.
 */
export type FeedScope = { kind: 'item'; itemId: number; channelId?: string } | { kind: 'bookings' };

/** The stored name of a scope: `item#7`, `item#7#airbnb`, `bookings`. */
export const scopeName = (scope: FeedScope): string =>
  scope.kind === 'bookings'
    ? 'bookings'
    : `item#${scope.itemId}${scope.channelId === undefined ? '' : `#${scope.channelId}`}`;

/** A feed token as stored (by the hash of its value), with the state of the feed it last answered. */
export interface StoredFeedToken {
  scope: string;
  item_id?: number;
  channel_id?: string;
  created_at: number;
  /** The hash of what the feed listed when it last changed, and since when (its Last-Modified). */
  feed_hash?: string;
  feed_since?: number;
}

/** A scope's current token, without the token: when it was made. */
export interface FeedScopeSummary {
  scope: string;
  created_at: number;
}

/** Reads the token of a hash, or undefined when no token has it (never existed, or rotated away). */
export async function getFeedToken(db: Db, tokenHash: string): Promise<StoredFeedToken | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: feedTokenKey(tokenHash) }),
  );
  return Item ? (Item as unknown as StoredFeedToken) : undefined;
}

/**
 * Makes `tokenHash` the scope's one token: the previous token stops working in the same transaction, and
 * two rotations at once cannot both win (the scope record is conditioned on the token it replaces).
 */
export async function replaceFeedToken(
  db: Db,
  options: { scope: FeedScope; tokenHash: string; now: number },
): Promise<void> {
  const name = scopeName(options.scope);
  const { Item: current } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: feedScopeKey(name), ConsistentRead: true }),
  );
  const previous = current?.token_hash as string | undefined;
  await transact(db, [
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...feedScopeKey(name),
          ...feedScopeListKey(name),
          entity: 'feed_scope',
          scope: name,
          token_hash: options.tokenHash,
          created_at: options.now,
        },
        ConditionExpression: previous ? 'token_hash = :previous' : 'attribute_not_exists(pk)',
        ...(previous ? { ExpressionAttributeValues: { ':previous': previous } } : {}),
      },
    },
    ...(previous ? [{ Delete: { TableName: db.tableName, Key: feedTokenKey(previous) } }] : []),
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...feedTokenKey(options.tokenHash),
          entity: 'feed_token',
          scope: name,
          ...(options.scope.kind === 'item'
            ? {
                item_id: options.scope.itemId,
                ...(options.scope.channelId === undefined ? {} : { channel_id: options.scope.channelId }),
              }
            : {}),
          created_at: options.now,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
}

/** Every scope that has a token, by name. */
export async function listFeedScopes(db: Db): Promise<FeedScopeSummary[]> {
  const records = await queryAll(db, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': FEED_SCOPE_LIST },
  });
  return records.map((record) => ({ scope: String(record.scope), created_at: Number(record.created_at) }));
}

/**
 * Records that a token's feed now lists what `feedHash` stands for, since `since`, unless it already did;
 * answers the feed's Last-Modified (ms). Two readers that see the same change keep the first one's time.
 */
export async function stampFeed(
  db: Db,
  options: { tokenHash: string; feedHash: string; since: number },
): Promise<number> {
  const changed = await applyIfCondition(() =>
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: feedTokenKey(options.tokenHash),
        UpdateExpression: 'SET feed_hash = :hash, feed_since = :now',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(feed_hash) OR feed_hash <> :hash)',
        ExpressionAttributeValues: { ':hash': options.feedHash, ':now': options.since },
      }),
    ),
  );
  if (changed) return options.since;
  const stored = await getFeedToken(db, options.tokenHash);
  return stored?.feed_hash === options.feedHash ? (stored.feed_since ?? options.since) : options.since;
}
