import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createMetaHandler } from '#functions/meta/app.ts';
import { BOOK_PAGE_CSP } from '#functions/meta/book-page.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { book, handlers, setUpBookingsWorld } from '#test/support/bookings-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { makeEvent, testContext } from '#test/support/events.ts';
import { demoTenantJson, makeTenant } from '#test/support/tenant.ts';

// Issue 44, item 6: the guest's page of their booking, `GET /manage?booking=CODE&token=T`, served by the meta
// function outside /api/3.0 like /book. One page for every well-formed link: whether the booking exists and
// the token is right is the API's answer to the page's script (404 for both, under the budget of guesses).

setUpBookingsWorld();

const manageEvent = (query: Record<string, string>, headers: Record<string, string> = {}) => {
  const base = makeEvent({ path: 'ping', method: 'GET', headers });
  const { routeKey } = resolveGroup('GET', '/manage');
  return {
    ...base,
    rawPath: '/manage',
    rawQueryString: new URLSearchParams(query).toString(),
    queryStringParameters: query,
    routeKey,
    requestContext: {
      ...base.requestContext,
      routeKey,
      http: { ...base.requestContext.http, path: '/manage' },
    },
  } as APIGatewayProxyEventV2;
};

const open = async (query: Record<string, string>, headers: Record<string, string> = {}) => {
  const result = await handlers.meta(manageEvent(query, headers), testContext());
  const raw = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  const out = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const html = out['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return { status: result.statusCode ?? 200, headers: out, html };
};

describe('GET /manage', () => {
  it('is routed to the meta function under its own route key', () => {
    expect(resolveGroup('GET', '/manage')).toEqual({ group: 'meta', routeKey: 'GET /manage' });
  });

  it("answers a booking's link 200 with a page of its own: its script from the service, no inline script, never cached", async () => {
    const { created } = await book();
    const link = new URL(created.manage_url);
    const page = await open(Object.fromEntries(link.searchParams), { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': BOOK_PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-encoding': 'gzip',
    });
    const { html } = page;
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toMatch(/<title>Your booking: [^<]+<\/title>/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toMatch(/<meta name="description" content="[^"]+">/);
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script type="module" src="/widget/manage-page.js">']);
    expect(html).toMatch(/<script type="module" src="\/widget\/manage-page.js"><\/script>/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).toContain('data-api="/api/3.0"');
    // The booking and its token are the API's to show, never the page's (a copy of it in a cache holds nothing).
    expect(html).not.toContain(created.code);
    expect(html).not.toContain(created.token);
  });

  it('is the same page for a wrong token and for an unknown booking: it says nothing of whether one exists', async () => {
    const { created } = await book();
    const good = await open({ booking: created.code, token: created.token });
    const wrong = await open({ booking: created.code, token: `${created.token.slice(0, -2)}xx` });
    const unknown = await open({ booking: 'TEST-000000', token: created.token });
    expect([wrong.status, unknown.status]).toEqual([200, 200]);
    expect(wrong.html).toBe(good.html);
    expect(unknown.html).toBe(good.html);
  });

  it('answers a link of no possible shape 400 with "not valid", no script, echoing nothing of it', async () => {
    for (const query of <Array<Record<string, string>>>[
      {},
      { booking: 'TEST-1' },
      { token: 'abc' },
      { booking: '"><script>alert(1)</script>', token: 'abc' },
      { booking: 'TEST-1', token: 'a'.repeat(129) },
    ]) {
      const page = await open(query);
      expect(page.status, JSON.stringify(query)).toBe(400);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.html).toContain('This link is not valid');
      expect(page.html).not.toContain('<script');
      expect(page.html).not.toContain('alert(1)');
    }
  });

  it("escapes the tenant's words", async () => {
    const hostile = demoTenantJson() as { company: Record<string, unknown> };
    hostile.company.name = 'Loon <script>alert(1)</script> "Lodge"';
    const other = await createTestDb('manage-page-hostile');
    await writeTenant(other, makeTenant(hostile), Date.now());
    const handler = createMetaHandler(testDeps(other));
    const result = await handler(manageEvent({ booking: 'TEST-1', token: 'abc' }), testContext());
    const html = String(result.body);
    expect(html).toContain('Loon &#60;script&#62;alert(1)&#60;/script&#62; &#34;Lodge&#34;');
    expect(html.match(/<script/g)).toHaveLength(1);
  });
});
