import { API_PREFIX } from '#lib/http/routes.ts';

// Every response an end-to-end test receives over HTTP from the API is checked against the OpenAPI
// document, as the integration tests' in-process calls are: what clients see cannot drift from it.
// Files that share a worker (the unit tests run without isolation) run this again in the same global
// scope: the check wraps the real fetch once, never itself.
const REAL_FETCH = Symbol.for('booking-service.test.realFetch');
const scope = globalThis as typeof globalThis & { [REAL_FETCH]?: typeof fetch };
const realFetch = scope[REAL_FETCH] ?? globalThis.fetch;
scope[REAL_FETCH] = realFetch;
// The document's validator and the route table are loaded on a file's first API answer over HTTP: a file
// that neither fetches one nor checks in-process answers (the infra tests) does not build them, and a file
// that mocks a module of the service (vi.mock, hoisted to the file's top) does so before this setup file
// has loaded the route table and, through it, every handler.
let documented: Promise<typeof import('./openapi.ts')> | undefined;
let table: Promise<typeof import('#functions/routes.ts')> | undefined;

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await realFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!url.pathname.startsWith(`${API_PREFIX}/`)) return response;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  table ??= import('#functions/routes.ts');
  const match = (await table).matchRoute(method, url.pathname);
  if (match.kind !== 'route') return response;
  const type = response.headers.get('content-type') ?? '';
  const json = type.startsWith('application/json') ? await response.clone().json() : null;
  documented ??= import('./openapi.ts');
  (await documented).expectDocumented(match.route, {
    status: response.status,
    headers: { 'content-type': type },
    json,
  });
  return response;
};
