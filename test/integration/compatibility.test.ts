import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { DOCS_ASSETS } from '#functions/meta/docs.ts';
import { buildOpenApiDocument } from '#functions/openapi.ts';
import { createCredential } from '#lib/auth/credential-admin.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke, makeEvent, staffBasic, testContext } from '#test/support/events.ts';
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
        accounts: [
          { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' },
          {
            account_id: 2,
            first_name: 'Lake Tours',
            email: 'a@tours.example.com',
            login_id: 'tours',
            partner: true,
          },
          {
            account_id: 3,
            first_name: 'Inn Agent',
            email: 'b@inn.example.com',
            login_id: 'inn',
            partner: true,
          },
        ],
        items: [
          makeItem({
            item_id: 1,
            sku: 'kayak',
            stock: 10,
            rates: [
              {
                name: 'Summer',
                start_date: '20270601',
                end_date: '20270831',
                price: { param: { qty: '50.00' } },
              },
              { name: 'Weekend', dow: [0, 6], price: { param: { qty: '55.00' } } },
            ],
            rules: { closed_dates: ['20271225'], closed_dow: [] },
          }),
          makeItem({
            item_id: 2,
            sku: 'cabin',
            name: 'Cabin',
            unit: 'N',
            stock: 3,
            params: { adults: { price: '50.00', def: 2 } },
            rates: [{ name: 'Weekend', dow: [0, 6], price: { param: { adults: '60.00' } } }],
          }),
        ],
        discounts: [
          { code: 'EARLY', name: 'Early bird', type: 'percent', value: '10', end_date: '20200101' },
          { code: 'KAYAK5', name: 'Kayak five', type: 'amount', value: '5.00', item_ids: [1] },
        ],
      }),
    ),
    Date.now(),
  );
  handlers = createAllHandlers(testDeps(db));
  staff = await staffBasic(db, { onBehalf: true, now: 0 });
  const tours = await createCredential(db, { accountId: 2, onBehalf: false, label: 'tours', now: 0 });
  partner = basic(tours.key, tours.secret);
  const inn = await createCredential(db, { accountId: 3, onBehalf: false, label: 'inn', now: 0 });
  otherPartner = basic(inn.key, inn.secret);
});

let staff: string;
let partner: string;
let otherPartner: string;

/** Books one item for a query through the public flow and returns the booking code. */
const book = async (
  itemId: number,
  query: string,
  options: { headers?: Record<string, string>; email?: string } = {},
): Promise<string> => {
  const rated = await invoke(handlers.items, { path: `item/${itemId}`, query });
  const slip = rated.json.item.rate.slip;
  const created = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: `slip[]=${slip}&form[customer_name]=Sync&form[customer_email]=${options.email ?? 'sync@example.com'}`,
    contentType: 'application/x-www-form-urlencoded',
    headers: options.headers ?? {},
  });
  expect(created.status).toBe(200);
  return created.json.booking.code;
};

