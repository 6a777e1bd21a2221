import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import type { Db } from '#lib/db/client.ts';
import { writeTenant } from '#lib/db/tenant-repository.ts';
import { addDays, todayIn } from '#lib/domain/dates.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Issue 10: what third-party API 3.0 clients send must work unchanged.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
const day = addDays(todayIn('America/Toronto', Date.now()), 30);

beforeAll(async () => {
  db = await createTestDb('compat');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        params: { qty: { lbl: 'Quantity' }, adults: { lbl: 'Adults' } },
        items: [
          makeItem({ item_id: 1, sku: 'kayak', stock: 10 }),
          makeItem({
            item_id: 2,
            sku: 'cabin',
            name: 'Cabin',
            unit: 'N',
            stock: 3,
            params: { adults: { price: '50.00', def: 2 } },
          }),
        ],
      }),
    ),
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db));
});

describe('unknown parameters', () => {
  it('are ignored on a rated item and reported as sent, and the SLIP still comes', async () => {
    const { status, json, headers } = await invoke(handlers.items, {
      path: 'item/1',
      query: `date=${day}&qty=1&partner_id=7&utm_source=mail&param[qty]=2&param[nonexistent]=1&param[adults]=2`,
    });
    expect(status).toBe(200);
    expect(json.item.rate.status).toBe('AVAILABLE');
    expect(json.item.rate.slip).toEqual(expect.any(String));
    // `param[adults]` is the tenant's, just not this item's: not applied and not reported.
    expect(json.request.ignored).toEqual(['qty', 'partner_id', 'utm_source', 'param[nonexistent]']);
    expect(headers['x-ignored-parameters']).toBe('qty,partner_id,utm_source,param[nonexistent]');
  });

  it('are ignored on a rated list, where one parameter set goes to every item', async () => {
    const { status, json } = await invoke(handlers.items, {
      path: 'item',
      query: `start_date=${day}&end_date=${addDays(day, 2)}&param[qty]=1&param[adults]=2&filter[color]=red`,
    });
    expect(status).toBe(200);
    expect(json.items['1'].rate.slip).toEqual(expect.any(String));
    expect(json.items['2'].rate.slip).toEqual(expect.any(String));
    expect(json.request.ignored).toEqual(['filter[color]']);
  });

  it('still leave known parameters validated', async () => {
    for (const [query, field] of [
      [`date=${day}&qty=1&param[qty]=-1`, 'param[qty]'],
      ['date=20271341&qty=1', 'date'],
      [`item_id=${Array.from({ length: 101 }, (_, index) => index + 1).join(',')}&x=1`, 'item_id'],
    ] as const) {
      const { status, json } = await invoke(handlers.items, { path: 'item', query });
      expect(status).toBe(400);
      expect(Object.keys(json.request.error.data)).toContain(field);
    }
  });

  it('are ignored on the cart and on create, form fields included', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${day}` })).json.item.rate.slip;
    const added = await invoke(handlers.session, {
      method: 'POST',
      path: 'booking/session',
      body: `slip[]=${slip}&tracking=abc`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(added.status).toBe(200);
    expect(added.json.request.ignored).toEqual(['tracking']);
    const created = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `session_id=${added.json.booking.session.id}&form[customer_name]=Ada&form[customer_email]=ada@example.com&form[pets]=2&affiliate=9`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(created.status).toBe(200);
    expect(created.json.request.ignored).toEqual(['affiliate', 'form[pets]']);
  });

  it('still count toward the size limits', async () => {
    const long = await invoke(handlers.items, { path: 'item', query: `nonsense=${'x'.repeat(4097)}` });
    expect(long.status).toBe(400);
    expect(long.json.request.error.data).toEqual({ nonsense: 'at most 4096 characters' });
    const many = Array.from({ length: 501 }, (_, index) => `k${index}=1`).join('&');
    expect((await invoke(handlers.items, { path: 'item', query: many })).status).toBe(400);
    const deep = await invoke(handlers.items, { path: 'item', query: 'a[b][c][d][e][f][g]=1' });
    expect(deep.status).toBe(400);
  });
});
