import { deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DeleteCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Db } from './client.ts';
import {
  CHANNEL_BLOCK_PREFIX,
  CHANNEL_CONFLICT_PREFIX,
  CHANNEL_LIST,
  channelBlockKey,
  channelConflictKey,
  channelEventKey,
  channelListKey,
  channelPartition,
  channelStateKey,
} from './keys.ts';
import { queryAll } from './operations.ts';
import { holdStockAction, releaseStockAction } from './stock-repository.ts';
import type { TransactItem } from './transact.ts';

/** What the service knows of one channel's feed between syncs. */
export interface ChannelState {
  channel_id: string;
  item_id: number;
  last_fetch_at?: number;
  last_success_at?: number;
  /** Why the last fetch failed; absent once a fetch succeeds. */
  last_error?: string;
  /** When the feed began failing (the first failure of the current run of failures). */
  failing_since?: number;
  /** Validators of the last successful fetch, for the next conditional GET. */
  etag?: string;
  last_modified?: string;
  /** The slots the feed listed at its last successful read: what a 304 still stands for. */
  taken?: string[];
  /** The last date of the window that read covered (today's horizon then). */
  read_until?: string;
  /** When the feed was first seen empty while blocks were held (an empty feed releases only an hour later). */
  empty_since?: number;
  /** Blocks held and conflicts open after the last sync. */
  blocked: number;
  conflicts: number;
  updated_at: number;
}

/** A channel's block of one item slot: `units` of the counter taken for it. */
export interface ChannelBlock {
  item_id: number;
  slot: string;
  units: number;
  taken_at: number;
}

/** A slot the channel lists that this service had already sold: recorded, never forced onto the counter. */
export interface ChannelConflict {
  channel_id: string;
  item_id: number;
  slot: string;
  units: number;
  opened_at: number;
  /** The codes of the bookings holding the slot when the conflict was found. */
  bookings: string[];
  event_id: string;
}

/** One entry of a channel's audit trail. */
export interface ChannelEvent {
  event_id: string;
  type: string;
  at: number;
  channel_id: string;
  data: Record<string, unknown>;
}

/** Everything one sync diffs against: the state, the blocks held and the conflicts open, by slot. */
export interface ChannelHoldings {
  state?: ChannelState;
  blocks: Map<string, ChannelBlock>;
  conflicts: Map<string, ChannelConflict>;
}

const packSlots = (slots: string[]): Uint8Array => deflateRawSync(JSON.stringify(slots));
const unpackSlots = (stored: unknown): string[] | undefined =>
  stored instanceof Uint8Array
    ? (JSON.parse(inflateRawSync(stored).toString('utf8')) as string[])
    : undefined;

const stateOf = (record: Record<string, unknown>): ChannelState => {
  const { pk: _pk, sk: _sk, entity: _entity, gsi1pk: _a, gsi1sk: _b, taken, ...rest } = record;
  const slots = unpackSlots(taken);
  return { ...(rest as unknown as ChannelState), ...(slots ? { taken: slots } : {}) };
};

/** Reads a channel's state, blocks and conflicts in one strongly consistent query (paged past 1 MB). */
export async function readChannel(db: Db, channelId: string): Promise<ChannelHoldings> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': channelPartition(channelId) },
    ConsistentRead: true,
  });
  const holdings: ChannelHoldings = { blocks: new Map(), conflicts: new Map() };
  for (const record of records) {
    const sk = String(record.sk);
    if (sk === 'STATE') holdings.state = stateOf(record);
    else if (sk.startsWith(CHANNEL_BLOCK_PREFIX)) {
      const slot = sk.slice(CHANNEL_BLOCK_PREFIX.length);
      holdings.blocks.set(slot, {
        item_id: Number(record.item_id),
        slot,
        units: Number(record.units),
        taken_at: Number(record.taken_at),
      });
    } else if (sk.startsWith(CHANNEL_CONFLICT_PREFIX)) {
      const slot = sk.slice(CHANNEL_CONFLICT_PREFIX.length);
      holdings.conflicts.set(slot, { ...(record as unknown as ChannelConflict), slot });
    }
  }
  return holdings;
}

/**
 * The units a channel blocks of each slot of one item from `first` to `last`: the export leaves them out
 * for it. Blocks of another item (the channel named another before) are not this item's.
 */
