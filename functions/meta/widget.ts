import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { API_PREFIX } from '#lib/http/routes.ts';
import { logger } from '#lib/runtime/logger.ts';
import { WIDGET_DIST, WIDGET_FILE, WIDGET_FILES } from '#widget/files.ts';

/** The folder beside the meta function's bundle that the widget is built into at bundling time. */
export const WIDGET_ASSETS_DIR = 'widget-assets';

/** Where the widget's files are served (their row of the route table: `widgetFileRoute`). */
const PREFIX = '/widget/';

/**
 * The two lines a business pastes into its page, for the service at `base` (its origin, no trailing
 * slash; '' for the page's own origin).
 */
export const widgetSnippet = (base: string): string =>
  [
    `<script type="module" src="${base}${PREFIX}${WIDGET_FILE}"></script>`,
    `<booking-widget api="${base}${API_PREFIX}"></booking-widget>`,
  ].join('\n');

/**
 * The allow-listed widget file a request asks for, or undefined. The raw path is compared as sent, never
 * decoded or joined, so `..`, `%2e%2e` or `%2F` can only miss the list.
 */
export const widgetFileOf = (method: string, rawPath: string): string | undefined => {
  if (method.toUpperCase() !== 'GET' || !rawPath.startsWith(PREFIX)) return undefined;
  const name = rawPath.slice(PREFIX.length);
  return Object.hasOwn(WIDGET_FILES, name) ? name : undefined;
};

/** Whether a client takes gzip (`Accept-Encoding`, honouring `q=0`). */
export const acceptsGzip = (header: string | undefined): boolean =>
  (header ?? '').split(',').some((part) => {
    const [coding = '', ...params] = part
      .toLowerCase()
      .split(';')
      .map((piece) => piece.trim());
    return (coding === 'gzip' || coding === '*') && !params.some((param) => /^q=0(\.0*)?$/.test(param));
  });

interface Loaded {
  /** Path, modification time and size: a rebuilt file is read again. */
  version: string;
  plain: Buffer;
  gzipped: Buffer;
}

/**
 * Serves the built widget's files, read at run time so the function's code stays small: from `dir` when
 * given (tests), else beside the bundle (AWS, built there at bundling), else widget/dist (`npm start`).
 * Returns undefined for any other request, which the API then answers (a 404 envelope for unknown names).
 */
export function createWidgetFiles(dir?: string) {
  const dirs = dir
    ? [dir]
    : [fileURLToPath(new URL(`./${WIDGET_ASSETS_DIR}/`, import.meta.url)), WIDGET_DIST];
  const cache = new Map<string, Loaded>();

  const load = (name: string): Loaded | undefined => {
    for (const folder of dirs) {
      const path = join(folder, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      const version = `${path}:${stat.mtimeMs}:${stat.size}`;
      const cached = cache.get(name);
      if (cached?.version === version) return cached;
      const plain = readFileSync(path);
      const loaded = { version, plain, gzipped: gzipSync(plain, { level: 9 }) };
      cache.set(name, loaded);
      return loaded;
    }
    return undefined;
  };

  return (event: APIGatewayProxyEventV2): APIGatewayProxyStructuredResultV2 | undefined => {
    const method = event.requestContext?.http?.method ?? 'GET';
    const name = widgetFileOf(method, event.rawPath ?? '');
    if (!name) return undefined;
    const requestId = event.requestContext?.requestId || randomUUID();
    const file = load(name);
    if (!file) {
      // Only when the build step did not run; the API's 404 envelope answers the client.
      logger.warn('widget not built', { request_id: requestId, file: name });
      return undefined;
    }
    const type = WIDGET_FILES[name] as string;
    // A picture is compressed already: gzip would only cost time. Pictures change with their names.
    const picture = type.startsWith('image/');
    const gzip = !picture && acceptsGzip(event.headers?.['accept-encoding']);
    return {
      statusCode: 200,
      headers: {
        'content-type': type,
        'cache-control': picture ? 'public, max-age=86400' : 'public, max-age=300',
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
        // API Gateway does not compress: the widget's size budget is what it weighs gzipped.
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        ...(picture ? {} : { vary: 'accept-encoding' }),
      },
      body: (gzip ? file.gzipped : file.plain).toString('base64'),
      isBase64Encoded: true,
    };
  };
}
