import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SNIPPET } from '#infra/local/demo-page.ts';
import { setUpService } from '#test/support/local-runner.ts';

// Issue 14: `npm start` serves the widget at /widget/ and a demo site of the tenant at /. Raw requests
// (node:http, not fetch) keep paths such as /widget/../package.json as sent: fetch would normalise them.
const OWN_ORIGIN = 'https://loonlake.example.com';
const service = setUpService('widget-serving');
let origin: URL;

beforeAll(() => {
  origin = new URL(new URL(service.base).origin);
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One HTTP request with the path exactly as given. */
const raw = (path: string, options: { method?: string; headers?: Record<string, string> } = {}) =>
  new Promise<RawResponse>((done, fail) => {
    const outgoing = request(
      {
        host: origin.hostname,
        port: origin.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          done({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', fail);
      },
    );
    outgoing.on('error', fail);
    outgoing.end();
  });

describe('the demo site', () => {
  it('says where it is, after the listening line', async () => {
    await expect.poll(() => service.output()).toContain(`demo site: ${origin.origin}/`);
    const output = service.output();
    expect(output.indexOf('demo site:')).toBeGreaterThan(output.indexOf('listening on'));
    expect(output).toMatch(/widget built: \/widget\/booking-widget\.js, [\d.]+ KB gzipped/);
  });

  it('is an HTML page of the tenant with the widget snippet, under a policy allowing only its origin', async () => {
    const page = await raw('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = page.body.toString('utf8');
    expect(html).toContain(DEMO_SNIPPET);
    expect(html).toContain('<script type="module" src="/widget/booking-widget.js"></script>');
    expect(html).toContain('<booking-widget api="/api/3.0"></booking-widget>');
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    for (const fact of [
      'Loon Lake Lodge',
      '88 North Shore Road',
      '+1 705 555 0142',
      'stay@loonlake.example.com',
    ]) {
      expect(html).toContain(fact);
    }
    const policy = String(page.headers['content-security-policy']);
    for (const directive of [
      "script-src 'self'",
      "connect-src 'self'",
      'img-src * data:',
      "style-src 'self' 'unsafe-inline'",
    ]) {
      expect(policy).toContain(directive);
    }
  });

  it('is only at /: other unknown paths keep the 404 envelope', async () => {
    const other = await raw('/index.html');
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body.toString('utf8')).request.error.id).toBe('not_found');
  });
});

describe('the widget file', () => {
  it('is served as a cacheable JavaScript module', async () => {
    const file = await raw('/widget/booking-widget.js');
    expect(file.status).toBe(200);
    expect(file.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    expect(file.body.length).toBeGreaterThan(0);

    const gzipped = await raw('/widget/booking-widget.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(file.body)).toBe(true);
  });

  it("carries CORS for the tenant's own origins only, as the API does", async () => {
    const own = await raw('/widget/booking-widget.js', { headers: { origin: OWN_ORIGIN } });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBe(OWN_ORIGIN);
    expect(String(own.headers.vary)).toMatch(/Origin/);
    expect(String(own.headers.vary)).toMatch(/accept-encoding/);

    const other = await raw('/widget/booking-widget.js', {
      headers: { origin: 'https://elsewhere.example.org' },
    });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([
    '/widget/..%2Fpackage.json',
    '/widget/../package.json',
    '/widget/%2e%2e/package.json',
    '/widget/%2e%2e%2fpackage.json',
    '/widget/nope.js',
    '/widget/',
  ])('answers %s with the 404 envelope', async (path) => {
    const response = await raw(path);
    expect(response.status).toBe(404);
    const body = JSON.parse(response.body.toString('utf8'));
    expect(body.request.error.id).toBe('not_found');
  });
});
