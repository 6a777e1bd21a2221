import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke, staffBasic } from '#test/support/events.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial review of issue 27 item 2 (no 5xx from any name a client can send): names that reach
// object prototypes through the PHP-style bracket parser and JSON bodies.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
const day = addDays(todayIn('America/Toronto', Date.now()), 30);

beforeAll(async () => {
  db = await createTestDb('review-proto');
  await writeTenant(
    db,
    makeTenant(makeTenantJson({ items: [makeItem({ item_id: 1, stock: 50 })] })),
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db));
  staff = await staffBasic(db, { now: 0 });
});

const NAMES = [
  '__proto__[polluted]',
  '__proto__',
  'constructor[prototype][polluted]',
  'param[__proto__][polluted]',
  'param[constructor]',
  'param[toString]',
  'param[hasOwnProperty]',
  'form[__proto__][polluted]',
  'form[constructor]',
  'form[toString]',
  'alter[__proto__]',
  'alter[constructor]',
  'alter[toString]',
  'slip[__proto__]',
  'hasOwnProperty',
  'toString',
  'valueOf',
];

describe('review: prototype names', () => {
  // Expected to pass (resisted).
  it('never answer 5xx nor pollute Object.prototype', async () => {
    const routes: [keyof typeof handlers, string, string][] = [
      ['items', 'GET', 'item/1'],
      ['items', 'GET', 'item'],
      ['items', 'GET', 'item/cal'],
      ['session', 'POST', 'booking/session'],
      ['bookings', 'POST', 'booking/create'],
      ['bookings', 'GET', 'booking/index'],
    ];
    for (const name of NAMES) {
      for (const [handler, method, path] of routes) {
        for (const form of [true, false]) {
          const base = `date=${day}&form[customer_name]=P&form[customer_email]=p@example.com`;
          const query = `${base}&${encodeURIComponent(name).replaceAll('%5B', '[').replaceAll('%5D', ']')}=1`;
          const response = await invoke(handlers[handler], {
            method,
            path,
            ...(method === 'POST' && form
              ? { body: query, contentType: 'application/x-www-form-urlencoded' }
              : { query }),
            headers: path.startsWith('booking/index') ? { authorization: staff } : {},
          });
          expect(response.status, `${method} ${path} ${name}`).toBeLessThan(500);
          expect(({} as Record<string, unknown>).polluted, name).toBeUndefined();
        }
        if (method === 'POST') {
          const response = await invoke(handlers[handler], {
            method,
            path,
            body: `{"${name.replace(/\[.*$/, '')}":{"polluted":1},"form":{"__proto__":{"polluted":1},"customer_name":"P","customer_email":"p@example.com"},"param":{"__proto__":{"qty":"5"}}}`,
            contentType: 'application/json',
          });
          expect(response.status, `${method} ${path} json ${name}`).toBeLessThan(500);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }
      }
    }
  }, 200_000);
});
