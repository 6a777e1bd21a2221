import { beforeAll, describe, expect, it } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Adversarial review of the cross-site guard (issue 27 item 7): cart changes by GET (an <img> on another
// site carries a SameSite=None cookie), and Origin spellings.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
const day = addDays(todayIn('America/Toronto', Date.now()), 80);

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'review-xsite',
    makeTenantJson({
      settings: { booking_code_prefix: 'TEST' },
      items: [makeItem({ item_id: 1, stock: 50 })],
    }),
  ));
  client = sessionClient(handlers);
});

const usedOf = (): Promise<number> => readUsed(db, 1, day);

describe('review: cookie-only cart changes by GET from another site', () => {
  // Expected to pass (resisted).
  it('are refused like POSTs', async () => {
    const cart = await client.add([await client.slip(1, `date=${day}&param[qty]=1`)]);
    const id = sessionOf(cart).id;
    const cookies = [`session_id=${id}`];
    const slip = await client.slip(1, `date=${day}&param[qty]=2`);
    for (const headers of [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
      { origin: 'https://evil.example.net' },
      { 'sec-fetch-site': ' cross-site' },
      { 'sec-fetch-site': 'cross-site, same-origin' },
    ]) {
      for (const [path, query] of [
        ['booking/session', `slip[]=${encodeURIComponent(slip)}`],
        ['booking/session', 'alter[1]=5'],
        ['booking/session/clear', ''],
        ['booking/session/end', ''],
      ] as const) {
        const response = await invoke(handlers.session, {
          path,
          query,
          cookies,
          headers: headers as unknown as Record<string, string>,
        }).catch((error: Error) => ({ status: 405, json: { error: error.message } }));
        if (response.status === 405) continue;
        expect(response.status, `${path}?${query} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    expect(await usedOf()).toBe(1);
  });
});
