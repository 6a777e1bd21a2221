import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMetaHandler } from '#functions/meta/app.ts';
import { BOOK_PAGE_CSP, readDeepLink } from '#functions/meta/book-page.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { makeEvent, testContext } from '#test/support/events.ts';
import { demoTenantJson, makeTenant } from '#test/support/tenant.ts';
import { buildWidget } from '#widget/build.ts';
import { DEMO_IMAGE_SIZE, DEMO_IMAGES, DEMO_IMAGES_SOURCE, WIDGET_FILES } from '#widget/files.ts';

// Issue 32: the tenant's hosted booking page, `GET /book`, answered by the meta function outside
// /api/3.0, and its deep links (`/book?item=3&start=2027-07-05&nights=3`).

let handler: ReturnType<typeof createMetaHandler>;
let widgetDir: string;
let emptyHandler: ReturnType<typeof createMetaHandler>;

const hostile = (): Record<string, unknown> => {
  const tenant = demoTenantJson() as { company: Record<string, unknown>; policy: Record<string, unknown> };
  tenant.company.name = 'Loon <script>alert(1)</script> "Lodge"';
  tenant.policy = {
    body: 'First paragraph.\n\nSecond <b>paragraph</b>.',
    terms_url: 'https://example.com/terms?a=1&b=2',
  };
  return tenant;
};

beforeAll(async () => {
  const db = await createTestDb('book-page');
  await writeTenant(db, makeTenant(hostile()), Date.now());
  widgetDir = mkdtempSync(join(tmpdir(), 'book-page-widget-'));
  await buildWidget(widgetDir);
  handler = createMetaHandler(testDeps(db), { widgetDir });
  emptyHandler = createMetaHandler(testDeps(await createTestDb('book-page-empty')));
});

const bookEvent = (query: Record<string, string> = {}, headers: Record<string, string> = {}) => {
  const base = makeEvent({ path: 'ping', method: 'GET', headers });
  const { routeKey } = resolveGroup('GET', '/book');
  return {
    ...base,
    rawPath: '/book',
    rawQueryString: new URLSearchParams(query).toString(),
    queryStringParameters: query,
    routeKey,
    requestContext: {
      ...base.requestContext,
      routeKey,
      http: { ...base.requestContext.http, path: '/book' },
    },
  } as APIGatewayProxyEventV2;
};

