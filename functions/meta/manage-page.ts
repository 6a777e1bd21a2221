import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { StoredConfig } from '#lib/config/index.ts';
import { API_PREFIX } from '#lib/http/routes.ts';
import { createConfigCache } from '#lib/http/tenant-context.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { escapeHtml } from '#lib/kernel/text.ts';
import { logger } from '#lib/runtime/logger.ts';
import { MANAGE_FILE } from '#widget/files.ts';
import { personalPage } from './book-page.ts';
import { BOOK_STYLE, banner, contactSection, footer, pageStart } from './page-parts.ts';

/** The look the guest's page adds to the booking page's: the booking's facts, its lists, the buttons and the change's form. */
const MANAGE_STYLE = `${BOOK_STYLE}
/* A window's height at least, loading or not: what comes below (contact, footer) starts out of sight, so the
   booking arriving moves nothing the guest sees (layout shift). */
#manage { max-width: 40rem; min-height: 100vh; }
#manage h2 { margin: 1.5rem 0 .5rem; font-size: 1.25rem; }
#manage h3 { margin: 1.25rem 0 .25rem; font-size: 1rem; }
#manage h2:focus { outline: none; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .5rem 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.lines { margin: .25rem 0; padding-left: 1.25rem; }
.cancel, .done { margin-top: 1.5rem; padding: 0 1rem 1rem; background: #fff; border: 1px solid #dcd8cc; }
.done { border-left: 4px solid var(--accent); }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; }
button, .button { display: inline-block; min-height: 44px; padding: .5rem 1rem; border: 2px solid var(--accent);
  border-radius: .375rem; background: var(--accent); color: #fff; font: inherit; text-decoration: none; cursor: pointer; }
button + button, .actions button:last-child:not(:first-child) { background: #fff; color: var(--accent); }
button.danger { background: #a3221b; border-color: #a3221b; color: #fff; }
button:focus-visible, .button:focus-visible { outline: 3px solid #f2b632; outline-offset: 2px; }
button:disabled { opacity: .6; cursor: progress; }
.change label { display: block; font-weight: 600; }
.change input { min-height: 44px; min-width: 10rem; padding: .25rem .5rem; border: 1px solid #6b6b6b;
  border-radius: .375rem; font: inherit; }
`;

const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
const CODE = /^[A-Za-z0-9-]{1,40}$/;

/**
 * Whether a link is one the service could have handed out: a booking code (or number) and a token of the
 * shapes it makes. Whether they name a booking is the API's answer to the page's script, never the page's.
 */
export const isManageLink = (query: Record<string, string | undefined>): boolean =>
  CODE.test(query.booking ?? '') && TOKEN.test(query.token ?? '');

/**
 * The guest's page of a booking: the same HTML for every link of a well-formed shape, so it says nothing
 * about whether the booking exists; its script asks the API with the link's token and shows the answer.
 */
export function renderManagePage(config: StoredConfig, wellFormed: boolean): string {
  const { company, locale } = config;
  const name = escapeHtml(company.name);
  const data = Object.entries({
    api: API_PREFIX,
    currency: locale.currency,
    locale: locale.id.replace('_', '-'),
    timezone: company.timezone,
  })
    .map(([key, value]) => ` data-${key}="${escapeHtml(value)}"`)
    .join('');
  return [
    ...pageStart(locale.lang, `Your booking: ${name}`),
    `<meta name="description" content="${escapeHtml(`Your booking with ${company.name}: see it, pay what is due, change its dates, or cancel it under its policy.`)}">`,
    '<meta name="theme-color" content="#1f6f54">',
    '<link rel="icon" href="data:,">',
    wellFormed ? `<link rel="modulepreload" href="/widget/${MANAGE_FILE}">` : '',
    `<style>${MANAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    ...banner(config, { target: 'manage', words: 'Skip to your booking' }),
    '<main class="wrap">',
    `<h1>Your booking with ${name}</h1>`,
    wellFormed
      ? `<div id="manage"${data}><p>Loading your booking…</p><noscript><p>This page needs JavaScript to show your booking. You can also contact us below.</p></noscript></div>`
      : '<div id="manage"><h2>This link is not valid</h2><p>The link is incomplete. Use the link in your latest confirmation email, or contact us below.</p></div>',
    '<div class="about">',
    ...contactSection(config),
    '</div>',
    '</main>',
    footer(config),
    wellFormed ? `<script type="module" src="/widget/${MANAGE_FILE}"></script>` : '',
    '</body>',
    '</html>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

const UNAVAILABLE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Your booking is not available</title></head><body><main><h1>Your booking cannot be shown right now</h1><p>Please try again in a few minutes.</p></main></body></html>';

/**
 * Serves `GET /manage?booking=CODE&token=T` from the tenant's configuration: 200 with the page for a link of
 * the right shape, 400 with "not valid" for one that is not. Never cached, never sent as a referrer: its
 * address holds the booking's key.
 */
export function createManagePage(deps: { db: Db; configTtlMs?: number; clock?: () => number }) {
  const loadConfig = createConfigCache({ db: deps.db, ttlMs: deps.configTtlMs });
  const clock = deps.clock ?? Date.now;
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const requestId = event.requestContext?.requestId || randomUUID();
    const accept = event.headers?.['accept-encoding'];
    let config: StoredConfig;
    try {
      config = await loadConfig(clock());
    } catch (error) {
      logger.error('manage page without its tenant', { request_id: requestId, error });
      return personalPage(503, UNAVAILABLE, requestId, undefined);
    }
    const wellFormed = isManageLink(event.queryStringParameters ?? {});
    return personalPage(wellFormed ? 200 : 400, renderManagePage(config, wellFormed), requestId, accept);
  };
}
