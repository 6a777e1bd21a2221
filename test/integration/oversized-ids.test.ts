import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { ROUTES } from '#functions/routes.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke, staffBasic, type TestRequest } from '#test/support/events.ts';
import { makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Attack script for issue 9, point 8: every identifier a client sends is bounded before it reaches
// DynamoDB, whose keys stop at 2 KB (a longer one was a 500 before).
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
const huge = 'A'.repeat(5_000);

beforeAll(async () => {
  db = await createTestDb('oversized');
  await writeTenant(db, makeTenant(makeTenantJson()), Date.now());
  handlers = createAllHandlers(testDeps(db));
  staff = await staffBasic(db, { onBehalf: true, now: 0 });
});

const attempts = (): { name: string; request: TestRequest }[] =>
  ROUTES.flatMap((route) => {
    const path = route.path.replace(/\{[a-z_]+\}/g, huge);
    const base = { method: route.method, path };
    const form = route.method === 'POST' ? { contentType: 'application/x-www-form-urlencoded' } : {};
    const of = (name: string, request: Partial<TestRequest>) => ({
      name: `${route.method} ${route.path} ${name}`,
      request: { ...base, ...form, ...request },
    });
    return [
      of('as a customer', {}),
      of('as staff', { headers: { authorization: staff } }),
      of('with a huge session cookie', { cookies: [`session_id=${huge}`] }),
      of('with a huge session_id', { query: `session_id=${huge}` }),
      of('with a huge Basic key', { headers: { authorization: basic(huge, 'secret-secret-secret') } }),
      of('with a huge bearer token', { headers: { authorization: `Bearer ${huge}` } }),
      of('with a huge access_token', { query: `access_token=${huge}` }),
      of('with huge codes', {
        query: `customer_email=${huge}@example.com&giftcert_code=${huge}&discount_code=${huge}&token=${huge}`,
        headers: { authorization: staff },
      }),
      of('with a huge Idempotency-Key and cookie', {
        cookies: [`session_id=${huge}`],
        headers: { 'idempotency-key': huge.slice(0, 255) },
        ...(route.method === 'POST'
          ? { body: 'form[customer_name]=A&form[customer_email]=a@example.com' }
          : {}),
      }),
    ];
  });

describe('oversized identifiers', () => {
  it('never produce a server error on any route', async () => {
    const failures: string[] = [];
    for (const { name, request } of attempts()) {
      const response = await invoke(handlers[groupOf(request)], request);
      if (response.status >= 500) failures.push(`${name}: ${response.status}`);
    }
    expect(failures).toEqual([]);
  });
});

const groupOf = (request: TestRequest) => {
  const route = ROUTES.find(
    (entry) =>
      entry.method === request.method &&
      new RegExp(`^${entry.path.replace(/\{[a-z_]+\}/g, '[^/]+')}$`).test(request.path),
  );
  return route?.group ?? 'meta';
};
