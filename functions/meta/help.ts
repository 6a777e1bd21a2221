import type { RouteHandler } from '#lib/http/group-handler.ts';
import { PAGE_CSP } from '#lib/http/respond.ts';
import type { KnownRoute } from '#lib/http/route-match.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { escapeHtml } from '#lib/kernel/text.ts';

const ACCESS = {
  public: 'public',
  staff: 'staff credentials',
  token: 'staff, or the booking token',
  feed: 'the feed token',
} as const;

/** The endpoint table of the route table as a small HTML page: the service's own documentation. */
const helpPage = (base: string, routes: readonly KnownRoute[]): string =>
  [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Booking API 3.0</title></head><body>',
    `<h1>Booking API 3.0</h1><p>Every path is under <code>${escapeHtml(base)}</code>.</p>`,
    '<table><thead><tr><th>Method</th><th>Path</th><th>Access</th></tr></thead><tbody>',
    ...routes.map(
      (route) =>
        `<tr><td>${route.method}</td><td><code>${escapeHtml(route.path)}</code></td><td>${ACCESS[route.access]}</td></tr>`,
    ),
    '</tbody></table></body></html>',
  ].join('');

/**
 * GET help (public), over the route table: the resources this service answers, with links to the reference page and the
 * OpenAPI document; a browser (`Accept: text/html`) gets the endpoint table at the same URL.
 */
export const createHelp =
  (table: readonly KnownRoute[]): RouteHandler =>
  async ({ input, headers, apiUrl }) => {
    parseInput(noParameters, input);
    const base = apiUrl;
    const routes = table.filter((route) => (route.kind ?? 'api') === 'api');
    if ((headers.accept ?? '').includes('text/html')) {
      return {
        body: {},
        raw: { contentType: 'text/html; charset=utf-8', body: helpPage(base, routes) },
        headers: { 'content-security-policy': PAGE_CSP },
      };
    }
    const resources = [...new Set(routes.map((route) => route.resource))].sort();
    return {
      body: { help: { resources, documentation: `${base}/docs`, openapi: `${base}/openapi.json` } },
      request: { records: resources.length },
    };
  };
