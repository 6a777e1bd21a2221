import { beforeAll, describe, expect, it } from 'vitest';
import { DOCS_ASSETS } from '#functions/meta/docs.ts';
import { buildOpenApiDocument } from '#functions/openapi.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { createCredential } from '#lib/access/credential-admin.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import {
  book,
  day,
  db,
  handlers,
  otherPartner,
  partner,
  setUpCompatibilityWorld,
  staff,
} from '#test/support/compatibility-world.ts';
import { invoke, makeEvent, testContext } from '#test/support/events.ts';

// Issue 10: the resources third-party API 3.0 clients read must work unchanged: partners, events, notes
// and help. The world: test/support/compatibility-world.ts.

setUpCompatibilityWorld();

describe('partners', () => {
  const codes: Record<string, string> = {};
  const get = (path: string, authorization: string, query = '') =>
    invoke(handlers[resolveGroup('GET', `/api/3.0/${path}`).group], {
      path,
      query,
      headers: { authorization },
    });
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
    invoke(handlers[resolveGroup('GET', `/api/3.0/${path}`).group], {
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
