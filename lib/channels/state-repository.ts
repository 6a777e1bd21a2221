import { deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DeleteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { CHANNEL_LIST, channelListKey, channelStateKey } from '../kernel/storage/keys.ts';
import { queryAll } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';

// A channel's sync state: what its last read of the feed left, whether it is failing, and the list of
// every channel that has one. Its blocks and conflicts are channel-repository.ts's.

/** What the service knows of one channel's feed between syncs. */
export interface ChannelState {
  channel_id: string;
  item_id: number;
  last_fetch_at?: number;
  last_success_at?: number;
  /** Why the last fetch failed; absent once a fetch succeeds. */
  last_error?: string;
  /**
   * While the feed is failing: when its run of failures began (the first failure, or, for a feed failing
   * again within FAILURE_MEMORY_MS of its last failure, the start of the run it resumes).
   */
  failing_since?: number;
  /** The start of the latest run of failures, kept after the feed reads again: a run it may resume. */
  failure_run_since?: number;
  /** When a read last failed, kept after the feed reads again. */
  last_failed_at?: number;
  /** The current run of failures resumed an earlier one without a `channel.failed` of its own. */
  failing_quietly?: boolean;
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

const packSlots = (slots: string[]): Uint8Array => deflateRawSync(JSON.stringify(slots));
const unpackSlots = (stored: unknown): string[] | undefined =>
  stored instanceof Uint8Array
    ? (JSON.parse(inflateRawSync(stored).toString('utf8')) as string[])
    : undefined;

export const stateOf = (record: Record<string, unknown>): ChannelState => {
  const { pk: _pk, sk: _sk, entity: _entity, gsi1pk: _a, gsi1sk: _b, taken, ...rest } = record;
  const slots = unpackSlots(taken);
  return { ...(rest as unknown as ChannelState), ...(slots ? { taken: slots } : {}) };
};

/** The states of the given channels (BatchGet, 100 a call); channels never synced are absent. */
export async function getChannelStates(db: Db, channelIds: string[]): Promise<Map<string, ChannelState>> {
  const states = new Map<string, ChannelState>();
  for (let start = 0; start < channelIds.length; start += 100) {
    let keys: Record<string, unknown>[] | undefined = channelIds
      .slice(start, start + 100)
      .map(channelStateKey);
    while (keys?.length) {
      const page: BatchGetCommandOutput = await db.documents.send(
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

/** The fields of a channel's failures, written only by `failingAction` and `recordFailure`. */
type FailureFields = 'failing_since' | 'failure_run_since' | 'last_failed_at' | 'failing_quietly';

/**
 * Writes what a sync learnt about its feed. Fields left undefined are removed (an error cleared, the
 * empty-feed clock stopped), and the channel is no longer failing unless `keepFailing`; the memory of its
 * last run of failures (`failure_run_since`, `last_failed_at`) stays.
 */
export function saveStateAction(
  db: Db,
  state: Omit<ChannelState, FailureFields> & { keepFailing?: boolean },
): TransactItem {
  const { keepFailing, taken, ...fields } = state;
  const values: Record<string, unknown> = {};
  const sets: string[] = ['entity = :entity', 'gsi1pk = :listPk', 'gsi1sk = :listSk'];
  const removes: string[] = keepFailing ? [] : ['failing_since', 'failing_quietly'];
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
 * Marks a channel as failing since `since`, only if it was not already: the transaction that records its
 * `channel.failed` event therefore happens once per run of failures. `quietly`: the run resumes an earlier
 * one (`since` is that run's start) and announces nothing.
 */
export const failingAction = (
  db: Db,
  options: { channelId: string; itemId: number; since: number; quietly: boolean },
): TransactItem => {
  const list = channelListKey(options.channelId);
  return {
    Update: {
      TableName: db.tableName,
      Key: channelStateKey(options.channelId),
      UpdateExpression: `SET failing_since = :since, failure_run_since = :since, channel_id = :id, item_id = :item, entity = :entity, gsi1pk = :listPk, gsi1sk = :listSk${options.quietly ? ', failing_quietly = :quietly' : ' REMOVE failing_quietly'}`,
      ConditionExpression: 'attribute_not_exists(failing_since)',
      ExpressionAttributeValues: {
        ':since': options.since,
        ':id': options.channelId,
        ':item': options.itemId,
        ':entity': 'channel_state',
        ':listPk': list.gsi1pk,
        ':listSk': list.gsi1sk,
        ...(options.quietly ? { ':quietly': true } : {}),
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
  await db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: channelStateKey(options.channelId),
      UpdateExpression:
        'SET last_fetch_at = :now, last_failed_at = :now, last_error = :error, updated_at = :now, channel_id = :id, item_id = :item, entity = :entity, gsi1pk = :listPk, gsi1sk = :listSk, blocked = if_not_exists(blocked, :zero), conflicts = if_not_exists(conflicts, :zero)',
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
  await db.documents.send(new DeleteCommand({ TableName: db.tableName, Key: channelStateKey(channelId) }));
}
