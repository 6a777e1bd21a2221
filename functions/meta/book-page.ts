import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { StoredConfig } from '#lib/config/index.ts';
import { API_PREFIX } from '#lib/http/routes.ts';
import { createConfigCache } from '#lib/http/tenant-context.ts';
import { isRealYmd } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { escapeHtml } from '#lib/kernel/text.ts';
import { logger } from '#lib/runtime/logger.ts';
import { WIDGET_FILE } from '#widget/files.ts';
import { BOOK_STYLE, banner, contactSection, footer, joinParts, linkable, pageStart } from './page-parts.ts';
import { answerReturn, type ReturnAnswer } from './payment-return-page.ts';
import { acceptsGzip } from './widget.ts';

/**
 * Where the tenant's hosted booking page is served, from the site's root (its row of the route table: `bookPageRoute`), outside the
 * API prefix and its OpenAPI document.
 */
const PAGE_PATH = '/book';

/**
 * The page's policy: its own origin only, but item pictures from any https host (a tenant's images may
 * live on its own site). No frames: a business links to the page, it does not frame it.
 */
export const BOOK_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self' https: data:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** What a deep link chooses: the widget's attributes, and which of its parameters were unusable. */
export interface DeepLink {
  attributes: Record<string, string>;
  unusable: Array<'item' | 'category' | 'start' | 'end' | 'nights'>;
}

/** What the page says about each unusable part of a link, in a guest's words. */
const UNUSABLE_WORDS: Record<DeepLink['unusable'][number], string> = {
  item: 'The link names items in a way this page cannot read, so everything you can book is shown.',
  category: 'The link names a category in a way this page cannot read, so everything you can book is shown.',
  start: 'The date in the link you followed does not exist. Choose your dates on the calendar.',
  end: 'The end date in the link is not after its start. Choose your dates on the calendar.',
  nights:
    'The length of stay in the link could not be used (1 to 366 nights). Choose your dates on the calendar.',
};

const ID_LIST = /^\d{1,9}(,\d{1,9}){0,49}$/;
const MAX_NIGHTS = 366;

/**
 * Reads a deep link (`/book?item=3&start=2027-07-05&nights=3`, or `category=2`, or `end=2027-07-08`): the
 * widget attributes it sets, and the names of the parameters that could not be used (the page still
 * opens, on the rest). Unknown parameters (a campaign's `utm_source`) are left alone.
 */
export function readDeepLink(query: Record<string, string | undefined>): DeepLink {
  const attributes: Record<string, string> = {};
  const unusable: DeepLink['unusable'] = [];
  const { item, category, start, end, nights } = query;
  if (item !== undefined) {
    if (ID_LIST.test(item)) attributes.item = item;
    else unusable.push('item');
  }
  if (category !== undefined) {
    if (/^\d{1,9}$/.test(category)) attributes.category = category;
    else unusable.push('category');
  }
  const ymd = (text: string | undefined) => {
    const compact = text?.replaceAll('-', '') ?? '';
    return /^\d{4}-\d{2}-\d{2}$/.test(text ?? '') && isRealYmd(compact) ? compact : undefined;
  };
  const iso = (compact: string) => `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6)}`;
  if (start === undefined) {
    if (end !== undefined || nights !== undefined) unusable.push(end !== undefined ? 'end' : 'nights');
    return { attributes, unusable };
  }
  const first = ymd(start);
  if (!first) {
    unusable.push('start');
    return { attributes, unusable };
  }
  attributes['start-date'] = iso(first);
  if (nights !== undefined) {
    // A length, not an end: the widget ends it by the unit of what it offers (a 3-night stay checks out on
    // the 8th; a 3-day rental's last day is the 7th).
    const count = /^\d{1,3}$/.test(nights) ? Number(nights) : 0;
    if (count >= 1 && count <= MAX_NIGHTS) attributes.nights = String(count);
    else unusable.push('nights');
  } else if (end !== undefined) {
    const last = ymd(end);
    if (last && last >= first) attributes['end-date'] = iso(last);
    else unusable.push('end');
  }
  return { attributes, unusable };
}

