import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createGateway } from '#infra/local/gateway.ts';
import { createCredential } from '#lib/access/credential-admin.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, readJson } from '#test/support/events.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Issue 10 over HTTP, as a third-party API 3.0 client sends it (PHP-style forms, stray parameters).
let server: Server;
let base: string;
let db: Db;
let staff: string;
let partner: string;
const day = addDays(todayIn('America/Toronto', Date.now()), 50);
const form = 'application/x-www-form-urlencoded';

beforeAll(async () => {
  db = await createTestDb('compat-http');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        items: [
          makeItem({
            item_id: 1,
            stock: 20,
            rates: [{ name: 'Weekend', dow: [0, 6], price: { param: { qty: '50.00' } } }],
          }),
        ],
        accounts: [
          { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' },
          {
            account_id: 2,
            first_name: 'Tours',
            email: 't@tours.example.com',
            login_id: 'tours',
            partner: true,
          },
        ],
      }),
    ),
    Date.now(),
  );
  const desk = await createCredential(db, { accountId: 1, onBehalf: true, label: 'desk', now: 0 });
  const tours = await createCredential(db, { accountId: 2, onBehalf: false, label: 'tours', now: 0 });
  staff = basic(desk.key, desk.secret);
  partner = basic(tours.key, tours.secret);
  server = createGateway({ handlers: createAllHandlers(testDeps(db)) });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/3.0`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${base}/${path}`, { headers });
  return { status: response.status, headers: response.headers, json: await readJson(response) };
};
const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${base}/${path}`, {
    method: 'POST',
    headers: { 'content-type': form, ...headers },
    body,
  });
  return { status: response.status, json: await readJson(response) };
};

describe('a third-party client over HTTP', () => {
  it('books with stray parameters, reads the record back, and finds it in a yearly window', async () => {
    const rated = await get(`item/1/?start_date=${day}&qty=1&partner_id=9&param[qty]=2&param[pets]=1`);
    expect(rated.status).toBe(200);
    expect(rated.json.request.ignored).toEqual(['qty', 'partner_id', 'param[pets]']);
    expect(rated.headers.get('x-ignored-parameters')).toBe('qty,partner_id,param[pets]');
    const slip = rated.json.item.rate.slip;
    const cart = await post('booking/session', `slip[0]=${slip}&utm=x`);
    const session = cart.json.booking.session.id;
    const grown = await post('booking/session', `session_id=${session}&alter[${slip}]=2`);
    expect(grown.json.booking.session.item['1'].rate.qty).toBe(2);
    const created = await post(
      'booking/create',
      `session_id=${session}&form[customer_name]=Ada&form[customer_email]=ada@example.com&form[newsletter]=1`,
      { authorization: partner },
    );
    expect(created.status).toBe(200);
    expect(created.json.request.ignored).toEqual(['form[newsletter]']);
    const code = created.json.booking.code;
    const record = await get(`booking/${code}?events=TRUE`, { authorization: staff });
    expect(record.json.booking).toMatchObject({ code, partner_id: 2 });

    const yearStart = addDays(day, -100);
    const yearEnd = addDays(yearStart, 365);
    const dashed = (ymd: string) => `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6)}`;
    const window = await get(
      `booking/index?start_date=${dashed(yearStart)}&end_date=${dashed(yearEnd)}&limit=1&page=1`,
      {
        authorization: staff,
      },
    );
    expect(window.json.request).toMatchObject({ total_records: 1, pages: 1 });
    expect(Object.values(window.json['booking/index']).map((row: any) => row.code)).toEqual([code]);
    expect((await get('booking?partner_id=2', { authorization: staff })).json.request.total_records).toBe(1);
    expect((await get('booking?partner_id=7', { authorization: staff })).json.request.total_records).toBe(0);
    expect((await get('booking', { authorization: partner })).json.request.total_records).toBe(1);

    const noted = await post(`booking/${code}/note`, 'body=Arrives by boat', { authorization: staff });
    expect(noted.status).toBe(200);
    const notes = await get('booking/notes', { authorization: staff });
    expect(notes.json.notes[0]).toMatchObject({ body: 'Arrives by boat', booking_id: code });
  });

  it('pages rate events to their end and answers help', async () => {
    const events = await get('event?limit=1&page=1', { authorization: staff });
    expect(events.json.request).toMatchObject({ pages: 1, total_records: 1 });
    expect(events.json.events['1']).toMatchObject({ name: 'Weekend', repeat: 'weekly' });
    const help = await get('help');
    expect(help.json.help.documentation).toMatch(/\/api\/3\.0\/docs$/);
    expect(help.json.help.openapi).toMatch(/\/api\/3\.0\/openapi\.json$/);
  });
});
