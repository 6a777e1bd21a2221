import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { API_PREFIX } from '#lib/http/routes.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { DomainError } from '#lib/kernel/errors.ts';

/** The reference page's own files (Swagger UI), served by the service itself: no CDN, works offline. */
export const DOCS_ASSETS = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const;

type AssetName = keyof typeof DOCS_ASSETS;

/** Where each file the meta function serves comes from in the repository (copied beside the bundle in AWS). */
export const META_FILES: Record<AssetName | 'openapi.json', string> = {
  'swagger-ui-bundle.js': 'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
  'swagger-ui.css': 'node_modules/swagger-ui-dist/swagger-ui.css',
  'openapi.json': 'functions/meta/openapi.json',
};

const cache = new Map<string, string>();

/**
 * A served file's text, read once: beside the function's bundle in AWS (copied there at bundling), else
 * from the repository (`npm start`). Read at run time, so the bundle stays small.
 */
const readServed = (name: keyof typeof META_FILES): string => {
  let text = cache.get(name);
  if (text === undefined) {
    const beside = fileURLToPath(new URL(`./docs-assets/${name}`, import.meta.url));
    const fromRepository =
      name === 'openapi.json'
        ? fileURLToPath(new URL('./openapi.json', import.meta.url))
        : createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`);
    text = readFileSync(existsSync(beside) ? beside : fromRepository, 'utf8');
    cache.set(name, text);
  }
  return text;
};

const page = (): string =>
  [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Booking API 3.0 reference</title>',
    `<link rel="stylesheet" href="${API_PREFIX}/docs/swagger-ui.css">`,
    '</head><body><div id="reference"></div>',
    `<script src="${API_PREFIX}/docs/swagger-ui-bundle.js"></script>`,
    // validatorUrl null: Swagger UI would otherwise send the document to a public validator.
    `<script>window.ui = SwaggerUIBundle({ url: '${API_PREFIX}/openapi.json', dom_id: '#reference', validatorUrl: null, deepLinking: true });</script>`,
    '</body></html>',
  ].join('');

/** GET openapi.json (public): the OpenAPI 3.1 description of this API, generated from its schemas. */
export const getOpenApi: RouteHandler = async ({ input }) => {
  parseInput(noParameters, input);
  return {
    body: {},
    raw: { contentType: 'application/json; charset=utf-8', body: readServed('openapi.json') },
  };
};

/** GET docs (public): the API reference page, rendered from openapi.json by Swagger UI. */
export const getDocs: RouteHandler = async ({ input }) => {
  parseInput(noParameters, input);
  return { body: {}, raw: { contentType: 'text/html; charset=utf-8', body: page() } };
};

/** GET docs/{asset} (public): a file of the reference page. */
export const getDocsAsset: RouteHandler = async ({ input, params }) => {
  parseInput(noParameters, input);
  const name = params.asset ?? '';
  // Own keys only: `in` would let `toString` and other prototype names through to the file read.
  if (!Object.hasOwn(DOCS_ASSETS, name)) {
    throw new DomainError('not_found', `No file ${name.slice(0, 64)}`, { asset: name.slice(0, 64) });
  }
  const asset = name as AssetName;
  return {
    body: {},
    raw: { contentType: DOCS_ASSETS[asset], body: readServed(asset) },
    headers: { 'cache-control': 'public, max-age=86400' },
  };
};
