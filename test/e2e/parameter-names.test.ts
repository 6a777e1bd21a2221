import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { ROUTES as TABLE } from '#functions/routes.ts';
import { createGateway } from '#infra/local/gateway.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { API_PREFIX, type Route } from '#lib/http/routes.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { staffBasic } from '#test/support/events.ts';
import { headerProblems, type RawResponse, rawHeader, rawRequest } from '#test/support/raw-http.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Issue "No 5xx from any name a client can send": unknown parameter names are reported back, in
// `request.ignored` (JSON, which holds anything) and in the X-Ignored-Parameters header (which cannot).
// Every route of the route table, with each method it takes and each way a client sends parameters,
// gets names no header can carry raw, through the local gateway over HTTP: no answer may be a 5xx and
// every header line written must be valid.

const C0 = Array.from({ length: 32 }, (_, code) => `c0-${String.fromCharCode(code)}-${code}`);

/** Names a client can send in a query string, a form body or JSON. */
const NAMES = [
  'имя',
  'form[имя]',
  'param[名前]',
  '予約',
  '😀',
  'emoji[🎉]',
  ...C0,
  'crlf\r\nX-Injected: yes',
  'del\u007f',
  'c1\u0085',
  'latin\u00e9',
  'separator\u2028',
  'a,b',
  'per%cent',
  'plus+sign',
  ' spaced ',
];

/** Names only JSON can carry: lone surrogates (a query or form name is UTF-8, which cannot hold them). */
const JSON_ONLY = ['\ud800', 'tail\udfff'];

/** Very long names, and more names than any header should list. */
const LONG = [...Array.from({ length: 150 }, (_, index) => `名${index}`), 'n'.repeat(3000), '長'.repeat(600)];

type Transport = 'query' | 'form' | 'json';

const formOf = (names: string[]): string => names.map((name) => `${encodeURIComponent(name)}=1`).join('&');

let server: Server;
let origin: string;
let staff: string;
let db: Db;
let booking: { code: string; customerId: string };
let address = 0;
const day = addDays(todayIn('America/Toronto', Date.now()), 30);

beforeAll(async () => {
  db = await createTestDb('names');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        settings: {
          booking_code_prefix: 'NAME',
          limits: {
            requests_per_minute: 100_000,
            writes_per_minute: 100_000,
            staff_requests_per_minute: 100_000,
          },
        },
        items: [makeItem({ item_id: 1, stock: 500 })],
      }),
    ),
    Date.now(),
  );
  staff = await staffBasic(db, { label: 'names' });
  server = createGateway({ handlers: createAllHandlers({ ...testDeps(db), trustedProxies: ['127.0.0.1'] }) });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const created = await createBooking('setup@example.com', []);
  expect(created.status).toBe(200);
  const json = JSON.parse(created.text);
  booking = { code: json.booking.code, customerId: String(json.booking.customer_id) };
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

/** A fresh client address per call, so no per-client budget decides an answer. */
const client = (): Record<string, string> => {
  address += 1;
  return { 'x-forwarded-for': `198.51.${Math.floor(address / 250) % 250}.${(address % 250) + 1}` };
};

async function createBooking(email: string, extra: string[]): Promise<RawResponse> {
  const rated = await rawRequest(`${origin}${API_PREFIX}/item/1?date=${day}`, {
    method: 'GET',
    headers: client(),
  });
  const slip = JSON.parse(rated.text).item.rate.slip as string;
  return rawRequest(`${origin}${API_PREFIX}/booking/create`, {
    method: 'POST',
    headers: { ...client(), 'content-type': 'application/x-www-form-urlencoded' },
    body: [
      `slip[]=${slip}`,
      'form[customer_name]=Ada',
      `form[customer_email]=${encodeURIComponent(email)}`,
      ...extra.map((name) => `${encodeURIComponent(name)}=1`),
    ].join('&'),
  });
}

const pathOf = (route: Route): string =>
  `${API_PREFIX}/${route.path
    .replace('{item_id}', '1')
    .replace('{booking_id}', booking.code)
    .replace('{customer_id}', booking.customerId)
    .replace('{event_id}', '1')
    .replace('{webhook_id}', 'nowhere')
    .replace('{asset}', 'swagger-ui.css')}`;

