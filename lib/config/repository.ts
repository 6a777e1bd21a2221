import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import {
  ACCOUNT_PARTITION,
  accountKey,
  CATEGORY_PARTITION,
  configKey,
  ITEM_PARTITION,
  itemKey,
} from '../kernel/storage/keys.ts';
import { applyIfCondition, queryAll, stripKeys } from '../kernel/storage/operations.ts';
import {
  DEFAULT_ALERTS,
  DEFAULT_LIMITS,
  DEFAULT_POW,
  DEFAULT_SETTINGS,
  DEFAULT_WEBHOOK_SETTINGS,
} from './limits.ts';
import type { StoredAccount, StoredCategory, StoredConfig, StoredItem } from './model.ts';

/** A tenant record without its keys and its bookkeeping times (the tenant file has no such fields). */
const tenantRecord = <T>(record: Record<string, unknown>): T => {
  const { created_at: _created, updated_at: _updated, ...rest } = stripKeys<Record<string, unknown>>(record);
  return rest as T;
};

const queryPartition = (db: Db, pk: string): Promise<Record<string, unknown>[]> =>
  queryAll(db, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } });

/**
 * Settings added after a tenant may have been loaded: a stored configuration without them gets their
 * defaults, the very values the tenant schema fills in (`lib/config/limits.ts`).
 */
const withLaterSettings = (config: StoredConfig): StoredConfig => ({
  ...config,
  settings: {
    ...DEFAULT_SETTINGS,
    ...config.settings,
    trusted_proxies: config.settings.trusted_proxies ?? [],
    limits: { ...DEFAULT_LIMITS, ...config.settings.limits },
    webhooks: config.settings.webhooks ?? DEFAULT_WEBHOOK_SETTINGS,
    alerts: { ...DEFAULT_ALERTS, ...config.settings.alerts },
    pow: { ...DEFAULT_POW, ...config.settings.pow },
  },
  webhooks: config.webhooks ?? [],
  channels: config.channels ?? [],
});

/** Reads the tenant configuration, or undefined when no tenant has been loaded. */
export async function getConfig(db: Db): Promise<StoredConfig | undefined> {
  const { Item } = await db.documents.send(new GetCommand({ TableName: db.tableName, Key: configKey() }));
  return Item
    ? withLaterSettings({ ...tenantRecord<StoredConfig>(Item), updated_at: Number(Item.updated_at) })
    : undefined;
}

/** Lists every item, enabled or not, in one partition query. */
export async function listItems(db: Db): Promise<StoredItem[]> {
  return (await listItemsWithLoad(db)).map(({ item }) => item);
}

/** Lists every item with the `updated_at` of the tenant load that last wrote it, in one partition query. */
export async function listItemsWithLoad(db: Db): Promise<{ item: StoredItem; loadedAt: number }[]> {
  return (await queryPartition(db, ITEM_PARTITION)).map((record) => ({
    item: tenantRecord<StoredItem>(record),
    loadedAt: Number(record.updated_at),
  }));
}

/**
 * Reads items by id (BatchGetItem, 100 a call; `consistent`: strongly consistent reads); ids that do not
 * exist are absent from the result.
 */
export async function getItemsById(
  db: Db,
  ids: number[],
  options: { consistent?: boolean } = {},
): Promise<StoredItem[]> {
  const unique = [...new Set(ids)];
  const found: StoredItem[] = [];
  for (let start = 0; start < unique.length; start += 100) {
    let keys: Record<string, unknown>[] | undefined = unique.slice(start, start + 100).map(itemKey);
    while (keys?.length) {
      const page: BatchGetCommandOutput = await db.documents.send(
        new BatchGetCommand({
          RequestItems: {
            [db.tableName]: { Keys: keys, ...(options.consistent ? { ConsistentRead: true } : {}) },
          },
        }),
      );
      found.push(...(page.Responses?.[db.tableName] ?? []).map((record) => tenantRecord<StoredItem>(record)));
      keys = page.UnprocessedKeys?.[db.tableName]?.Keys;
    }
  }
  return found;
}

/** Reads items by id together with the parts of those that are packages (at most two calls). */
async function getItemsWithParts(
  db: Db,
  ids: number[],
  options: { consistent?: boolean },
): Promise<StoredItem[]> {
  const items = await getItemsById(db, ids, options);
  const have = new Set(items.map((item) => item.item_id));
  const parts = items
    .flatMap((item) => item.package?.items.map((part) => part.item_id) ?? [])
    .filter((id) => !have.has(id));
  return parts.length ? [...items, ...(await getItemsById(db, parts, options))] : items;
}

/** Loads items by id (with package parts) once per request: later calls reuse what was read. */
export type ItemLoader = (ids: number[]) => Promise<StoredItem[]>;

/** The items of `ids` found in `byId`, with the parts of the packages among them, each once. */
export function itemsWithParts(byId: ReadonlyMap<number, StoredItem>, ids: number[]): StoredItem[] {
  const wanted = new Set(ids);
  for (const id of ids) for (const part of byId.get(id)?.package?.items ?? []) wanted.add(part.item_id);
  return [...wanted].flatMap((id) => byId.get(id) ?? []);
}

/**
 * A per-request item loader over `getItemsWithParts`; `consistent`: the items as the table holds them now
 * (strongly consistent reads, twice the read capacity).
 */
export function createItemLoader(db: Db, options: { consistent?: boolean } = {}): ItemLoader {
  const seen = new Map<number, StoredItem>();
  return async (ids) => {
    const missing = ids.filter((id) => !seen.has(id));
    if (missing.length) {
      for (const item of await getItemsWithParts(db, missing, options)) seen.set(item.item_id, item);
    }
    return itemsWithParts(seen, ids);
  };
}

/** Lists every category, enabled or not. */
export async function listCategories(db: Db): Promise<StoredCategory[]> {
  return (await queryPartition(db, CATEGORY_PARTITION)).map((record) => tenantRecord<StoredCategory>(record));
}

/** Lists every staff account, enabled or not. */
export async function listAccounts(db: Db): Promise<StoredAccount[]> {
  return (await queryPartition(db, ACCOUNT_PARTITION)).map((record) => tenantRecord<StoredAccount>(record));
}

/** Reads one staff account. */
export async function getAccount(db: Db, accountId: number): Promise<StoredAccount | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: accountKey(accountId) }),
  );
  return Item ? tenantRecord<StoredAccount>(Item) : undefined;
}

/** Records a staff account's latest sign-in, never moving it backwards. */
export async function recordAccountLogin(
  db: Db,
  options: { accountId: number; at: number; ip: string },
): Promise<void> {
  await applyIfCondition(() =>
    db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: accountKey(options.accountId),
        UpdateExpression: 'SET date_last_login = :at, ip_last_login = :ip',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(date_last_login) OR date_last_login <= :at)',
        ExpressionAttributeValues: { ':at': options.at, ':ip': options.ip },
      }),
    ),
  );
}
