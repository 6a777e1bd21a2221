import { deflateSync } from 'node:zlib';
import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { expect } from 'vitest';
import { matchRoute } from '#functions/routes.ts';
import { expectDocumented } from './openapi.ts';
import { shadowModes } from './page-helpers.ts';

// A browser context's traffic, recorded and policed: only the API and the allowed origins are reached, item
// images get a generated PNG, and every API answer is checked against the OpenAPI document.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer): number => {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const pngChunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** A small RGB PNG (a lake-blue gradient), to stand in for the tenant's item images. */
export function makePng(width = 240, height = 160): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      row[1 + x * 3] = 30 + Math.round((x / width) * 60);
      row[2 + x * 3] = 90 + Math.round((y / height) * 80);
      row[3 + x * 3] = 140 + Math.round((x / width) * 80);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** One call the page made to the API, with what it sent and what it got. */
export interface ApiExchange {
  method: string;
  url: URL;
  /** The path after `/api/3.0/`, such as `item`, `item/2/cal` or `booking/session`. */
  path: string;
  body: string | null;
  status: number;
  json: any;
  /** The `Cookie` header the browser sent, if any. */
  cookie: string | undefined;
  /** The session id the call carried as a parameter (query string or body), if any. */
  sessionParam: string | undefined;
}

/** What a page asked the network for, recorded by {@link watchTraffic}. */
export interface Traffic {
  /** Every URL requested, in order. */
  requests: { url: string; resourceType: string }[];
  /** Requests to any other host, refused. */
  blocked: string[];
  /** Item image URLs requested (answered with a generated PNG). */
  images: string[];
  /** API calls and their answers, in the order the answers arrived. */
  api: ApiExchange[];
  /** API answers that break the OpenAPI document. */
  problems: string[];
  /** Uncaught errors and unhandled rejections in the page. */
  pageErrors: string[];
  /** Every `http(s)` URL found in an API answer (where the widget may legitimately load images from). */
  urlsFromApi: Set<string>;
  /** Waits until every answer seen so far is recorded. */
  settle: () => Promise<void>;
}

/** The session id a request carries as `session_id` in its query string, form body or JSON body. */
export function sessionParamOf(url: URL, body: string | null): string | undefined {
  const fromQuery = url.searchParams.get('session_id');
  if (fromQuery) return fromQuery;
  if (!body) return undefined;
  try {
    const json = JSON.parse(body);
    if (json && typeof json.session_id === 'string') return json.session_id;
  } catch {
    // not JSON: a form body
  }
  return new URLSearchParams(body).get('session_id') ?? undefined;
}

const collectUrls = (value: unknown, into: Set<string>): void => {
  if (typeof value === 'string') {
    if (/^https?:\/\//.test(value)) into.add(value);
  } else if (value && typeof value === 'object') {
    for (const entry of Object.values(value)) collectUrls(entry, into);
  }
};

/** The header tests put on answers they make up themselves, which are not checked against the document. */
export const FAKE_HEADER = 'x-e2e-fake';

/**
 * Records and polices a browser context's traffic: requests to the allowed origins go through (with every
 * cookie cleared first when `blockCookies`, so a session can only travel as a parameter), images on
 * `imageOrigin` get a generated PNG, anything else is refused and recorded; each API answer is checked
 * against the OpenAPI document.
 */
export async function watchTraffic(
  context: BrowserContext,
  options: { apiBase: string; allowedOrigins: string[]; imageOrigin: string; blockCookies?: boolean },
): Promise<Traffic> {
  const apiPrefix = `${options.apiBase}/`;
  const apiOrigin = new URL(options.apiBase).origin;
  const png = makePng();
  const pending: Promise<void>[] = [];
  const traffic: Traffic = {
    requests: [],
    blocked: [],
    images: [],
    api: [],
    problems: [],
    pageErrors: [],
    urlsFromApi: new Set(),
    settle: async () => {
      while (pending.length > 0) await Promise.all(pending.splice(0));
    },
  };
  context.on('request', (request: Request) => {
    traffic.requests.push({ url: request.url(), resourceType: request.resourceType() });
  });
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === apiOrigin || options.allowedOrigins.includes(url.origin)) {
      if (options.blockCookies && url.origin === apiOrigin) await context.clearCookies();
      return route.continue();
    }
    if (url.origin === options.imageOrigin) {
      traffic.images.push(url.href);
      return route.fulfill({ status: 200, contentType: 'image/png', body: png });
    }
    traffic.blocked.push(url.href);
    return route.abort('blockedbyclient');
  });
  context.on('page', (page) => {
    page.on('pageerror', (error) => traffic.pageErrors.push(`${page.url()}: ${error.message}`));
  });
  context.on('response', (response: Response) => {
    if (!response.url().startsWith(apiPrefix)) return;
    pending.push(
      recordExchange(response, traffic).catch((error) => {
        traffic.problems.push(String(error));
      }),
    );
  });
  return traffic;
}