/** The booking page of a tenant, with the widget set as the deep link says. */
export function renderBookPage(config: StoredConfig, link: DeepLink, pageUrl: string): string {
  const { company, locale, policy } = config;
  const name = escapeHtml(company.name);
  const place = escapeHtml(joinParts(company.city, company.region));
  const description = escapeHtml(
    `Book ${company.name} online${place ? ` (${joinParts(company.city, company.region)})` : ''}: see what is free, hold it while you book, and get your confirmation at once.`,
  );
  const attributes = Object.entries({ api: API_PREFIX, ...link.attributes })
    .map(([key, value]) => ` ${key}="${escapeHtml(value)}"`)
    .join('');
  const terms = linkable(policy.terms_url);
  const policyText = policy.body
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph.trim())}</p>`)
    .join('');
  return [
    ...pageStart(locale.lang, `Book online: ${name}`),
    `<meta name="description" content="${description}">`,
    `<link rel="canonical" href="${escapeHtml(pageUrl)}">`,
    '<meta name="theme-color" content="#1f6f54">',
    '<meta property="og:type" content="website">',
    `<meta property="og:title" content="Book online: ${name}">`,
    `<meta property="og:description" content="${description}">`,
    `<meta property="og:url" content="${escapeHtml(pageUrl)}">`,
    `<meta property="og:site_name" content="${name}">`,
    `<meta property="og:locale" content="${escapeHtml(locale.id)}">`,
    // No favicon request: the page asks for nothing but the widget, its pictures and the API.
    '<link rel="icon" href="data:,">',
    `<link rel="modulepreload" href="/widget/${WIDGET_FILE}">`,
    `<style>${BOOK_STYLE}</style>`,
    '</head>',
    '<body>',
    ...banner(config, { target: 'book', words: 'Skip to booking' }),
    '<main class="wrap">',
    `<h1>Book online at ${name}</h1>`,
    '<p class="lead">Choose your dates to see what is free. What you add is held for you while you book.</p>',
    link.unusable.length
      ? `<div class="problem" role="note">${link.unusable.map((part) => `<p>${UNUSABLE_WORDS[part]}</p>`).join('')}</div>`
      : '',
    `<section id="book" aria-label="Booking"><booking-widget${attributes}></booking-widget></section>`,
    '<div class="about">',
    '<section aria-labelledby="policy-title">',
    '<h2 id="policy-title">Booking policy</h2>',
    policyText || '<p>Ask us about changes and cancellations before you book.</p>',
    terms ? `<p><a href="${escapeHtml(terms)}">Terms and conditions</a></p>` : '',
    '</section>',
    ...contactSection(config),
    '</div>',
    '</main>',
    footer(config),
    `<script type="module" src="/widget/${WIDGET_FILE}"></script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

/**
 * The page's answer: HTML, never an envelope (a guest's browser reads it), gzipped when taken. A page about one
 * booking is `personal`: never stored by a cache, and its address (which holds its key) never sent as a referrer.
 */
const page = (
  status: number,
  html: string,
  requestId: string,
  acceptEncoding: string | undefined,
  personal = false,
): APIGatewayProxyStructuredResultV2 => {
  const gzip = acceptsGzip(acceptEncoding);
  return {
    statusCode: status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': BOOK_PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': personal ? 'no-referrer' : 'strict-origin-when-cross-origin',
      'cache-control': status === 200 && !personal ? 'public, max-age=300' : 'no-store',
      'x-request-id': requestId,
      vary: 'accept-encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    body: gzip ? gzipSync(html).toString('base64') : html,
    isBase64Encoded: gzip,
  };
};

/** A page about one booking (the guest's `/manage`): never stored by a cache, its address never a referrer. */
export const personalPage = (
  status: number,
  html: string,
  requestId: string,
  acceptEncoding: string | undefined,
): APIGatewayProxyStructuredResultV2 => page(status, html, requestId, acceptEncoding, true);

const UNAVAILABLE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Booking is not available</title></head><body><main><h1>Booking is not available right now</h1><p>Please try again in a few minutes.</p></main></body></html>';

/**
 * Serves `GET /book` from the tenant's configuration (kept for a short time, as the API keeps it);
 * returns undefined for any other request. A link with an unusable part still gets the page, with a note,
 * answered 400 so a checker sees the link is wrong. With `booking`, it is the page a guest returns to from
 * paying (payment-return-page.ts).
 */
export function createBookPage(deps: {
  db: Db;
  publicUrl: () => string;
  configTtlMs?: number;
  clock?: () => number;
}) {
  const loadConfig = createConfigCache({ db: deps.db, ttlMs: deps.configTtlMs });
  const clock = deps.clock ?? Date.now;
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2 | undefined> => {
    const requestId = event.requestContext?.requestId || randomUUID();
    const query = event.queryStringParameters ?? {};
    let config: StoredConfig;
    let returned: ReturnAnswer | undefined;
    try {
      config = await loadConfig(clock());
      if (query.booking !== undefined) returned = await answerReturn(deps.db, config, query, clock());
    } catch (error) {
      logger.error('booking page without its tenant or its booking', { request_id: requestId, error });
      return page(503, UNAVAILABLE, requestId, undefined);
    }
    if (returned && 'location' in returned)
      return {
        statusCode: 303,
        headers: {
          location: returned.location,
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
          'x-request-id': requestId,
        },
      };
    const accept = event.headers?.['accept-encoding'];
    if (returned) return page(returned.status, returned.html, requestId, accept, true);
    const link = readDeepLink(query);
    const status = link.unusable.length ? 400 : 200;
    const html = renderBookPage(config, link, `${deps.publicUrl()}${PAGE_PATH}`);
    return page(status, html, requestId, accept);
  };
}
