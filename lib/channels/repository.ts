import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import {
  CHANNEL_BLOCK_PREFIX,
  CHANNEL_CLOSED_PREFIX,
  CHANNEL_CONFLICT_PREFIX,
  channelBlockKey,
  channelClosedKey,
  channelConflictKey,
  channelEventKey,
  channelPartition,
} from '../kernel/storage/keys.ts';
import { queryAll } from '../kernel/storage/operations.ts';
import type { NamedAction, TransactItem } from '../kernel/storage/transact.ts';
import { holdStockAction, releaseStockAction } from '../stock/index.ts';
import { retentionTtl } from '../webhooks/index.ts';
import { type ChannelState, stateOf } from './state-repository.ts';

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
  /** The `channel.conflict` event that announced it (for one re-opened unannounced, the one of before). */
  event_id: string;
  /**
   * Whether its opening was announced (its own event, or counted in a capped one); false when it was
   * re-opened soon after closing for the same bookings. Records from before this flag were all announced.
   */
  announced?: boolean;
}

/** A conflict closed lately: its slot, the bookings it named and the event that announced it. */
export interface ClosedConflict {
  slot: string;
  bookings: string[];
  event_id: string;
  closed_at: number;
}

/** One entry of a channel's audit trail. */
export interface ChannelEvent {
  event_id: string;
  type: string;
  at: number;
  channel_id: string;
  data: Record<string, unknown>;
}

/** Everything one sync diffs against: the state, the blocks held, the conflicts open and those closed lately, by slot. */
export interface ChannelHoldings {
  state?: ChannelState;
  blocks: Map<string, ChannelBlock>;
  conflicts: Map<string, ChannelConflict>;
  closed: Map<string, ClosedConflict>;
}

/** Reads a channel's state, blocks and conflicts in one strongly consistent query (paged past 1 MB). */
export async function readChannel(db: Db, channelId: string): Promise<ChannelHoldings> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': channelPartition(channelId) },
    ConsistentRead: true,
  });
  const holdings: ChannelHoldings = { blocks: new Map(), conflicts: new Map(), closed: new Map() };
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
    } else if (sk.startsWith(CHANNEL_CLOSED_PREFIX)) {
      const slot = sk.slice(CHANNEL_CLOSED_PREFIX.length);
      holdings.closed.set(slot, {
        slot,
        bookings: (record.bookings as string[] | undefined) ?? [],
        event_id: String(record.event_id),
        closed_at: Number(record.closed_at),
      });
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
 * What an action of a block's change does: moves the `counter` (its condition: the room a hold needs) or
 * writes the `block` record (its condition: the block as it was read).
 */
export type BlockRole = 'counter' | 'block';

/**
 * Takes a block: the counter grows by `units` only while it stays within capacity (the very condition of a
 * cart's hold), and the block record is created only if the channel does not hold that slot already.
 */
export function takeBlockActions(
  db: Db,
  options: { channelId: string; itemId: number; slot: string; units: number; capacity: number; now: number },
): NamedAction<BlockRole>[] {
  return [
    { role: 'counter', action: holdStockAction(db, options) },
    {
      role: 'block',
      action: {
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
): NamedAction<BlockRole>[] {
  const counter =
    options.to > options.from
      ? holdStockAction(db, { ...options, units: options.to - options.from })
      : releaseStockAction(db, { ...options, units: options.from - options.to });
  return [
    { role: 'counter', action: counter },
    {
      role: 'block',
      action: {
        Update: {
          TableName: db.tableName,
          Key: channelBlockKey(options.channelId, options.slot),
          UpdateExpression: 'SET units = :to',
          ConditionExpression: 'units = :from',
          ExpressionAttributeValues: { ':to': options.to, ':from': options.from },
        },
      },
    },
  ];
}

/** Releases a block: its units go back to the counter, only if the channel still holds it as it was read. */
export function releaseBlockActions(
  db: Db,
  options: { channelId: string; itemId: number; slot: string; units: number },
): NamedAction<BlockRole>[] {
  return [
    { role: 'counter', action: releaseStockAction(db, options) },
    {
      role: 'block',
      action: {
        Delete: {
          TableName: db.tableName,
          Key: channelBlockKey(options.channelId, options.slot),
          ConditionExpression: 'units = :units',
          ExpressionAttributeValues: { ':units': options.units },
        },
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

/**
 * Remembers a conflict as it closes, until `keepUntil` (ms; the table's TTL deletes it some time after):
 * opened again before then for the same bookings, it is not announced again.
 */
export const rememberClosedAction = (
  db: Db,
  options: { channelId: string; conflict: ClosedConflict; keepUntil: number },
): TransactItem => ({
  Put: {
    TableName: db.tableName,
    Item: {
      ...channelClosedKey(options.channelId, options.conflict.slot),
      entity: 'channel_closed_conflict',
      channel_id: options.channelId,
      ...options.conflict,
      ttl: Math.ceil(options.keepUntil / 1000),
    },
  },
});

/** Appends an event to a channel's audit trail, kept `retentionDays` (the table's TTL deletes it then). */
export const channelEventAction = (
  db: Db,
  event: ChannelEvent,
  options: { retentionDays: number },
): TransactItem => ({
  Put: {
    TableName: db.tableName,
    Item: {
      ...channelEventKey(event.channel_id, event.at, event.event_id),
      entity: 'channel_event',
      ...event,
      ttl: retentionTtl(event.at, options.retentionDays),
    },
  },
});

/** A channel's audit trail, newest first. */
export async function listChannelEvents(
  db: Db,
  options: { channelId: string; limit: number },
): Promise<ChannelEvent[]> {
  const records = await db.documents.send(
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
