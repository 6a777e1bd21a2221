import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import AxeBuilder from '@axe-core/playwright';
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
  type Request,
  type Response,
} from 'playwright-core';
import { expect } from 'vitest';
import { matchRoute } from '#lib/http/route-match.ts';
import { type RunningService, startService } from './local-runner.ts';
import { expectDocumented } from './openapi.ts';

/** Debian's chromium: the tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Where the browser tests write their screenshots (git-ignored). */
export const ARTIFACTS_DIR = 'test/artifacts/widget';

/** Launches Debian's chromium headless, failing with the way to install it when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No chromium at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
}

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

/**
 * Helpers installed in every page before its scripts run (as `globalThis.__e2e`): the focused element
 * through shadow roots, containment across shadow boundaries, layout overflow, and a record of the mode
 * of every shadow root attached (the issue allows light DOM or open roots, never closed ones).
 */
const PAGE_HELPERS = `(() => {
  const e2e = { shadowModes: [] };
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    e2e.shadowModes.push(init && init.mode);
    return attach.call(this, init);
  };
  e2e.deepActive = () => {
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    return active;
  };
  e2e.parentOf = (node) => {
    if (!node) return null;
    if (node.parentNode instanceof ShadowRoot) return node.parentNode.host;
    return node.parentNode || null;
  };
  e2e.contains = (ancestor, node) => {
    for (let current = node; current; current = e2e.parentOf(current)) if (current === ancestor) return true;
    return false;
  };
  e2e.describe = (element) => {
    if (!element || !element.tagName) return String(element);
    const attrs = ['id', 'role', 'aria-label', 'type', 'name', 'class']
      .map((name) => element.getAttribute(name) ? name + '="' + element.getAttribute(name) + '"' : '')
      .filter(Boolean).join(' ');
    const text = (element.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
    return '<' + element.tagName.toLowerCase() + (attrs ? ' ' + attrs : '') + '>' + (text ? ' "' + text + '"' : '');
  };
  e2e.allElements = (root) => {
    const out = [];
    const walk = (node) => {
      for (const child of node.children || []) {
        out.push(child);
        if (child.shadowRoot) walk(child.shadowRoot);
        walk(child);
      }
    };
    walk(root);
    return out;
  };
  e2e.deepText = (node) => {
    if (node.shadowRoot) return Array.from(node.shadowRoot.children).map(e2e.deepText).join('\\n');
    if (node.nodeType !== 1 || /^(STYLE|SCRIPT|TEMPLATE)$/.test(node.tagName)) return '';
    const hosts = Array.from(node.querySelectorAll('*')).some((element) => element.shadowRoot);
    if (!hosts) return node.innerText || '';
    return Array.from(node.children).map(e2e.deepText).join('\\n');
  };
  e2e.liveLog = [];
  e2e.liveTexts = (root) =>
    e2e.allElements(root).filter((element) => {
      const live = element.getAttribute('aria-live');
      if (live === 'off') return false;
      return live === 'polite' || live === 'assertive' || ['status', 'alert', 'log'].includes(element.getAttribute('role'));
    }).map((element) => (element.textContent || '').replace(/\\s+/g, ' ').trim());
  e2e.watchLive = (host) => {
    const root = host.shadowRoot || host;
    let last = [];
    const record = () => {
      const texts = e2e.liveTexts(root);
      for (const text of texts) if (text && !last.includes(text)) e2e.liveLog.push(text);
      last = texts;
    };
    new MutationObserver(record).observe(root, { subtree: true, childList: true, characterData: true });
    record();
  };
  e2e.overflow = () => {
    const width = document.documentElement.clientWidth;
    const offenders = e2e.allElements(document)
      .filter((element) => {
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && box.right > width + 1;
      })
      .slice(0, 8)
      .map((element) => e2e.describe(element) + ' right=' + Math.round(element.getBoundingClientRect().right));
    return { viewport: width, scrollWidth: document.documentElement.scrollWidth, offenders };
  };
  globalThis.__e2e = e2e;
})();`;

