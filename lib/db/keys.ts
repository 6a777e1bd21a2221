/** Pure key builders: every record's pk/sk (and index keys) are made here and nowhere else. */
const pad = (id: number): string => String(id).padStart(10, '0');

/** The tenant's configuration record (company, locale, settings, params, form, taxes, discounts). */
export const configKey = () => ({ pk: 'TENANT', sk: 'CONFIG' });

/** All items live in one partition, so listing them is one query. */
export const ITEM_PARTITION = 'ITEM';
export const itemKey = (itemId: number) => ({ pk: ITEM_PARTITION, sk: `ITEM#${pad(itemId)}` });

export const CATEGORY_PARTITION = 'CATEGORY';
export const categoryKey = (categoryId: number) => ({
  pk: CATEGORY_PARTITION,
  sk: `CATEGORY#${pad(categoryId)}`,
});

export const ACCOUNT_PARTITION = 'ACCOUNT';
export const accountKey = (accountId: number) => ({ pk: ACCOUNT_PARTITION, sk: `ACCOUNT#${pad(accountId)}` });

/** A gift certificate and its balance. */
export const giftcertKey = (code: string) => ({ pk: `GIFTCERT#${code}`, sk: 'GIFTCERT' });

/** A staff API credential, listed through gsi1. */
export const CREDENTIAL_LIST = 'CREDENTIALS';
export const credentialKey = (key: string) => ({ pk: `CREDENTIAL#${key}`, sk: 'CREDENTIAL' });
export const credentialListKey = (key: string) => ({ gsi1pk: CREDENTIAL_LIST, gsi1sk: key });

/** A bearer token, found by the hash of its value. */
export const tokenKey = (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' });

/** The gsi1 partition holding the sessions that expire in one UTC minute (the sweeper's shard). */
export const sessionExpiryShard = (epochSeconds: number): string => {
  const minute = new Date(Math.floor(epochSeconds / 60) * 60_000).toISOString().slice(0, 16);
  return `SESSION_EXPIRY#${minute}`;
};

/** The stock counter of one item slot (a date, or a UTC hour for hourly items), holding `used`. */
export const stockPartition = (itemId: number) => `STOCK#${itemId}`;
export const stockKey = (itemId: number, slot: string) => ({ pk: stockPartition(itemId), sk: slot });

/** A session (cart). */
export const sessionKey = (id: string) => ({ pk: `SESSION#${id}`, sk: 'SESSION' });

/** The sweeper's progress: the minute up to which every expiry shard has been read. */
export const sweeperStateKey = () => ({ pk: 'SWEEPER', sk: 'STATE' });
