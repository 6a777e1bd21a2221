import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import type { Tenant, TenantAccount, TenantCategory, TenantItem } from '../config/tenant-schema.ts';
import { toMinor } from '../core/money.ts';
import { unixSeconds } from '../core/time.ts';
import type { Db } from './client.ts';
import {
  ACCOUNT_PARTITION,
  accountKey,
  CATEGORY_PARTITION,
  categoryKey,
  configKey,
  giftcertKey,
  ITEM_PARTITION,
  itemKey,
} from './keys.ts';
import { applyIfCondition, queryAll } from './operations.ts';

/** The tenant-wide configuration as stored: everything of the tenant file but the collections. */
export type StoredConfig = Pick<
  Tenant,
  | 'tenant'
  | 'company'
  | 'locale'
  | 'settings'
  | 'params'
  | 'statuses'
  | 'form'
  | 'policy'
  | 'taxes'
  | 'discounts'
> & { updated_at: number };

/** An item as stored (with its category's name, so listing needs one query); removed items stay, disabled. */
export type StoredItem = TenantItem & { category_name?: string };

/** A category as stored; categories removed from the tenant file stay, disabled. */
export type StoredCategory = TenantCategory & { enabled: boolean };

/** A staff account as stored, with what the service records about its use. */
export type StoredAccount = TenantAccount & {
  date_created: number;
  date_last_login: number;
  ip_last_login: string;
};

const RECORD_KEYS = new Set(['pk', 'sk', 'entity', 'created_at', 'updated_at', 'gsi1pk', 'gsi1sk', 'ttl']);

const stripKeys = <T>(record: Record<string, unknown>): T =>
  Object.fromEntries(Object.entries(record).filter(([name]) => !RECORD_KEYS.has(name))) as T;

const queryPartition = (db: Db, pk: string): Promise<Record<string, unknown>[]> =>
  queryAll(db, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } });

/** Settings added after a tenant may have been loaded: a stored configuration without them gets these. */
const withLaterSettings = (config: StoredConfig): StoredConfig => ({
  ...config,
  settings: {
    ...config.settings,
    max_session_minutes: config.settings.max_session_minutes ?? 60,
    trusted_proxies: config.settings.trusted_proxies ?? [],
    limits: { ...DEFAULT_LIMITS, ...config.settings.limits },
  },
});

/** Reads the tenant configuration, or undefined when no tenant has been loaded. */
export async function getConfig(db: Db): Promise<StoredConfig | undefined> {
  const { Item } = await db.client.send(new GetCommand({ TableName: db.tableName, Key: configKey() }));
  return Item
    ? withLaterSettings({ ...stripKeys<StoredConfig>(Item), updated_at: Number(Item.updated_at) })
    : undefined;
}

/** Lists every item, enabled or not, in one partition query. */
export async function listItems(db: Db): Promise<StoredItem[]> {
  return (await queryPartition(db, ITEM_PARTITION)).map((record) => stripKeys<StoredItem>(record));
}

/** Reads items by id (BatchGetItem, 100 a call); ids that do not exist are absent from the result. */
export async function getItemsById(db: Db, ids: number[]): Promise<StoredItem[]> {
  const unique = [...new Set(ids)];
  const found: StoredItem[] = [];
  for (let start = 0; start < unique.length; start += 100) {
    let keys: Record<string, unknown>[] | undefined = unique.slice(start, start + 100).map(itemKey);
    while (keys?.length) {
      const page: BatchGetCommandOutput = await db.client.send(
        new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: keys } } }),
      );
      found.push(...(page.Responses?.[db.tableName] ?? []).map((record) => stripKeys<StoredItem>(record)));
      keys = page.UnprocessedKeys?.[db.tableName]?.Keys;
    }
  }
  return found;
}

/** Reads items by id together with the parts of those that are packages (at most two calls). */
export async function getItemsWithParts(db: Db, ids: number[]): Promise<StoredItem[]> {
  const items = await getItemsById(db, ids);
  const have = new Set(items.map((item) => item.item_id));
  const parts = items
    .flatMap((item) => item.package?.items.map((part) => part.item_id) ?? [])
    .filter((id) => !have.has(id));
  return parts.length ? [...items, ...(await getItemsById(db, parts))] : items;
}

/** Loads items by id (with package parts) once per request: later calls reuse what was read. */
export type ItemLoader = (ids: number[]) => Promise<StoredItem[]>;

/** A per-request item loader over `getItemsWithParts`. */
export function createItemLoader(db: Db): ItemLoader {
  const seen = new Map<number, StoredItem>();
  return async (ids) => {
    const missing = ids.filter((id) => !seen.has(id));
    if (missing.length) for (const item of await getItemsWithParts(db, missing)) seen.set(item.item_id, item);
    const wanted = new Set(ids);
    for (const id of ids) for (const part of seen.get(id)?.package?.items ?? []) wanted.add(part.item_id);
    return [...wanted].flatMap((id) => seen.get(id) ?? []);
  };
}

/** Lists every category, enabled or not. */
export async function listCategories(db: Db): Promise<StoredCategory[]> {
  return (await queryPartition(db, CATEGORY_PARTITION)).map((record) => stripKeys<StoredCategory>(record));
}

/** Lists every staff account, enabled or not. */
export async function listAccounts(db: Db): Promise<StoredAccount[]> {
  return (await queryPartition(db, ACCOUNT_PARTITION)).map((record) => stripKeys<StoredAccount>(record));
}

/** Reads one staff account. */
export async function getAccount(db: Db, accountId: number): Promise<StoredAccount | undefined> {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: accountKey(accountId) }),
  );
  return Item ? stripKeys<StoredAccount>(Item) : undefined;
}