/** The element that has the keyboard focus, described (tag, role, name, text), reading through shadow roots. */
export async function describeFocus(page: Page): Promise<string> {
  return page.evaluate(() => {
    const e2e = (globalThis as any).__e2e;
    return e2e.describe(e2e.deepActive());
  });
}

/**
 * Whether the focused element shows where the focus is (WCAG 2.4.7): a focus outline or ring, compared
 * with how it looks once the focus has left it.
 */
export async function focusIndicator(
  page: Page,
): Promise<{ visible: boolean; element: string; style: string }> {
  return page.evaluate(() => {
    const e2e = (globalThis as any).__e2e;
    const active = e2e.deepActive();
    if (!active || active.tagName === 'BODY') return { visible: false, element: 'body', style: '' };
    const look = (element: any) => {
      const style = (globalThis as any).getComputedStyle(element);
      return {
        outline: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0,
        text: `outline: ${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}; box-shadow: ${style.boxShadow}; border: ${style.borderColor}; background: ${style.backgroundColor}`,
      };
    };
    const focused = look(active);
    return {
      visible: focused.outline || !/^none$/.test((globalThis as any).getComputedStyle(active).boxShadow),
      element: e2e.describe(active),
      style: focused.text,
    };
  });
}

/** Whether the focused element (through shadow roots) is the target's element. */
export async function isFocused(target: Locator): Promise<boolean> {
  const handle = await target.elementHandle({ timeout: 2000 }).catch(() => null);
  if (!handle) return false;
  return target.page().evaluate((element) => (globalThis as any).__e2e.deepActive() === element, handle);
}

/**
 * Whether the focus is on or inside the element of `area`, or on an element next to it that names it (a
 * heading or a focusable title in the same parent), as "focus moves to what changed" allows.
 */
export async function focusIsIn(area: Locator): Promise<boolean> {
  const handle = await area.elementHandle({ timeout: 2000 }).catch(() => null);
  if (!handle) return false;
  return area.page().evaluate((element) => {
    const e2e = (globalThis as any).__e2e;
    const active = e2e.deepActive();
    if (!active || active.tagName === 'BODY') return false;
    if (e2e.contains(element, active) || e2e.contains(active, element)) {
      return active.tagName.toLowerCase() !== 'booking-widget';
    }
    const parent = e2e.parentOf(active);
    const namesIt =
      /^h[1-6]$/i.test(active.tagName) ||
      active.getAttribute('role') === 'heading' ||
      active.getAttribute('tabindex') === '-1';
    return (
      namesIt &&
      !!parent &&
      parent.tagName?.toLowerCase() !== 'booking-widget' &&
      e2e.contains(parent, element)
    );
  }, handle);
}

/**
 * Moves the focus with the keyboard alone (Tab, then Shift+Tab) until it is on the target; fails when the
 * target cannot be reached so.
 */
export async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let presses = 0; presses < limit; presses++) {
      if (await isFocused(target)) return;
      await page.keyboard.press(key);
    }
  }
  if (await isFocused(target)) return;
  throw new Error(
    `${target} cannot be reached with Tab / Shift+Tab (focus is on ${await describeFocus(page)})`,
  );
}

/** What a 375 px layout looks like: the document's scroll width and elements that poke out. */
export async function measureOverflow(
  page: Page,
): Promise<{ viewport: number; scrollWidth: number; offenders: string[] }> {
  return page.evaluate(() => (globalThis as any).__e2e.overflow());
}

/** The modes of the shadow roots attached in the page so far. */
export async function shadowModes(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as any).__e2e.shadowModes);
}

