import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMetaHandler } from '#functions/meta/app.ts';
import { widgetFileOf } from '#functions/meta/widget.ts';
import { errorEnvelopeSchema } from '#functions/responses.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, recordCommands } from '#test/support/dynamo.ts';
import { makeEvent, testContext } from '#test/support/events.ts';
import { makeTenant } from '#test/support/tenant.ts';

// The built widget is stood in for by a file of known bytes: these tests are about serving it, not its
// content. A decoy beside the build folder is what a path traversal would reach.
const root = mkdtempSync(join(tmpdir(), 'widget-serving-'));
const widgetDir = join(root, 'dist');
const BUILT = `export const built = ${JSON.stringify('x'.repeat(2000))};\n`;
const DECOY = 'decoy: never served';

let db: Db;
let handler: ReturnType<typeof createMetaHandler>;
let commands: string[];

beforeAll(async () => {
  mkdirSync(widgetDir);
  writeFileSync(join(widgetDir, 'booking-widget.js'), BUILT);
  writeFileSync(join(root, 'package.json'), DECOY);
  writeFileSync(join(widgetDir, 'secret.txt'), DECOY);
  db = await createTestDb('widget');
  await writeTenant(db, makeTenant(), Date.now());
  const recorded = recordCommands(db);
  commands = recorded.commands;
  handler = createMetaHandler(testDeps(recorded.db), { widgetDir });
});

/** An HTTP API event for a raw path outside /api/3.0, routed as the local gateway (and AWS) would. */
const widgetEvent = (
  rawPath: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): APIGatewayProxyEventV2 => {
  const method = options.method ?? 'GET';
  const base = makeEvent({ path: 'ping', method, headers: options.headers ?? {} });
  const { routeKey, pathParameters } = resolveGroup(method, rawPath);
  return {
    ...base,
    rawPath,
    routeKey,
    ...(pathParameters ? { pathParameters } : {}),
    requestContext: {
      ...base.requestContext,
      routeKey,
      http: { ...base.requestContext.http, path: rawPath },
    },
  };
};

const call = async (rawPath: string, options: Parameters<typeof widgetEvent>[1] = {}) => {
  const result = await handler(widgetEvent(rawPath, options), testContext());
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const raw = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  return { status: result.statusCode ?? 200, headers, raw };
};

const TRAVERSALS = [
  '/widget/..%2Fpackage.json',
  '/widget/../package.json',
  '/widget/%2e%2e/package.json',
  '/widget/%2e%2e%2fpackage.json',
  '/widget/..%5cpackage.json',
  '/widget/./booking-widget.js',
  '/widget/%2e/booking-widget.js',
  '/widget/booking%2Dwidget.js',
  '/widget/booking-widget.js/',
  '/widget/booking-widget.js%00',
  '/widget//booking-widget.js',
  '/widget/secret.txt',
];

describe('GET /widget/{file}', () => {
  it('serves the built widget as a cacheable JavaScript module, without reading the table', async () => {
    const before = commands.length;
    const { status, headers, raw } = await call('/widget/booking-widget.js');
    expect(status).toBe(200);
    expect(headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['content-encoding']).toBeUndefined();
    expect(raw.toString('utf8')).toBe(BUILT);
    expect(commands.length).toBe(before);
  });

  it('leaves CORS to the gateway: the function adds no Access-Control header of its own', async () => {
    const { headers } = await call('/widget/booking-widget.js', {
      headers: { origin: 'https://elsewhere.example.org' },
    });
    expect(Object.keys(headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('sends it gzipped to a client that takes gzip, and plain when gzip is refused', async () => {
    const gzipped = await call('/widget/booking-widget.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('accept-encoding');
    expect(gzipped.raw.length).toBeLessThan(BUILT.length);
    expect(gunzipSync(gzipped.raw).toString('utf8')).toBe(BUILT);

    const refused = await call('/widget/booking-widget.js', { headers: { 'accept-encoding': 'gzip;q=0' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.raw.toString('utf8')).toBe(BUILT);
  });

  it('serves a rebuilt file without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'widget-rebuilt-'));
    const own = createMetaHandler(testDeps(db), { widgetDir: dir });
    writeFileSync(join(dir, 'booking-widget.js'), 'export const v = 1;\n');
    const first = await own(widgetEvent('/widget/booking-widget.js'), testContext());
    writeFileSync(join(dir, 'booking-widget.js'), 'export const version = 2;\n');
    const second = await own(widgetEvent('/widget/booking-widget.js'), testContext());
    expect(Buffer.from(first.body ?? '', 'base64').toString()).toBe('export const v = 1;\n');
    expect(Buffer.from(second.body ?? '', 'base64').toString()).toBe('export const version = 2;\n');
  });

  it.each([
    '/widget/nope.js',
    '/widget/toString',
    '/widget/__proto__',
    '/widget/constructor',
    '/widget/BOOKING-WIDGET.JS',
    '/widget/',
    '/widget',
    ...TRAVERSALS,
  ])('answers %s with the 404 envelope and serves nothing', async (path) => {
    expect(widgetFileOf('GET', path)).toBeUndefined();
    const { status, headers, raw } = await call(path);
    expect(status).toBe(404);
    expect(headers['content-type']).toContain('application/json');
    const body = JSON.parse(raw.toString('utf8'));
    expect(errorEnvelopeSchema.parse(body).request.error.id).toBe('not_found');
    expect(raw.toString('utf8')).not.toContain('decoy');
    expect(raw.toString('utf8')).not.toContain('export const');
  });

  it.each(['POST', 'PUT', 'DELETE'])(
    'does not serve the widget to %s (405, GET and HEAD allowed)',
    async (method) => {
      const { status, raw, headers } = await call('/widget/booking-widget.js', { method });
      expect(status).toBe(405);
      expect(headers.allow).toBe('GET, HEAD');
      expect(raw.toString('utf8')).not.toContain('export const');
    },
  );

  it('answers HEAD as GET, without the body', async () => {
    const { status, raw, headers } = await call('/widget/booking-widget.js', { method: 'HEAD' });
    expect(status).toBe(200);
    expect(headers['content-type']).toContain('javascript');
    expect(raw.length).toBe(0);
  });

  it('answers 404 when the widget was never built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'widget-unbuilt-'));
    const unbuilt = createMetaHandler(testDeps(db), { widgetDir: empty });
    const result = await unbuilt(widgetEvent('/widget/booking-widget.js'), testContext());
    expect(result.statusCode).toBe(404);
  });

  it('keeps serving the API beside it', async () => {
    const { status } = await call('/api/3.0/ping');
    expect(status).toBe(200);
  });
});
