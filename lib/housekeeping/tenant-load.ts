import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Tenant } from '../config/index.ts';
import { listAccounts, listCategories, listItems } from '../config/index.ts';
import { toMinor } from '../kernel/money.ts';
import type { Db } from '../kernel/storage/database.ts';
import {
  accountKey,
  categoryKey,
  configKey,
  giftcertKey,
  itemKey,
  STOCK_INDEX_LAYOUT,
} from '../kernel/storage/keys.ts';
import { applyIfCondition } from '../kernel/storage/operations.ts';
import { unixSeconds } from '../kernel/time.ts';
import { indexStockCounters } from '../stock/index.ts';
import { listEndpoints, retireEndpoint, upsertEndpointFromFile } from '../webhooks/index.ts';

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
  await db.documents.send(
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

/**
 * Records which index layout every counter carries (the configuration's `stock_index`); the flag of the
 * earlier day layout goes.
 */
const markStockIndexed = (db: Db) =>
  db.documents.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: configKey(),
      UpdateExpression: 'SET stock_index = :layout REMOVE stock_day_index',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':layout': STOCK_INDEX_LAYOUT },
    }),
  );

/** What loading a tenant file changed. */
export interface TenantLoadSummary {
  webhooks: number;
  /** Endpoints the file no longer lists: inactive now, their delivery history kept. */
  retiredWebhooks: string[];
  items: number;
  categories: number;
  accounts: number;
  disabledItems: number[];
  disabledCategories: number[];
  disabledAccounts: number[];
  giftcertsCreated: string[];
  giftcertsKept: string[];
  /** Counters written without the span-index keys (or with an earlier layout) given them, values untouched. */
  countersIndexed: number;
}

const OPTIONAL_ITEM_FIELDS = ['video', 'hours', 'package', 'cancellation'] as const;

/**
 * Writes a validated tenant file into the table, idempotently: configuration, items, categories and
 * accounts and webhook endpoints are upserted; those no longer in the file are disabled, never deleted; gift certificates are
 * created once and their balances never reset. Sessions and bookings are never touched, nor the stock
 * counters' values: counters written before the span index (or under its day layout) only receive its keys.
 */
export async function writeTenant(db: Db, tenant: Tenant, now: number): Promise<TenantLoadSummary> {
  const { items, categories, accounts, giftcerts, $schema: _schema, ...config } = tenant;
  await upsert(db, {
    key: configKey(),
    record: {
      ...config,
      items_with_cancellation: items.filter((item) => item.cancellation).map((item) => item.item_id),
      entity: 'config',
      updated_at: now,
    },
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
      db.documents.send(
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

  const listed = new Set(tenant.webhooks.map((webhook) => webhook.id));
  await inBatches(tenant.webhooks, 10, (webhook) => upsertEndpointFromFile(db, { webhook, now }));
  const retiredWebhooks = (await listEndpoints(db))
    .filter((endpoint) => endpoint.in_file && !listed.has(endpoint.id))
    .map((endpoint) => endpoint.id);
  await inBatches(retiredWebhooks, 10, (endpointId) => retireEndpoint(db, { endpointId, now }));

  // Counters from before the span index (or under its earlier day layout) join it; then lists may read
  // counters by month. Every write of a counter sets the index keys itself, so the flag stays once set.
  const countersIndexed = await indexStockCounters(
    db,
    (await listItems(db)).map((item) => item.item_id),
  );
  await markStockIndexed(db);

  return {
    countersIndexed,
    webhooks: tenant.webhooks.length,
    retiredWebhooks,
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
