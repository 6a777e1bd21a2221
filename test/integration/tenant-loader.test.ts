import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, DEFAULT_POW, DEFAULT_SETTINGS } from '#lib/config/limits.ts';
import { getConfig, listAccounts, listCategories, listItems } from '#lib/config/repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { configKey, giftcertKey } from '#lib/kernel/storage/keys.ts';
import { createTestDb, setGiftcertBalance } from '#test/support/dynamo.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

const balanceOf = async (db: Db, code: string) =>
  (await db.documents.send(new GetCommand({ TableName: db.tableName, Key: giftcertKey(code) }))).Item
    ?.balance;

describe('writeTenant', () => {
  it('loads the same file twice to the same state', async () => {
    const db = await createTestDb('loader');
    const tenant = makeTenant(makeTenantJson({ giftcerts: [{ code: 'GIFT-1', amount: '50.00' }] }));
    const first = await writeTenant(db, tenant, 1_000);
    const second = await writeTenant(db, tenant, 2_000);
    expect(first.giftcertsCreated).toEqual(['GIFT-1']);
    expect(second).toMatchObject({
      items: 1,
      giftcertsCreated: [],
      giftcertsKept: ['GIFT-1'],
      disabledItems: [],
    });
    expect(await listItems(db)).toHaveLength(1);
    const [account] = await listAccounts(db);
    expect(account?.date_created).toBe(1);
  });

  it('disables what the file no longer has, and never deletes it', async () => {
    const db = await createTestDb('loader');
    await writeTenant(
      db,
      makeTenant(
        makeTenantJson({
          categories: [
            { category_id: 1, name: 'A' },
            { category_id: 2, name: 'B' },
          ],
          items: [makeItem(), makeItem({ item_id: 2, sku: 'b', category_id: 2, hours: undefined })],
          accounts: [
            { account_id: 1, first_name: 'A', email: 'a@x.example', login_id: 'aa' },
            { account_id: 2, first_name: 'B', email: 'b@x.example', login_id: 'bb' },
          ],
        }),
      ),
      1_000,
    );
    const summary = await writeTenant(db, makeTenant(), 2_000);
    expect(summary).toMatchObject({ disabledItems: [2], disabledCategories: [2], disabledAccounts: [2] });
    const items = await listItems(db);
    expect(items.map((item) => [item.item_id, item.enabled])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect((await listCategories(db)).find((category) => category.category_id === 2)?.enabled).toBe(false);
    expect((await listAccounts(db)).find((account) => account.account_id === 2)?.enabled).toBe(false);
  });

  it('never resets a gift certificate balance', async () => {
    const db = await createTestDb('loader');
    await writeTenant(
      db,
      makeTenant(makeTenantJson({ giftcerts: [{ code: 'GIFT-1', amount: '50.00' }] })),
      1_000,
    );
    await setGiftcertBalance(db, 'GIFT-1', 1250);
    await writeTenant(
      db,
      makeTenant(makeTenantJson({ giftcerts: [{ code: 'GIFT-1', amount: '80.00' }] })),
      2_000,
    );
    expect(await balanceOf(db, 'GIFT-1')).toBe(1250);
  });

  it('drops optional item fields the file no longer sets', async () => {
    const db = await createTestDb('loader');
    const withVideo = makeTenantJson({
      items: [makeItem({ video: { id: 'https://v.example/1', start: 3 } })],
    });
    await writeTenant(db, makeTenant(withVideo), 1_000);
    expect((await listItems(db))[0]?.video).toEqual({ id: 'https://v.example/1', start: 3 });
    await writeTenant(db, makeTenant(), 2_000);
    expect((await listItems(db))[0]?.video).toBeUndefined();
  });

  it('reads a configuration stored before later settings existed with the defaults the schema fills in', async () => {
    const db = await createTestDb('loader');
    await writeTenant(db, makeTenant(), 1_000);
    await db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: configKey(),
        UpdateExpression: 'REMOVE settings.max_session_minutes, settings.limits, settings.pow',
      }),
    );
    const settings = (await getConfig(db))?.settings;
    expect(settings?.max_session_minutes).toBe(DEFAULT_SETTINGS.max_session_minutes);
    expect(settings?.limits).toEqual(DEFAULT_LIMITS);
    expect(settings?.pow).toEqual(DEFAULT_POW);
  });
});