/** Records a staff account's latest sign-in, never moving it backwards. */
export async function recordAccountLogin(
  db: Db,
  options: { accountId: number; at: number; ip: string },
): Promise<void> {
  await applyIfCondition(() =>
    db.client.send(
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

/**
 * Writes `record`'s attributes onto the record at `key`, creating it if needed; `onCreate` attributes
 * are only set when the record is new, and `removeFields` are dropped.
 */
const upsert = async (
  db: Db,
  options: {
    key: { pk: string; sk: string };
    record: Record<string, unknown>;
    onCreate: Record<string, unknown>;
    removeFields?: string[];
  },
): Promise<void> => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  Object.entries(options.record).forEach(([name, value], index) => {
    if (value === undefined) return;
    names[`#a${index}`] = name;
    values[`:a${index}`] = value;
    sets.push(`#a${index} = :a${index}`);
  });
  Object.entries(options.onCreate).forEach(([name, value], index) => {
    names[`#c${index}`] = name;
    values[`:c${index}`] = value;
    sets.push(`#c${index} = if_not_exists(#c${index}, :c${index})`);
  });
  const removes = (options.removeFields ?? []).map((name, index) => {
    names[`#r${index}`] = name;
    return `#r${index}`;
  });
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: options.key,
      UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
};

const inBatches = async <T>(values: T[], size: number, work: (value: T) => Promise<void>): Promise<void> => {
  for (let start = 0; start < values.length; start += size) {
    await Promise.all(values.slice(start, start + size).map(work));
  }
};

/** What loading a tenant file changed. */
export interface TenantLoadSummary {
  items: number;
  categories: number;
  accounts: number;
  disabledItems: number[];
  disabledCategories: number[];
  disabledAccounts: number[];
  giftcertsCreated: string[];
  giftcertsKept: string[];
}

const OPTIONAL_ITEM_FIELDS = ['video', 'hours', 'package'] as const;

/**
 * Writes a validated tenant file into the table, idempotently: configuration, items, categories and
 * accounts are upserted; those no longer in the file are disabled, never deleted; gift certificates are
 * created once and their balances never reset. Sessions, stock counters and bookings are never touched.
 */
export async function writeTenant(db: Db, tenant: Tenant, now: number): Promise<TenantLoadSummary> {
  const { items, categories, accounts, giftcerts, $schema: _schema, ...config } = tenant;
  await upsert(db, {
    key: configKey(),
    record: { ...config, entity: 'config', updated_at: now },
    onCreate: { created_at: now },
  });

  const categoryNames = new Map(categories.map((category) => [category.category_id, category.name]));
  await inBatches(items, 10, (item) =>
    upsert(db, {
      key: itemKey(item.item_id),
      record: {
        ...item,
        category_name: categoryNames.get(item.category_id) ?? '',
        entity: 'item',
        updated_at: now,
      },
      onCreate: { created_at: now },
      removeFields: OPTIONAL_ITEM_FIELDS.filter((field) => item[field] === undefined),
    }),
  );
  await inBatches(categories, 10, (category) =>
    upsert(db, {
      key: categoryKey(category.category_id),
      record: { ...category, enabled: true, entity: 'category', updated_at: now },
      onCreate: { created_at: now },
    }),
  );
  await inBatches(accounts, 10, (account) =>
    upsert(db, {
      key: accountKey(account.account_id),
      record: { ...account, entity: 'account', updated_at: now },
      onCreate: {
        created_at: now,
        date_created: unixSeconds(now),
        date_last_login: 0,
        ip_last_login: '',
      },
    }),
  );

  const disable = async <T>(options: {
    stored: T[];
    id: (record: T) => number;
    keep: Set<number>;
    key: (id: number) => { pk: string; sk: string };
  }) => {
    const gone = options.stored.map(options.id).filter((id) => !options.keep.has(id));
    await inBatches(gone, 10, (id) =>
      upsert(db, { key: options.key(id), record: { enabled: false, updated_at: now }, onCreate: {} }),
    );
    return gone;
  };
  const disabledItems = await disable({
    stored: await listItems(db),
    id: (item) => item.item_id,
    keep: new Set(items.map((item) => item.item_id)),
    key: itemKey,
  });
  const disabledCategories = await disable({
    stored: await listCategories(db),
    id: (category) => category.category_id,
    keep: new Set(categories.map((category) => category.category_id)),
    key: categoryKey,
  });
  const disabledAccounts = await disable({
    stored: await listAccounts(db),
    id: (account) => account.account_id,
    keep: new Set(accounts.map((account) => account.account_id)),
    key: accountKey,
  });

  const giftcertsCreated: string[] = [];
  const giftcertsKept: string[] = [];
  await inBatches(giftcerts, 10, async (giftcert) => {
    const created = await applyIfCondition(() =>
      db.client.send(
        new PutCommand({
          TableName: db.tableName,
          Item: {
            ...giftcertKey(giftcert.code),
            entity: 'giftcert',
            ...giftcert,
            // Minor units, so a spend can be a conditional decrement.
            balance: toMinor(giftcert.amount, config.locale.decimals),
            created_at: now,
            updated_at: now,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    (created ? giftcertsCreated : giftcertsKept).push(giftcert.code);
  });

  return {
    items: items.length,
    categories: categories.length,
    accounts: accounts.length,
    disabledItems,
    disabledCategories,
    disabledAccounts,
    giftcertsCreated: giftcertsCreated.sort(),
    giftcertsKept: giftcertsKept.sort(),
  };
}
