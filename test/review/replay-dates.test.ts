import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke, staffBasic } from '#test/support/events.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 1: webhook replay `since`, delivery lists and notes with extreme
// values, in-process (run under `timeout`).
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;

beforeAll(async () => {
  db = await createTestDb('review-replay');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        items: [makeItem({ item_id: 1, stock: 5 })],
        webhooks: [{ id: 'desk', url: 'https://a.example.com/in', events: ['*'] }],
      }),
    ),
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db));
  staff = await staffBasic(db, { now: 0 });
});

describe('review: replay since the ends of time', () => {
  // Expected to pass (resisted).
  it('answers quickly and never 5xx', async () => {
    for (const since of [
      '99981231',
      '>99981231',
      '<99981231',
      '19000101',
      '>19000101',
      '<19000101',
      '99999999999',
      '>99999999999',
      '<99999999999',
      '100000000',
      '<100000000',
      '999999999',
      '-1',
      '0',
      '>0',
      '18991231',
      '99991231',
      'today',
      '>today',
      '<tomorrow',
      '2026-13-01',
      '20260230',
      ' >20260101 ',
      '>>20260101',
      '<>20260101',
    ]) {
      for (const [method, path, body] of [
        ['POST', 'webhook/desk/replay', `since=${encodeURIComponent(since)}`],
        ['POST', 'webhook/all/replay', `since=${encodeURIComponent(since)}`],
        ['GET', 'booking/notes', `date=${encodeURIComponent(since)}`],
        ['GET', 'webhook/desk/delivery', `since=${encodeURIComponent(since)}`],
      ] as const) {
        const response = await invoke(handlers[resolveGroup(method, `/api/3.0/${path}`).group], {
          method,
          path,
          ...(method === 'POST'
            ? { body, contentType: 'application/x-www-form-urlencoded' }
            : { query: body }),
          headers: { authorization: staff },
        });
        expect(response.status, `${path} ${since}`).toBeLessThan(500);
      }
    }
  }, 200_000);
});