async function recordExchange(response: Response, traffic: Traffic): Promise<void> {
  const request = response.request();
  const method = request.method();
  if (method === 'OPTIONS') return;
  const url = new URL(response.url());
  const headers = await response.allHeaders();
  const type = headers['content-type'] ?? '';
  let json: any = null;
  // A body the browser no longer holds (the page reloaded while it arrived) cannot be checked.
  let unreadable = false;
  if (type.startsWith('application/json')) {
    const text = await response.text().catch(() => undefined);
    if (text === undefined) unreadable = true;
    else json = JSON.parse(text);
  }
  const body = request.postData();
  const requestHeaders = await request.allHeaders().catch(() => request.headers());
  traffic.api.push({
    method,
    url,
    path: url.pathname.replace(/^\/api\/3\.0\//, '').replace(/\/$/, ''),
    body,
    status: response.status(),
    json,
    cookie: requestHeaders.cookie,
    sessionParam: sessionParamOf(url, body),
  });
  collectUrls(json, traffic.urlsFromApi);
  if (headers[FAKE_HEADER] || unreadable) return;
  const match = matchRoute(method, url.pathname);
  if (match.kind !== 'route') {
    traffic.problems.push(`${method} ${url.pathname}: not a route of the API (${match.kind})`);
    return;
  }
  try {
    expectDocumented(match.route, { status: response.status(), headers: { 'content-type': type }, json });
  } catch (error) {
    traffic.problems.push(
      `${(error as Error).message} (${method} ${url.pathname}${url.search}; request: ${JSON.stringify(json?.request)})`,
    );
  }
}

/** What every test checks of a guest's traffic: hosts, the OpenAPI document, page errors, shadow roots. */
export async function expectCleanTraffic(guest: { page: Page; traffic: Traffic }): Promise<void> {
  const { traffic, page } = guest;
  await traffic.settle();
  expect.soft(traffic.blocked, 'requests to hosts other than the API and its item images').toEqual([]);
  const strayImages = traffic.images.filter((url) => !traffic.urlsFromApi.has(url));
  expect.soft(strayImages, 'image requests for URLs the API never returned').toEqual([]);
  expect.soft(traffic.problems, 'API answers that break the OpenAPI document').toEqual([]);
  const failures = traffic.api
    .filter((exchange) => exchange.status >= 500)
    .map(
      (exchange) =>
        `${exchange.method} ${exchange.path} ${exchange.status} ${JSON.stringify(exchange.json?.request?.error)}`,
    );
  expect.soft(failures, 'API answers 5xx').toEqual([]);
  expect.soft(traffic.pageErrors, 'uncaught errors in the page').toEqual([]);
  if (!page.isClosed()) {
    expect.soft(await shadowModes(page), 'shadow roots are open (never closed)').not.toContain('closed');
  }
}