/** One request of a route with the given unknown names, sent the given way. */
function send(route: Route, transport: Transport, names: string[]): Promise<RawResponse> {
  const headers = { ...client(), ...(route.access === 'public' ? {} : { authorization: staff }) };
  const path = pathOf(route);
  if (transport === 'query')
    return rawRequest(`${origin}${path}?${formOf(names)}`, { method: route.method, headers });
  if (transport === 'form') {
    return rawRequest(`${origin}${path}`, {
      method: route.method,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: formOf(names),
    });
  }
  return rawRequest(`${origin}${path}`, {
    method: route.method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(Object.fromEntries(names.map((name) => [name, '1']))),
  });
}

// What a client gets back from a header element: the UTF-8 name (a lone surrogate was sent as U+FFFD).
const wellFormed = (name: string): string => name.replace(/[\ud800-\udfff]/gu, '\ufffd');

/** What is wrong with one answer: a 5xx, an invalid header, or a header that disagrees with `request.ignored`. */
function problemsOf(response: RawResponse): string[] {
  const problems = headerProblems(response.rawHeaders);
  if (response.status >= 500) problems.push(`answered ${response.status}: ${response.text.slice(0, 200)}`);
  const header = rawHeader(response.rawHeaders, 'x-ignored-parameters');
  const json = (rawHeader(response.rawHeaders, 'content-type') ?? '').startsWith('application/json');
  if (header === undefined || response.status >= 500 || !json) return problems;
  const envelope = JSON.parse(response.text).request;
  // A raw answer (the OpenAPI document itself) has no envelope to compare with.
  if (envelope === undefined) return problems;
  const ignored = (envelope.ignored ?? []) as string[];
  const listed = header.split(',');
  const more = /^\+(\d+)$/.exec(listed.at(-1) ?? '');
  if (more) listed.pop();
  const decoded = listed.map((element) => decodeURIComponent(element));
  if (decoded.length + Number(more?.[1] ?? 0) !== ignored.length) {
    problems.push(`the header lists ${header.slice(0, 80)}… for ${ignored.length} ignored names`);
  }
  decoded.forEach((name, index) => {
    if (name !== wellFormed(ignored[index] ?? '')) problems.push(`header element ${index} is not ${name}`);
  });
  return problems;
}

/** The API's routes (the booking page and the widget's files read no parameters of the API's). */
const ROUTES = TABLE.filter((route) => (route.kind ?? 'api') === 'api');

describe('unknown parameter names a header cannot carry raw', () => {
  // A GET gets bodies too: API Gateway passes a GET's body to the function, which parses it like a POST's.
  const cases = ROUTES.flatMap((route) =>
    (['query', 'form', 'json'] as const).map((transport) => ({ route, transport })),
  );

  it('never answer 5xx and leave every header valid, on every route, method and transport', async () => {
    const failures: string[] = [];
    const reported = new Set<string>();
    let cut = 0;
    for (const { route, transport } of cases) {
      const sets = [NAMES, LONG, ...(transport === 'json' ? [[...NAMES, ...JSON_ONLY]] : [])];
      for (const names of sets) {
        const response = await send(route, transport, names);
        const header = rawHeader(response.rawHeaders, 'x-ignored-parameters');
        if (header) reported.add(route.name);
        if (/,\+\d+$/.test(header ?? '')) cut += 1;
        for (const problem of problemsOf(response)) {
          failures.push(`${route.method} ${route.path} (${transport}, ${names.length} names): ${problem}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // Every route reported the names, and the long sets were cut short of the header's budget.
    expect([...reported].sort()).toEqual([...new Set(ROUTES.map((route) => route.name))].sort());
    expect(cut).toBeGreaterThanOrEqual(ROUTES.length);
  }, 180_000);

  it('still book once on booking/create, reporting the names in the body and encoded in the header', async () => {
    const email = `names-${Date.now()}@example.com`;
    const strange = ['form[имя]', 'form[予約😀]', 'form[a\r\nb]', 'form[\u0000]'];
    const created = await createBooking(email, strange);
    expect(headerProblems(created.rawHeaders)).toEqual([]);
    expect(created.status).toBe(200);
    const json = JSON.parse(created.text);
    expect(json.request.ignored).toEqual(strange);
    expect(rawHeader(created.rawHeaders, 'x-ignored-parameters')).toBe(
      'form[%D0%B8%D0%BC%D1%8F],form[%E4%BA%88%E7%B4%84%F0%9F%98%80],form[a%0D%0Ab],form[%00]',
    );
    const list = await rawRequest(
      `${origin}${API_PREFIX}/booking/index?customer_email=${encodeURIComponent(email)}`,
      { method: 'GET', headers: { authorization: staff } },
    );
    expect(Object.values(JSON.parse(list.text)['booking/index'])).toHaveLength(1);
  });
});