const open = async (
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
  which = handler,
) => {
  const result = await which(bookEvent(query, headers), testContext());
  const raw = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  const headersOut = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const html =
    headersOut['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return { status: result.statusCode ?? 200, headers: headersOut, html };
};

const widgetTag = (html: string) => /<booking-widget[^>]*>/.exec(html)?.[0] ?? '';

describe('GET /book', () => {
  it('is routed to the meta function under its own route key, as API Gateway has it', () => {
    expect(resolveGroup('GET', '/book')).toEqual({ group: 'meta', routeKey: 'GET /book' });
    expect(resolveGroup('POST', '/book').routeKey).toBe('$default');
  });

  it('is a page of the tenant: its name, address, contact, policy, terms and the widget on the API', async () => {
    const page = await open();
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(BOOK_PAGE_CSP);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const { html } = page;
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('88 North Shore Road<br>Huntsville, Ontario, P1H 2J3<br>Canada<br>');
    expect(html).toContain('<a href="tel:+17055550142">+1 705 555 0142</a>');
    expect(html).toContain('<a href="mailto:stay@loonlake.example.com">');
    expect(html).toContain('<h2 id="policy-title">Booking policy</h2>');
    expect(html).toContain('<p>First paragraph.</p><p>Second &#60;b&#62;paragraph&#60;/b&#62;.</p>');
    expect(html).toContain('<a href="https://example.com/terms?a=1&#38;b=2">Terms and conditions</a>');
    expect(widgetTag(html)).toBe('<booking-widget api="/api/3.0">');
    expect(html).toContain('<script type="module" src="/widget/booking-widget.js"></script>');
  });

  it('has the meta tags a shared link and a search engine read', async () => {
    const { html } = await open();
    for (const tag of [
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      '<link rel="canonical" href="http://api.test/book">',
      '<meta property="og:type" content="website">',
      '<meta property="og:url" content="http://api.test/book">',
      '<meta property="og:locale" content="en_CA">',
    ])
      expect(html).toContain(tag);
    expect(html).toMatch(/<meta name="description" content="Book [^"]+">/);
    expect(html).toMatch(/<title>Book online: [^<]+<\/title>/);
  });

  it('escapes what the tenant file says: its name cannot run in the page', async () => {
    const { html } = await open();
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('Loon &#60;script&#62;alert(1)&#60;/script&#62; &#34;Lodge&#34;');
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('preselects an item, a category and dates from a deep link', async () => {
    const page = await open({ item: '3', start: '2027-07-05', nights: '3' });
    expect(page.status).toBe(200);
    expect(widgetTag(page.html)).toBe(
      '<booking-widget api="/api/3.0" item="3" start-date="2027-07-05" nights="3">',
    );
    expect(widgetTag((await open({ category: '2', start: '2027-12-31', end: '2028-01-02' })).html)).toBe(
      '<booking-widget api="/api/3.0" category="2" start-date="2027-12-31" end-date="2028-01-02">',
    );
    expect(widgetTag((await open({ item: '1,2', utm_source: 'newsletter' })).html)).toBe(
      '<booking-widget api="/api/3.0" item="1,2">',
    );
    expect(page.html).not.toContain('class="problem"');
  });

  it('answers a link with an unusable part 400, still with the page and a note, using the rest', async () => {
    const page = await open({ item: '3"><script>', start: '2027-02-30', nights: '3' });
    expect(page.status).toBe(400);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(widgetTag(page.html)).toBe('<booking-widget api="/api/3.0">');
    expect(page.html).toContain('The link names items in a way this page cannot read');
    expect(page.html).toContain('The date in the link you followed does not exist.');
    expect(page.html).not.toContain('<script>"');
  });

  it('is gzipped for a browser that takes it', async () => {
    const page = await open({}, { 'accept-encoding': 'gzip, br' });
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(page.html).toContain('<booking-widget');
    expect((await open({}, { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });

  it('says booking is not available, 503, when no tenant is loaded', async () => {
    const page = await open({}, {}, emptyHandler);
    expect(page.status).toBe(503);
    expect(page.html).toContain('Booking is not available right now');
  });
});

describe('deep links', () => {
  it.each([
    [{ start: '2027-07-05', nights: '1' }, { 'start-date': '2027-07-05', nights: '1' }, []],
    [{ start: '2027-07-05' }, { 'start-date': '2027-07-05' }, []],
    [{ start: '2027-07-05', nights: '0' }, { 'start-date': '2027-07-05' }, ['nights']],
    [{ start: '2027-07-05', nights: '367' }, { 'start-date': '2027-07-05' }, ['nights']],
    [{ start: '2027-07-05', nights: '2.5' }, { 'start-date': '2027-07-05' }, ['nights']],
    [{ start: '2027-07-05', end: '2027-07-04' }, { 'start-date': '2027-07-05' }, ['end']],
    [{ start: '20270705' }, {}, ['start']],
    [{ nights: '3' }, {}, ['nights']],
    [{ item: '1,,2' }, {}, ['item']],
    [{ item: '1', category: 'x' }, { item: '1' }, ['category']],
  ])('%j → %j, unusable %j', (query, attributes, unusable) => {
    expect(readDeepLink(query)).toEqual({ attributes, unusable });
  });
});

describe('the demo pictures', () => {
  const picture = async (name: string) => {
    const event = bookEvent({}, { 'accept-encoding': 'gzip' });
    const rawPath = `/widget/${name}`;
    const { routeKey, pathParameters } = resolveGroup('GET', rawPath);
    const result = await handler(
      { ...event, rawPath, routeKey, ...(pathParameters ? { pathParameters } : {}) },
      testContext(),
    );
    return { result, bytes: Buffer.from(result.body ?? '', 'base64') };
  };

  it('are served beside the widget as WebP, as shipped, cached for a day and never gzipped', async () => {
    for (const { file, file2x } of DEMO_IMAGES)
      for (const name of [file, file2x]) {
        const { result, bytes } = await picture(name);
        expect(result.statusCode, name).toBe(200);
        expect(result.headers?.['content-type']).toBe('image/webp');
        expect(result.headers?.['content-encoding']).toBeUndefined();
        expect(result.headers?.['cache-control']).toBe('public, max-age=86400');
        expect(bytes.equals(readFileSync(join(DEMO_IMAGES_SOURCE, name))), name).toBe(true);
        expect(bytes.subarray(8, 12).toString('latin1'), name).toBe('WEBP');
        expect(bytes.length, name).toBeLessThan(20_000);
      }
  });

  it('are what every demo item shows, with its size, so a page reserves the space', () => {
    const tenant = demoTenantJson() as { items: Array<{ images?: Array<Record<string, unknown>> }> };
    for (const item of tenant.items) {
      const [image] = item.images ?? [];
      expect(image).toMatchObject({ ...DEMO_IMAGE_SIZE, title: expect.any(String) });
      for (const path of [image?.src, image?.src2x])
        expect(Object.hasOwn(WIDGET_FILES, String(path).replace('/widget/', '')), String(path)).toBe(true);
    }
  });
});
