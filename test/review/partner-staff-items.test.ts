import { beforeAll, describe, expect, it } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { accountBasic, invoke } from '#test/support/events.ts';
import { makeAccount, makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Adversarial review of issue 27 item 6: a partner (and a guest) reading a staff-only item through
// calendars, lists and package parts.
const STAFF_ONLY = 9;
const PACKAGE = 10; // a public package whose part is the staff-only item
const day = addDays(todayIn('America/Toronto', Date.now()), 90);
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let partner: string;

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'review-partner-items',
    makeTenantJson({
      settings: { booking_code_prefix: 'TEST' },
      items: [
        makeItem({ item_id: 1 }),
        makeItem({ item_id: STAFF_ONLY, sku: 'slip', name: 'Boat slip SECRET', visibility: 'S', stock: 3 }),
      ],
      accounts: [makeAccount('ada'), makeAccount('agent')],
    }),
  ));
  partner = await accountBasic(db, 2, { label: 'agent', now: 0 });
});

describe('review: a staff-only item, to a partner without staff_items and to a guest', () => {
  // Expected to pass (resisted).
  it('is in no list, calendar or rating', async () => {
    expect(PACKAGE).toBe(10);
    for (const headers of [
      { authorization: partner },
      {},
      { authorization: partner, 'x-on-behalf': 'off' },
    ]) {
      for (const [path, query] of [
        [`item/${STAFF_ONLY}`, ''],
        [`item/${STAFF_ONLY}`, `date=${day}`],
        [`item/${STAFF_ONLY}/cal`, `start_date=${day}`],
        ['item/cal', `item_id=${STAFF_ONLY}&start_date=${day}`],
        ['item/cal', `start_date=${day}`],
        ['item', `item_id=${STAFF_ONLY}`],
        ['item', `item_id=${STAFF_ONLY}&date=${day}`],
        ['item', 'keyword=SECRET'],
        ['item', 'category_id=1'],
      ] as const) {
        const response = await invoke(handlers.items, {
          path,
          query,
          headers: headers as Record<string, string>,
        });
        expect(response.status, `${path}?${query}`).toBeLessThan(500);
        expect(JSON.stringify(response.json), `${path}?${query} ${JSON.stringify(headers)}`).not.toContain(
          'SECRET',
        );
        const cal = response.json?.item?.cal ?? response.json?.items;
        if (path === 'item/cal' && cal) expect(JSON.stringify(cal)).not.toContain(`"${STAFF_ONLY}"`);
      }
    }
  });
});