/** Writes a full-page screenshot into the artifacts folder and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The serious and critical violations axe-core finds in the page (the widget's shadow tree included). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}: ${violation.nodes
          .slice(0, 4)
          .map((node) => `${JSON.stringify(node.target)} ${node.failureSummary?.replace(/\s+/g, ' ') ?? ''}`)
          .join(' | ')}`,
    );
}

const CONTROL_ROLES =
  'button|link|textbox|searchbox|spinbutton|combobox|checkbox|radio|slider|switch|listbox|menuitem|tab|option';

/** Lines of an ARIA snapshot that are controls without an accessible name (`- button`, `- textbox: "2"`). */
export function unnamedControls(snapshot: string): string[] {
  const unnamed = new RegExp(`^\\s*- (${CONTROL_ROLES})(\\s*\\[[^\\]]*\\])*\\s*(:.*)?$`);
  return snapshot.split('\n').filter((line) => unnamed.test(line));
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
  await context.addInitScript({ content: PAGE_HELPERS });
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

/** A page of another site, served on its own port (another origin than the API's). */
export interface ThirdPartySite {
  server: Server;
  port: number;
  /** The page's address, on `localhost` (the API is on 127.0.0.1: another site, not only another origin). */
  url: string;
  origin: string;
  /** Sets the HTML the page answers with. */
  setHtml: (html: string) => void;
}

/** Starts a tiny web server on 127.0.0.1 that answers every GET with one HTML page. */
export async function startThirdPartySite(): Promise<ThirdPartySite> {
  let html = '<!doctype html><title>empty</title>';
  const server = createServer((request, response) => {
    if (request.url === '/favicon.ico') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(html);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://localhost:${port}/`,
    origin: `http://localhost:${port}`,
    setHtml: (next) => {
      html = next;
    },
  };
}

/** Stops a third-party site's server. */
export async function stopThirdPartySite(site: ThirdPartySite | undefined): Promise<void> {
  if (!site) return;
  site.server.closeAllConnections();
  await new Promise<void>((done) => site.server.close(() => done()));
}

/** A partner's page holding exactly the issue's two-line embedding snippet, with absolute URLs. */
export function embeddingPage(serviceOrigin: string, title = 'Partner site'): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title></head>`,
    `<body><main><h1>${title}</h1>`,
    `<script type="module" src="${serviceOrigin}/widget/booking-widget.js"></script>`,
    `<booking-widget api="${serviceOrigin}/api/3.0"></booking-widget>`,
    '</main></body>',
    '</html>',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// The booking widget as a guest sees it: found by the labels and roles the issue names, never by its code.

/** The staff credential the widget tests start `npm start` with. */
export const STAFF = { key: 'widget-e2e-key-0001', secret: 'widget-e2e-secret-0001-long-enough' };

/** The `booking-widget` element of a page. */
export const widgetOf = (page: Page): Locator => page.locator('booking-widget');

/** Collapses every kind of space (Intl puts no-break spaces in amounts) so texts compare as read. */
export const normalize = (text: string): string => text.replace(/[\s\u00a0\u202f]+/g, ' ').trim();

/** An amount as the tenant's locale and currency write it (`Intl`), e.g. "$1,240.00" or "190,00 €". */
export const formatMoney = (amount: string | number, localeId: string, currency: string): string =>
  normalize(
    new Intl.NumberFormat(localeId.replace('_', '-'), { style: 'currency', currency }).format(Number(amount)),
  );

/** The part of the widget holding the Search button: its form, else the whole widget. */
export async function searchArea(page: Page): Promise<Locator> {
  const form = widgetOf(page)
    .locator('form')
    .filter({ has: page.getByRole('button', { name: 'Search' }) });
  return (await form.count()) === 1 ? form : widgetOf(page);
}

/** The booking form (the form holding "Confirm booking"), else the whole widget. */
export async function bookingForm(page: Page): Promise<Locator> {
  const form = widgetOf(page)
    .locator('form')
    .filter({ has: page.getByRole('button', { name: 'Confirm booking' }) });
  return (await form.count()) === 1 ? form : widgetOf(page);
}

/** The list item of a search result: a list item whose heading is the item's name (not a cart line). */
export const resultItem = (page: Page, name: string): Locator =>
  widgetOf(page)
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name, exact: true }) })
    .filter({ hasNot: page.getByRole('button', { name: /remove/i }) });

/** The region labelled "Cart". */
export const cartOf = (page: Page): Locator => widgetOf(page).getByRole('region', { name: 'Cart' });

/** A line of the cart (a list item or a row) that names the item. */
export const cartLine = (page: Page, name: string): Locator =>
  cartOf(page).getByRole('listitem').or(cartOf(page).getByRole('row')).filter({ hasText: name }).first();

/** Sets a control's value as a user would: picks an option of a select, types into anything else. */
export async function setValue(control: Locator, value: string): Promise<void> {
  const tag = await control.evaluate((element) => element.tagName.toLowerCase());
  if (tag === 'select') {
    await control.selectOption([{ value }, { label: value }]);
  } else {
    await control.fill(value);
  }
}

/** Types a `YYYY-MM-DD` date into a focused date control by keyboard (a native date input or a text field). */
export async function typeDate(page: Page, control: Locator, date: string): Promise<void> {
  const type = await control.evaluate((element) => element.getAttribute('type') ?? 'text');
  if (type === 'date') {
    const [year, month, day] = date.split('-');
    // A native date input in an en-US browser takes month, day and year segments, each moving on by itself.
    await page.keyboard.type(`${month}${day}${year}`);
  } else {
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(date);
  }
}

/** Fills the search dates by their labels and clicks Search. */
export async function search(page: Page, start: string, end: string): Promise<void> {
  const area = await searchArea(page);
  await area.getByLabel('Start date').fill(start);
  await area.getByLabel('End date').fill(end);
  await area.getByRole('button', { name: 'Search' }).click();
}

/** Rated items of the API answers recorded from `from` on (the widget's own search), keyed by name. */
export function ratedItems(traffic: Traffic, from = 0): Map<string, any> {
  const items = new Map<string, any>();
  for (const exchange of traffic.api.slice(from)) {
    if (exchange.status !== 200 || !/^item(\/\d+)?$/.test(exchange.path)) continue;
    const found = exchange.json?.items ? Object.values(exchange.json.items) : [exchange.json?.item];
    for (const item of found as any[]) if (item?.rate) items.set(item.name, item);
  }
  return items;
}

/** The last cart (`booking.session`) the API answered with, from `from` on. */
export function lastSession(traffic: Traffic, from = 0): any {
  return traffic.api
    .slice(from)
    .filter((exchange) => exchange.json?.booking?.session)
    .at(-1)?.json.booking.session;
}

/** Whether a rated item can be booked as clients decide it: `rate.status` AVAILABLE with a SLIP. */
export const isBookable = (item: any): boolean => item?.rate?.status === 'AVAILABLE' && !!item.rate.slip;

/** A call to the API with the test staff credential. */
export async function staffGet(apiBase: string, path: string): Promise<any> {
  const response = await fetch(`${apiBase}/${path}`, {
    headers: { Authorization: `Basic ${Buffer.from(`${STAFF.key}:${STAFF.secret}`).toString('base64')}` },
  });
  return response.json();
}

/** Adds an item to a cart through the API (another guest holding stock), returning the session id. */
export async function holdThroughApi(apiBase: string, itemId: number, start: string, end: string) {
  const rated: any = await (
    await fetch(`${apiBase}/item/${itemId}?start_date=${start}&end_date=${end}`)
  ).json();
  const slip = rated?.item?.rate?.slip;
  if (!slip)
    throw new Error(`item ${itemId} is not bookable ${start}..${end}: ${JSON.stringify(rated?.item?.rate)}`);
  const response = await fetch(`${apiBase}/booking/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ 'slip[]': slip }).toString(),
  });
  const json: any = await response.json();
  if (response.status !== 200) throw new Error(`holding item ${itemId} failed: ${JSON.stringify(json)}`);
  return json.booking.session.id as string;
}