export async function readChannelBlocks(
  db: Db,
  options: { channelId: string; itemId: number; first: string; last: string },
): Promise<Map<string, number>> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
    ExpressionAttributeValues: {
      ':pk': channelPartition(options.channelId),
      ':first': `${CHANNEL_BLOCK_PREFIX}${options.first}`,
      ':last': `${CHANNEL_BLOCK_PREFIX}${options.last}~`,
    },
    ProjectionExpression: 'sk, units, item_id',
  });
  return new Map(
    records
      .filter((record) => Number(record.item_id) === options.itemId)
      .map((record) => [String(record.sk).slice(CHANNEL_BLOCK_PREFIX.length), Number(record.units)]),
  );
}

/** The states of the given channels (BatchGet, 100 a call); channels never synced are absent. */
export async function getChannelStates(db: Db, channelIds: string[]): Promise<Map<string, ChannelState>> {
  const states = new Map<string, ChannelState>();
  for (let start = 0; start < channelIds.length; start += 100) {
    let keys: Record<string, unknown>[] | undefined = channelIds
      .slice(start, start + 100)
      .map(channelStateKey);
    while (keys?.length) {
      const page: BatchGetCommandOutput = await db.client.send(
        new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: keys } } }),
      );
      for (const record of page.Responses?.[db.tableName] ?? []) {
        const state = stateOf(record);
        states.set(state.channel_id, state);
      }
      keys = page.UnprocessedKeys?.[db.tableName]?.Keys;
    }
  }
  return states;
}

/** Every channel that has a state, in the file or no longer. */
export async function listChannelIds(db: Db): Promise<string[]> {
  const records = await queryAll(db, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': CHANNEL_LIST },
    ProjectionExpression: 'channel_id',
  });
  return records.map((record) => String(record.channel_id));
}

/** The open conflicts of a channel. */
export async function listConflicts(db: Db, channelId: string): Promise<ChannelConflict[]> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': channelPartition(channelId), ':prefix': CHANNEL_CONFLICT_PREFIX },
  });
  return records.map((record) => ({
    ...(record as unknown as ChannelConflict),
    slot: String(record.sk).slice(CHANNEL_CONFLICT_PREFIX.length),
  }));
}

/**
 * Takes a block: the counter grows by `units` only while it stays within capacity (the very condition of a
 * cart's hold), and the block record is created only if the channel does not hold that slot already.
 */