describe('booking list windows', () => {
  const base = addDays(day, 60);
  const at = (offset: number) => addDays(base, offset);
  const codes: Record<string, string> = {};
  const list = async (query: string) => {
    const response = await invoke(handlers.bookings, {
      path: 'booking/index',
      query,
      headers: { authorization: staff },
    });
    expect(response.status).toBe(200);
    return response.json;
  };
  const codesOf = (json: Record<string, any>) =>
    Object.values(json['booking/index'] as Record<string, { code: string }>)
      .map((row) => row.code)
      .sort();

  beforeAll(async () => {
    codes.checkOutOnFirstDay = await book(2, `start_date=${at(0)}&end_date=${at(2)}`);
    codes.overFirstDay = await book(2, `start_date=${at(1)}&end_date=${at(3)}`);
    codes.onFirstDay = await book(1, `date=${at(2)}`);
    codes.onLastDay = await book(1, `date=${at(5)}`);
    codes.after = await book(1, `date=${at(6)}`);
  });

  it('lists the bookings whose stay overlaps start_date to end_date, both ends included', async () => {
    const json = await list(`start_date=${at(2)}&end_date=${at(5)}`);
    expect(codesOf(json)).toEqual([codes.overFirstDay, codes.onFirstDay, codes.onLastDay].sort());
    expect(json.request).toMatchObject({ records: 3, total_records: 3, pages: 1 });
  });

  it('pages a window with limit and page, counted in total_records', async () => {
    const seen: string[] = [];
    let page = 1;
    let pages = 1;
    do {
      const json = await list(`start_date=${at(0)}&end_date=${at(6)}&limit=2&page=${page}`);
      expect(json.request.total_records).toBe(5);
      pages = json.request.pages;
      seen.push(...codesOf(json));
      page += 1;
    } while (page <= pages);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(Object.values(codes).sort());
  });

  it('accepts the dashed dates of sync clients and keeps the meaning of one date or a prefix', async () => {
    const dashed = (ymd: string) => `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6)}`;
    expect(codesOf(await list(`start_date=${dashed(at(5))}&end_date=${dashed(at(6))}`))).toEqual(
      [codes.onLastDay, codes.after].sort(),
    );
    expect(codesOf(await list(`start_date=${at(5)}`))).toEqual([codes.onLastDay]);
    expect(codesOf(await list(`start_date=>${at(4)}&end_date=${at(6)}`))).toEqual([codes.after]);
  });

  it('refuses a window that ends before it starts', async () => {
    const response = await invoke(handlers.bookings, {
      path: 'booking',
      query: `start_date=${at(5)}&end_date=${at(2)}`,
      headers: { authorization: staff },
    });
    expect(response.status).toBe(400);
    expect(response.json.request.error.data).toEqual({ end_date: 'is before start_date' });
  });
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

  it('are reported to the request that sent them when requests run at once', async () => {
    // Each request's names are collected by its own input object: twenty requests in flight together,
    // each with a parameter of its own, each told of its own alone.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        invoke(handlers.items, {
          path: n % 2 ? 'item/1' : 'item',
          query: `start_date=${day}&end_date=${addDays(day, 2)}&param[adults]=2&only_${n}=1`,
        }),
      ),
    );
    answers.forEach(({ status, json }, n) => {
      expect(status).toBe(200);
      expect(json.request.ignored).toEqual([`only_${n}`]);
    });
  });

  it('are reported by a request refused for another parameter, param[...] included', async () => {
    const { status, json, headers } = await invoke(handlers.items, {
      path: 'item/1',
      query: `date=${day}&rules=bogus&param[nonexistent]=1&foo=1`,
    });
    expect(status).toBe(400);
    expect(json.request.ignored).toEqual(['foo', 'param[nonexistent]']);
    expect(headers['x-ignored-parameters']).toBe('foo,param[nonexistent]');
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

  it('are reported as sent in the body and percent-encoded in the header when no header can carry them', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${day}` })).json.item.rate.slip;
    const created = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `slip[]=${slip}&form[customer_name]=Ada&form[customer_email]=ada@example.com&form[%D0%B8%D0%BC%D1%8F]=1&x%0D%0Ay=1`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(created.status).toBe(200);
    expect(created.json.request.ignored).toEqual(['x\r\ny', 'form[имя]']);
    expect(created.headers['x-ignored-parameters']).toBe('x%0D%0Ay,form[%D0%B8%D0%BC%D1%8F]');
  });

  it('are reported by a create refused for its form, and by its Idempotency-Key replay', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${day}` })).json.item.rate.slip;
    const create = (form: string, headers: Record<string, string> = {}) =>
      invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `slip[]=${slip}&form[customer_name]=Ada${form}&form[pets]=2&affiliate=9`,
        contentType: 'application/x-www-form-urlencoded',
        headers,
      });
    // No email: refused for its form, which is read after the unknown fields are noted.
    const refused = await create('');
    expect(refused.status).toBe(400);
    expect(refused.json.request.ignored).toEqual(['affiliate', 'form[pets]']);
    const key = { 'idempotency-key': `compat-${Date.now()}` };
    const first = await create('&form[customer_email]=ada@example.com', key);
    expect(first.status).toBe(200);
    const replay = await create('&form[customer_email]=ada@example.com', key);
    expect(replay.json.booking.code).toBe(first.json.booking.code);
    expect(replay.json.request.ignored).toEqual(['affiliate', 'form[pets]']);
  });

  it('are reported by a request for a malformed item id', async () => {
    for (const path of ['item/abc', 'item/abc/cal']) {
      const { status, json, headers } = await invoke(handlers.items, { path, query: 'foo=1' });
      expect(status).toBe(400);
      expect(json.request.error.data).toEqual({ item_id: 'a positive whole number' });
      expect(json.request.ignored).toEqual(['foo']);
      expect(headers['x-ignored-parameters']).toBe('foo');
    }
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

describe('harmless deviations of clients', () => {
  it('addresses a cart line by its SLIP in alter', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${addDays(day, 3)}` })).json
      .item.rate.slip;
    const added = await invoke(handlers.session, {
      method: 'POST',
      path: 'booking/session',
      body: `slip[]=${slip}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    const id = added.json.booking.session.id;
    const alter = (key: string, value: string) =>
      invoke(handlers.session, {
        method: 'POST',
        path: 'booking/session',
        body: `session_id=${id}&alter[${key}]=${value}`,
        contentType: 'application/x-www-form-urlencoded',
      });
    const grown = await alter(slip, '3');
    expect(grown.status).toBe(200);
    expect(grown.json.booking.session.item['1'].rate.qty).toBe(3);
    const unknown = await alter(`${slip.slice(0, -4)}AAAA`, '2');
    expect(unknown.status).toBe(400);
    expect(Object.values(unknown.json.request.error.data)).toEqual(['unknown line']);
    expect((await alter(slip, 'remove')).json.booking.session.item).toEqual({});
  });

  it('reads booleans, X-On-Behalf and authorization schemes in any letter case', async () => {
    const code = await book(1, `date=${addDays(day, 4)}`);
    const asStaff = (path: string, query: string, headers: Record<string, string> = {}) =>
      invoke(handlers.bookings, { path, query, headers: { authorization: staff, ...headers } });
    expect((await asStaff(`booking/${code}`, 'events=TRUE')).json.booking.events).toEqual(expect.any(Array));
    expect((await asStaff(`booking/${code}/bookmark`, 'mark=True')).json.booking.bookmarked).toBe(1);
    const checkedIn = await asStaff(`booking/${code}/checkin`, 'note=FALSE');
    expect(checkedIn.status).toBe(200);
    expect(checkedIn.json.booking.notes).toEqual([]);
    expect((await asStaff(`booking/${code}`, 'events=yes')).status).toBe(400);
    const packages = await invoke(handlers.items, { path: 'item', query: 'packages=FALSE' });
    expect(Object.keys(packages.json.items).sort()).toEqual(['1', '2']);
    const off = await invoke(handlers.bookings, {
      path: 'booking/form',
      headers: { authorization: staff, 'X-ON-BEHALF': 'Off' },
    });
    expect(off.json.booking_form_ui.customer_name.define.required).toBe(1);
  });
});

describe('partners', () => {
  const codes: Record<string, string> = {};
  const get = (path: string, authorization: string, query = '') =>
    invoke(handlers.bookings, { path, query, headers: { authorization } });
  const at = (offset: number) => addDays(day, 120 + offset);

  beforeAll(async () => {
    codes.byPartner = await book(1, `date=${at(0)}`, {
      headers: { authorization: partner },
      email: 'p@example.com',
    });
    codes.onBehalf = await book(1, `date=${at(1)}`, {
      headers: { authorization: staff, 'x-on-behalf': '2' },
      email: 'p@example.com',
    });
    codes.byOther = await book(1, `date=${at(2)}`, {
      headers: { authorization: otherPartner },
      email: 'o@example.com',
    });
    codes.direct = await book(1, `date=${at(3)}`, { email: 'o@example.com' });
  });

  it('attributes bookings made with a partner credential or on its behalf, on the record, rows and invoice', async () => {
    const record = await get(`booking/${codes.byPartner}`, staff);
    expect(record.json.booking.partner_id).toBe(2);
    expect((await get(`booking/${codes.onBehalf}`, staff)).json.booking.partner_id).toBe(2);
    expect((await get(`booking/${codes.direct}`, staff)).json.booking.partner_id).toBe(0);
    const invoice = await get(`booking/${codes.onBehalf}/invoice`, staff);
    expect(invoice.json.booking.invoice.partner_id).toBe(2);
    const rows = (await get('booking/index', staff, 'partner_id=2')).json['booking/index'];
    expect(
      Object.values(rows)
        .map((row: any) => row.code)
        .sort(),
    ).toEqual([codes.byPartner, codes.onBehalf].sort());
    expect(Object.values(rows).every((row: any) => row.partner_id === 2)).toBe(true);
  });

  it('filters lists by partner_id, and an unknown or non-partner id lists nothing', async () => {
    for (const id of ['99', '1', 'abc']) {
      const json = (await get('booking', staff, `partner_id=${id}`)).json;
      expect(json['booking/index']).toEqual({});
      expect(json.request.total_records).toBe(0);
    }
  });

  it('lets a partner credential see and change only its own bookings, with no oracle', async () => {
    const own = await get('booking/index', partner);
    expect(
      Object.values(own.json['booking/index'])
        .map((row: any) => row.code)
        .sort(),
    ).toEqual([codes.byPartner, codes.onBehalf].sort());
    expect((await get('booking/index', partner, 'partner_id=3')).json['booking/index']).toEqual({});
    for (const code of [codes.byOther, codes.direct]) {
      for (const path of [`booking/${code}`, `booking/${code}/invoice`]) {
        const refused = await get(path, partner);
        expect(refused.status).toBe(404);
        expect((await get(`booking/${'NOPE-000000'}`, partner)).json.request.error).toEqual({
          ...refused.json.request.error,
          details: expect.any(String),
          data: expect.any(Object),
        });
      }
      const update = await invoke(handlers.bookings, {
        method: 'POST',
        path: `booking/${code}/update`,
        query: 'status_id=VOID',
        headers: { authorization: partner },
      });
      expect(update.status).toBe(404);
    }
    expect((await get(`booking/${codes.byPartner}/checkin`, partner)).status).toBe(200);
  });

  it('shows a partner a customer only through its own bookings', async () => {
    const seen = await get('customer', partner, 'customer_email=p@example.com');
    const customer = Object.values(seen.json.customers)[0] as { customer_id: number; bookings: object };
    expect(Object.keys(customer.bookings).sort()).toEqual([codes.byPartner, codes.onBehalf].sort());
    const other = await get('customer', partner, 'customer_email=o@example.com');
    expect(other.json.customers).toEqual({});
    const otherId = Object.keys(
      (await get('customer', staff, 'customer_email=o@example.com')).json.customers,
    )[0];
    expect((await get(`customer/${otherId}`, partner)).status).toBe(404);
  });

  it('never lets a partner act on behalf of anyone, and shows partners in account rows', async () => {
    const refused = await invoke(handlers.meta, {
      path: 'account',
      headers: { authorization: partner, 'x-on-behalf': '1' },
    });
    expect(refused.status).toBe(403);
    await expect(
      createCredential(db, { accountId: 2, onBehalf: true, label: 'x', now: 0 }),
    ).rejects.toMatchObject({ code: 'partner_on_behalf' });
    const accounts = (await invoke(handlers.meta, { path: 'account', headers: { authorization: staff } }))
      .json.account;
    expect(accounts.map((account: { partner: number }) => account.partner)).toEqual([0, 1, 1]);
  });
});

describe('event and booking/notes', () => {
  const staffGet = (path: string, query = '', authorization = staff) =>
    invoke(path.startsWith('event') ? handlers.meta : handlers.bookings, {
      path,
      query,
      headers: { authorization },
    });

  it('lists the rate events keyed by id, paged to their end, and reads one', async () => {
    const all = await staffGet('event');
    expect(all.status).toBe(200);
    const events = Object.values(all.json.events) as Record<string, any>[];
    expect(events.map((event) => [event.type, event.name])).toEqual([
      ['rate', 'Summer'],
      ['rate', 'Weekend'],
      ['discount', 'Early bird'],
      ['discount', 'Kayak five'],
      ['closed', 'Closed 20271225'],
    ]);
    expect(all.json.events['2']).toMatchObject({
      event_id: 2,
      start_date: '',
      repeat: 'weekly',
      dow: ['0', '6'],
      enabled: 1,
      status: 'A',
      apply_to: { item_id: [1, 2], category_id: [1] },
    });
    expect(all.json.events['1']).toMatchObject({ start_date: '20270601', end_date: '20270831' });
    expect(all.json.events['3']).toMatchObject({ status: 'E', apply_to: { item_id: [1, 2] } });
    expect(all.json.events['4'].apply_to.item_id).toEqual([1]);

    const seen: string[] = [];
    let page = 1;
    let pages = 1;
    do {
      const json = (await staffGet('event', `limit=2&page=${page}`)).json;
      pages = json.request.pages;
      seen.push(...Object.keys(json.events));
      page += 1;
    } while (page <= pages);
    expect(pages).toBe(3);
    expect(seen).toEqual(['1', '2', '3', '4', '5']);

    const one = await staffGet('event/4');
    expect(one.json.event).toEqual(all.json.events['4']);
    expect((await staffGet('event/99')).status).toBe(404);
    expect((await invoke(handlers.meta, { path: 'event' })).status).toBe(401);
  });

  it('lists notes across bookings, newest first, by date, paged, and a partner sees only its own', async () => {
    const codes = [
      await book(1, `date=${addDays(day, 200)}`),
      await book(1, `date=${addDays(day, 201)}`, { headers: { authorization: partner } }),
    ];
    for (const [index, code] of codes.entries()) {
      for (const body of [`first of ${index}`, `second of ${index}`]) {
        const response = await invoke(handlers.bookings, {
          method: 'POST',
          path: `booking/${code}/note`,
          body: `body=${encodeURIComponent(body)}`,
          contentType: 'application/x-www-form-urlencoded',
          headers: { authorization: staff },
        });
        expect(response.status).toBe(200);
      }
    }
    const all = await staffGet('booking/notes');
    expect(all.status).toBe(200);
    const mine = all.json.notes.filter((note: { booking_id: string }) => codes.includes(note.booking_id));
    expect(mine).toHaveLength(4);
    expect(mine[0]).toMatchObject({ account_id: 1, private: 0, note_id: expect.any(String) });
    expect(Date.parse(mine[0].date)).toBeGreaterThanOrEqual(Date.parse(mine[3].date));

    const paged = (await staffGet('booking/notes', 'limit=1&page=2')).json;
    expect(paged.notes).toHaveLength(1);
    expect(paged.request).toMatchObject({ page: 2, limit: 1, total_records: all.json.request.total_records });
    expect(
      (await staffGet('booking/notes', `date=<${addDays(todayIn('America/Toronto', Date.now()), -40)}`)).json
        .notes,
    ).toEqual([]);
    expect(
      (await staffGet('booking/notes', `date=${todayIn('America/Toronto', Date.now())}`)).json.notes.length,
    ).toBeGreaterThanOrEqual(4);

    const partnerNotes = (await staffGet('booking/notes', '', partner)).json.notes.map(
      (note: { booking_id: string }) => note.booking_id,
    );
    expect(partnerNotes).toContain(codes[1]);
    expect(partnerNotes).not.toContain(codes[0]);
    expect((await staffGet('booking/notes', 'date=nonsense')).status).toBe(400);
  });
});

describe('help', () => {
  it('lists the resources and links to documentation that exists', async () => {
    const help = await invoke(handlers.meta, { path: 'help', headers: { host: 'api.test' } });
    expect(help.status).toBe(200);
    expect(help.json.help.resources).toEqual(
      expect.arrayContaining([
        'item',
        'booking',
        'category',
        'company',
        'account',
        'ping',
        'customer',
        'event',
      ]),
    );
    expect(help.json.help.documentation).toBe('http://api.test/api/3.0/docs');
    expect(help.json.help.openapi).toBe('http://api.test/api/3.0/openapi.json');
    const docs = await invoke(handlers.meta, { path: 'docs' });
    expect(docs.headers['content-type']).toContain('text/html');
    expect(docs.text).toContain('/api/3.0/openapi.json');
    const bundle = await invoke(handlers.meta, { path: 'docs/swagger-ui-bundle.js' });
    expect(bundle.headers['content-type']).toContain('javascript');
    expect(bundle.text.length).toBeGreaterThan(100_000);
    // Every file the document names for docs/{asset}, and its example, is served as the type it says.
    const assetParam = (
      buildOpenApiDocument().paths as Record<
        string,
        { get: { parameters: { name: string; schema: { enum?: string[] }; example?: string }[] } }
      >
    )['/docs/{asset}']?.get.parameters.find((parameter) => parameter.name === 'asset');
    expect(assetParam?.schema.enum).toEqual(Object.keys(DOCS_ASSETS));
    expect(assetParam?.schema.enum).toContain(assetParam?.example);
    for (const name of assetParam?.schema.enum ?? []) {
      const served = await invoke(handlers.meta, { path: `docs/${name}` });
      expect(served.status, name).toBe(200);
      expect(served.headers['content-type']).toBe(DOCS_ASSETS[name as keyof typeof DOCS_ASSETS]);
    }
    expect((await invoke(handlers.meta, { path: 'docs/..%2Fpackage.json' })).status).toBe(404);
    expect((await invoke(handlers.meta, { path: 'docs/toString' })).status).toBe(404);
    const openapi = await invoke(handlers.meta, { path: 'openapi.json' });
    expect(openapi.json.openapi).toBe('3.1.0');
    const page = await handlers.meta(
      makeEvent({ path: 'help', headers: { host: 'api.test', accept: 'text/html' } }),
      testContext(),
    );
    expect(page.statusCode).toBe(200);
    expect(String(page.headers?.['content-type'])).toContain('text/html');
    expect(page.body).toContain('<code>booking/{booking_id}/invoice</code>');
  });
});