/** Where the demo tenant's item images live: the tests answer them with a generated PNG. */
export const IMAGE_ORIGIN = 'https://loonlake.example.com';

/** Starts `npm start` on a free port with its own table, the test staff credential and a tenant file. */
export async function startWidgetService(options: {
  dynamoEndpoint: string;
  tenantFile: string;
  name: string;
}): Promise<RunningService> {
  return startService({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: mkdtempSync(join(tmpdir(), `widget-${options.name}-data-`)),
    DYNAMODB_ENDPOINT: options.dynamoEndpoint,
    TABLE_NAME: `widget-${options.name}-${randomUUID()}`,
    ADMIN_API_KEY: STAFF.key,
    ADMIN_API_SECRET: STAFF.secret,
    TENANT_FILE: options.tenantFile,
    SWEEP_INTERVAL_MS: '1000',
  });
}

/** A guest's browser window on a page with the widget, its traffic recorded and policed. */
export interface Guest {
  context: BrowserContext;
  page: Page;
  traffic: Traffic;
  widget: Locator;
}

/** Opens a page in a fresh browser context of the given width and waits for the widget's Search button. */
export async function openGuest(
  browser: Browser,
  options: {
    url: string;
    apiBase: string;
    width: number;
    allowedOrigins?: string[];
    blockCookies?: boolean;
    /** Runs before the page loads (routes, clocks). */
    prepare?: (page: Page) => Promise<unknown>;
    /** Whether to wait for the Search button (default true). */
    waitForWidget?: boolean;
  },
): Promise<Guest> {
  const phone = options.width <= 400;
  const context = await browser.newContext({
    viewport: { width: options.width, height: phone ? 812 : 900 },
    // A phone-sized window is a phone: its meta viewport counts and it has touch.
    isMobile: phone,
    hasTouch: phone,
    locale: 'en-US',
    timezoneId: 'America/Toronto',
  });
  const traffic = await watchTraffic(context, {
    apiBase: options.apiBase,
    allowedOrigins: [new URL(options.url).origin, ...(options.allowedOrigins ?? [])],
    imageOrigin: IMAGE_ORIGIN,
    blockCookies: options.blockCookies,
  });
  const page = await context.newPage();
  await options.prepare?.(page);
  await page.goto(options.url);
  if (!(await page.evaluate(() => typeof (globalThis as any).__e2e === 'object'))) {
    throw new Error('the page helpers did not install (a syntax error in PAGE_HELPERS?)');
  }
  const widget = widgetOf(page);
  if (options.waitForWidget !== false) {
    await widget
      .getByRole('button', { name: 'Search' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
  }
  return { context, page, traffic, widget };
}

/** Whether a locator becomes visible within the time given. */
export const becomesVisible = (locator: Locator, timeout = 10_000): Promise<boolean> =>
  locator
    .first()
    .waitFor({ state: 'visible', timeout })
    .then(
      () => true,
      () => false,
    );

/** Starts recording every text that appears in a live region of the widget (what a screen reader hears). */
export async function recordAnnouncements(page: Page): Promise<void> {
  await widgetOf(page).evaluate((host) => (globalThis as any).__e2e.watchLive(host));
}

/** The texts recorded by {@link recordAnnouncements} so far. */
export async function announcements(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as any).__e2e.liveLog);
}