export function takeBlockActions(
  db: Db,
  options: { channelId: string; itemId: number; slot: string; units: number; capacity: number; now: number },
): TransactItem[] {
  return [
    holdStockAction(db, options),
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...channelBlockKey(options.channelId, options.slot),
          entity: 'channel_block',
          channel_id: options.channelId,
          item_id: options.itemId,
          slot: options.slot,
          units: options.units,
          taken_at: options.now,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/**
 * Changes a block's units in place: the counter moves by the difference only (more is held on the very
 * condition of a hold, less is released), and only if the block still holds what was read. A block never
 * lets go of what it holds while its date stays listed.
 */
export function resizeBlockActions(
  db: Db,
  options: { channelId: string; itemId: number; slot: string; from: number; to: number; capacity: number },
): TransactItem[] {
  const counter =
    options.to > options.from
      ? holdStockAction(db, { ...options, units: options.to - options.from })
      : releaseStockAction(db, { ...options, units: options.from - options.to });
  return [
    counter,
    {
      Update: {
        TableName: db.tableName,
        Key: channelBlockKey(options.channelId, options.slot),
        UpdateExpression: 'SET units = :to',
        ConditionExpression: 'units = :from',
        ExpressionAttributeValues: { ':to': options.to, ':from': options.from },
      },
    },
  ];
}

/** Releases a block: its units go back to the counter, only if the channel still holds it as it was read. */
export function releaseBlockActions(
  db: Db,
  options: { channelId: string; itemId: number; slot: string; units: number },
): TransactItem[] {
  return [
    releaseStockAction(db, options),
    {
      Delete: {
        TableName: db.tableName,
        Key: channelBlockKey(options.channelId, options.slot),
        ConditionExpression: 'units = :units',
        ExpressionAttributeValues: { ':units': options.units },
      },
    },
  ];
}

/** Records a conflict, once: a second sync that finds the same slot sold out finds it already open. */
export const openConflictAction = (db: Db, conflict: ChannelConflict): TransactItem => ({
  Put: {
    TableName: db.tableName,
    Item: {
      ...channelConflictKey(conflict.channel_id, conflict.slot),
      entity: 'channel_conflict',
      ...conflict,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** Closes a conflict that is still open. */
export const closeConflictAction = (db: Db, channelId: string, slot: string): TransactItem => ({
  Delete: {
    TableName: db.tableName,
    Key: channelConflictKey(channelId, slot),
    ConditionExpression: 'attribute_exists(pk)',
  },
});

/** Appends an event to a channel's audit trail. */
export const channelEventAction = (db: Db, event: ChannelEvent): TransactItem => ({
  Put: {
    TableName: db.tableName,
    Item: {
      ...channelEventKey(event.channel_id, event.at, event.event_id),
      entity: 'channel_event',
      ...event,
    },
  },
});

/** A channel's audit trail, newest first. */
export async function listChannelEvents(
  db: Db,
  options: { channelId: string; limit: number },
): Promise<ChannelEvent[]> {
  const records = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': channelEventKey(options.channelId, 0, '').pk },
      ScanIndexForward: false,
      Limit: options.limit,
    }),
  );
  return (records.Items ?? []) as unknown as ChannelEvent[];
}

/**
 * Writes what a sync learnt about its feed. Fields left undefined are removed (an error cleared, the
 * empty-feed clock stopped); `failing_since` is only ever set by `failingAction`.
 */
export function saveStateAction(
  db: Db,
  state: Omit<ChannelState, 'failing_since'> & { keepFailing?: boolean },
): TransactItem {
  const { keepFailing, taken, ...fields } = state;
  const values: Record<string, unknown> = {};
  const sets: string[] = ['entity = :entity', 'gsi1pk = :listPk', 'gsi1sk = :listSk'];
  const removes: string[] = keepFailing ? [] : ['failing_since'];
  const list = channelListKey(state.channel_id);
  values[':entity'] = 'channel_state';
  values[':listPk'] = list.gsi1pk;
  values[':listSk'] = list.gsi1sk;
  const optional = [
    'last_fetch_at',
    'last_success_at',
    'last_error',
    'etag',
    'last_modified',
    'empty_since',
    'read_until',
  ];
  for (const [name, value] of Object.entries({ ...fields, ...(taken ? { taken: packSlots(taken) } : {}) })) {
    if (value === undefined) continue;
    sets.push(`${name} = :${name}`);
    values[`:${name}`] = value;
  }
  for (const name of optional)
    if ((fields as Record<string, unknown>)[name] === undefined) removes.push(name);
  if (!taken) removes.push('taken');
  return {
    Update: {
      TableName: db.tableName,
      Key: channelStateKey(state.channel_id),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Marks a channel as failing since `now`, only if it was not already: the transaction that records its
 * `channel.failed` event therefore happens once per run of failures.
 */
export const failingAction = (
  db: Db,
  options: { channelId: string; itemId: number; now: number },
): TransactItem => {
  const list = channelListKey(options.channelId);
  return {
    Update: {
      TableName: db.tableName,
      Key: channelStateKey(options.channelId),
      UpdateExpression:
        'SET failing_since = :now, channel_id = :id, item_id = :item, entity = :entity, gsi1pk = :listPk, gsi1sk = :listSk',
      ConditionExpression: 'attribute_not_exists(failing_since)',
      ExpressionAttributeValues: {
        ':now': options.now,
        ':id': options.channelId,
        ':item': options.itemId,
        ':entity': 'channel_state',
        ':listPk': list.gsi1pk,
        ':listSk': list.gsi1sk,
      },
    },
  };
};

/** Records a failed fetch on a channel already failing (its time and reason), keeping what it knew. */
export async function recordFailure(
  db: Db,
  options: { channelId: string; itemId: number; error: string; now: number },
): Promise<void> {
  const list = channelListKey(options.channelId);
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: channelStateKey(options.channelId),
      UpdateExpression:
        'SET last_fetch_at = :now, last_error = :error, updated_at = :now, channel_id = :id, item_id = :item, entity = :entity, gsi1pk = :listPk, gsi1sk = :listSk, blocked = if_not_exists(blocked, :zero), conflicts = if_not_exists(conflicts, :zero)',
      ExpressionAttributeValues: {
        ':now': options.now,
        ':error': options.error,
        ':id': options.channelId,
        ':item': options.itemId,
        ':entity': 'channel_state',
        ':listPk': list.gsi1pk,
        ':listSk': list.gsi1sk,
        ':zero': 0,
      },
    }),
  );
}

/** Deletes a retired channel's state, so rounds stop listing it (its blocks and conflicts already gone). */
export async function forgetChannel(db: Db, channelId: string): Promise<void> {
  await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: channelStateKey(channelId) }));
}