/** The texts of the live regions in the widget (aria-live polite/assertive, status, alert, log). */
export async function liveRegionTexts(page: Page): Promise<string[]> {
  return widgetOf(page).evaluate((host) => {
    const e2e = (globalThis as any).__e2e;
    return e2e
      .allElements(host.shadowRoot ?? host)
      .concat(host.shadowRoot ? [] : [host])
      .filter((element: any) => {
        const live = element.getAttribute('aria-live');
        const role = element.getAttribute('role');
        if (live === 'off') return false;
        return live === 'polite' || live === 'assertive' || ['status', 'alert', 'log'].includes(role);
      })
      .map((element: any) => (element.textContent ?? '').replace(/\s+/g, ' ').trim());
  });
}

/**
 * What is shown for a form field's error: whether it is marked invalid, the text tied to it by
 * `aria-describedby` / `aria-errormessage`, and the text beside it (its own container, less its label).
 */
export async function fieldError(
  control: Locator,
): Promise<{ invalid: boolean; described: string; beside: string }> {
  return control.evaluate((element) => {
    const root = element.getRootNode();
    const byId = (id: string) => (root.getElementById ? root.getElementById(id) : null);
    const ids = `${element.getAttribute('aria-describedby') ?? ''} ${element.getAttribute('aria-errormessage') ?? ''}`;
    const described = ids
      .split(/\s+/)
      .filter(Boolean)
      .map((id: string) => byId(id)?.textContent ?? '')
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    let box = element.parentElement;
    const controls = (node: any) => node.querySelectorAll('input, select, textarea').length;
    while (box?.parentElement && controls(box.parentElement) <= 1) box = box.parentElement;
    const labels = Array.from(element.labels ?? []).map((label: any) => label.textContent ?? '');
    let beside = (box?.textContent ?? '').replace(/\s+/g, ' ').trim();
    for (const label of labels) beside = beside.replace(label.replace(/\s+/g, ' ').trim(), '');
    return {
      invalid: element.getAttribute('aria-invalid') === 'true' || element.matches(':user-invalid'),
      described,
      beside: beside.trim(),
    };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Checks shared by the widget tests.

/** How long one step of a flow may take in the browser. */
export const STEP_TIMEOUT = 20_000;

/** A text pattern for "N left / N available / N remaining". */
export const leftPattern = (count: number) =>
  new RegExp(
    `(\\b${count}\\b[^0-9]{0,25}(available|left|remaining))|((available|left|remaining)[^0-9]{0,25}\\b${count}\\b)`,
    'i',
  );

/** The text of a locator, spaces normalised. */
export const textOf = async (locator: Locator): Promise<string> =>
  normalize(await locator.evaluate((element) => (globalThis as any).__e2e.deepText(element)));

/** Counts the matches of a pattern in a text. */
export const countMatches = (text: string, pattern: RegExp) =>
  (text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? []).length;

/** Polls until `probe` gives `expected` (or time runs out), then checks it softly: the flow goes on. */
export async function softPoll<T>(
  probe: () => Promise<T>,
  expected: T,
  message: string,
  timeout = 5000,
): Promise<boolean> {
  const deadline = Date.now() + timeout;
  let last: T = await probe();
  while (last !== expected && Date.now() < deadline) {
    await new Promise((wake) => setTimeout(wake, 200));
    last = await probe();
  }
  expect.soft(last, message).toEqual(expected);
  return last === expected;
}

/** Accessibility (axe, names of controls) and, at 375 px, horizontal overflow at one step of a flow. */
export async function audit(page: Page, step: string): Promise<void> {
  expect
    .soft(await seriousViolations(page), `axe-core: serious or critical violations at "${step}"`)
    .toEqual([]);
  const snapshot = await widgetOf(page).ariaSnapshot();
  expect.soft(unnamedControls(snapshot), `controls without an accessible name at "${step}"`).toEqual([]);
  const width = page.viewportSize()?.width ?? 0;
  if (width <= 400) {
    const overflow = await measureOverflow(page);
    expect
      .soft(
        overflow.scrollWidth,
        `at ${width} px, "${step}" scrolls sideways; elements past the edge: ${overflow.offenders.join('; ')}`,
      )
      .toBeLessThanOrEqual(width);
  }
}

/** Audits a state of the page at a phone's 375 px too (layout, names, axe), then restores the width. */
export async function auditAlsoAtPhoneWidth(page: Page, step: string): Promise<void> {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 812 });
  await page.waitForTimeout(300);
  await screenshot(page, `375-${step.replace(/\W+/g, '-')}`);
  await audit(page, `${step} (375 px)`);
  if (size) await page.setViewportSize(size);
}

/** What every test checks of the traffic: hosts, the OpenAPI document, page errors, shadow roots. */
export async function expectCleanTraffic(guest: Guest): Promise<void> {
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

/** Waits until the cart shows the total of the last cart the API answered with, and returns that cart. */
export async function cartMatchesApi(
  page: Page,
  traffic: Traffic,
  options: { from: number; step: string; money: (amount: string | number) => string },
): Promise<any> {
  const { from, step, money } = options;
  let session: any;
  await expect
    .poll(
      async () => {
        await traffic.settle();
        session = lastSession(traffic, from);
        if (!session) return 'no cart answer yet';
        const text = normalize(
          await cartOf(page)
            .innerText({ timeout: 2000 })
            .catch(() => ''),
        );
        return text.includes(money(session.total))
          ? 'shown'
          : `cart shows "${text}", API total ${session.total}`;
      },
      {
        timeout: STEP_TIMEOUT,
        message: `${step}: the cart shows the API's total, as the tenant's locale writes it`,
      },
    )
    .toBe('shown');
  return session;
}

export const mainLines = (session: any) =>
  Object.values(session?.item ?? {}).filter((line: any) => !line.parent) as any[];

/** Checks every item the API rated for the search against its list item. */
export async function expectResultsMatchApi(
  page: Page,
  items: Map<string, any>,
  money: (amount: string | number) => string,
): Promise<void> {
  for (const [name, item] of items) {
    const entry = resultItem(page, name);
    const count = await entry.count();
    expect.soft(count, `"${name}" is one list item whose heading is its name`).toBe(1);
    if (count !== 1) continue;
    const text = await textOf(entry);
    const buttons = await entry.getByRole('button', { name: 'Add to cart' }).count();
    for (const line of String(item.summary ?? '').split('\n')) {
      if (line.trim()) expect.soft(text, `"${name}" shows its summary`).toContain(normalize(line));
    }
    if (isBookable(item)) {
      expect.soft(text, `"${name}" shows its total in the tenant's locale`).toContain(money(item.rate.total));
      expect
        .soft(text, `"${name}" shows what is left (${item.rate.available})`)
        .toMatch(leftPattern(item.rate.available));
      expect.soft(buttons, `"${name}" has one "Add to cart" button`).toBe(1);
    } else {
      if (item.rate.error) {
        expect
          .soft(text, `"${name}" (${item.rate.status}) shows rate.error`)
          .toContain(normalize(item.rate.error));
      }
      expect.soft(buttons, `"${name}" (${item.rate.status}) has no "Add to cart" button`).toBe(0);
    }
    const sources = Object.values(item.image ?? {}).flatMap((image: any) =>
      [image.src, image['src@2x'], image.url, image.url_medium, image.url_small].filter(Boolean),
    );
    if (sources.length > 0) {
      const image = entry.locator('img').first();
      expect.soft(await image.count(), `"${name}" shows its image`).toBe(1);
      if ((await image.count()) === 1) {
        await image.scrollIntoViewIfNeeded().catch(() => undefined);
        await softPoll(
          () => image.evaluate((img: any) => img.complete && img.naturalWidth > 0),
          true,
          `"${name}": its image loads`,
        );
        const shown = await image.evaluate((img: any) => img.currentSrc || img.src);
        expect.soft(sources, `"${name}": the image is the one the API returned`).toContain(shown);
      }
    }
  }
}

/** Searches and waits for the list items of the results; returns the items the API rated. */
export async function searchAndRead(
  page: Page,
  traffic: Traffic,
  start: string,
  end: string,
): Promise<Map<string, any>> {
  const from = traffic.api.length;
  await search(page, start, end);
  await resultItem(page, 'Touring Kayak')
    .or(resultItem(page, 'Lakeside Cabin'))
    .first()
    .waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await page.waitForTimeout(300);
  await traffic.settle();
  return ratedItems(traffic, from);
}
