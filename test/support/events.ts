import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { authErrorSchema, errorEnvelopeSchema } from '#functions/responses.ts';
import { docsOf } from '#functions/route-docs.ts';
import { matchRoute } from '#functions/routes.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { createCredential } from '#lib/access/credential-admin.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { expectDocumented } from './openapi.ts';

/** What a test request says. */
export interface TestRequest {
  method?: string;
  path: string;
  query?: string;
  body?: string;
  contentType?: string;
  base64?: boolean;
  headers?: Record<string, string>;
  cookies?: string[];
  /** The client's address; by default each request comes from an address of its own (TEST-NET-2). */
  sourceIp?: string;
}

let nextAddress = 0;

/** A fresh client address for each call, so tests not about per-client limits never meet them. */
export const freshAddress = (): string => {
  nextAddress += 1;
  return `198.51.${Math.floor(nextAddress / 250) % 250}.${(nextAddress % 250) + 1}`;
};

/** An HTTP API payload 2.0 event for a path below /api/3.0, as API Gateway would send it. */
export function makeEvent(request: TestRequest): APIGatewayProxyEventV2 {
  const method = request.method ?? 'GET';
  const rawPath = `/api/3.0/${request.path}`;
  const { routeKey, pathParameters } = resolveGroup(method, rawPath);
  const headers: Record<string, string> = { host: 'localhost', ...request.headers };
  if (request.contentType) headers['content-type'] = request.contentType;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: request.query ?? '',
    ...(request.cookies ? { cookies: request.cookies } : {}),
    headers,
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? freshAddress(),
        userAgent: 'vitest',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(pathParameters ? { pathParameters } : {}),
    ...(request.body !== undefined
      ? { body: request.base64 ? Buffer.from(request.body).toString('base64') : request.body }
      : {}),
    isBase64Encoded: request.base64 ?? false,
  };
}

/** A minimal Lambda context: `remainingMs` is the function's time left (10 s, its timeout, by default). */
export const testContext = (remainingMs = 10_000): Context =>
  ({
    functionName: 'test',
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => remainingMs,
  }) as unknown as Context;

/** A handler's response with its body parsed. */
export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  cookies: string[];
  /** The body parsed, for a JSON response (null otherwise). */
  json: Record<string, any>;
  /** The body as sent. */
  text: string;
}

/** Invokes a handler with a test request and parses the JSON body. */
export async function invoke(
  handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>,
  request: TestRequest,
  context: Context = testContext(),
): Promise<TestResponse> {
  const event = makeEvent(request);
  const result = await handler(event, context);
  const response = {
    status: result.statusCode ?? 200,
    headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
    cookies: result.cookies ?? [],
    json: (result.headers?.['content-type'] ?? '').toString().startsWith('application/json')
      ? JSON.parse(result.body ?? 'null')
      : null,
    text: result.body ?? '',
  };
  expectDescribed(event.requestContext.http.method, event.rawPath, response);
  return response;
}

/**
 * Checks a response against the one schema that describes it (functions/responses.ts): the route's
 * success body, the error envelope, or the 401 body. Every test that invokes a handler checks this.
 */
export function expectDescribed(method: string, path: string, response: TestResponse): void {
  if (!(response.headers['content-type'] ?? '').startsWith('application/json')) return;
  const match = matchRoute(method, path);
  const schema =
    response.status === 401
      ? authErrorSchema
      : response.status >= 400
        ? errorEnvelopeSchema
        : match.kind === 'route'
          ? docsOf(match.route.name).response
          : undefined;
  if (!schema) throw new Error(`No response schema for ${method} ${path}`);
  const result = schema.safeParse(response.json);
  if (!result.success) {
    throw new Error(
      `${method} ${path} ${response.status} does not match its schema: ${JSON.stringify(result.error.issues.slice(0, 5))}`,
    );
  }
  // A provider's webhook (a `hook` route) is not the API's: checked against its own schema, not the document.
  if (match.kind === 'route' && match.route.kind !== 'hook') expectDocumented(match.route, response);
}

/** The Basic authorization header of a key and secret. */
export const basic = (key: string, secret: string): string =>
  `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

/** The Basic authorization header of a new credential of an account (a partner's, or staff's). */
export async function accountBasic(
  db: Db,
  accountId: number,
  options: { onBehalf?: boolean; label?: string; now?: number } = {},
): Promise<string> {
  const credential = await createCredential(db, {
    accountId,
    onBehalf: options.onBehalf ?? false,
    label: options.label ?? 't',
    now: options.now ?? Date.now(),
  });
  return basic(credential.key, credential.secret);
}

/** The Basic authorization header of a new staff credential of account 1. */
export const staffBasic = (db: Db, options: Parameters<typeof accountBasic>[2] = {}): Promise<string> =>
  accountBasic(db, 1, options);

/** A form body (application/x-www-form-urlencoded) of fields; a list repeats its field once per value. */
export const formBody = (fields: Record<string, string | string[]>): string =>
  Object.entries(fields)
    .flatMap(([name, value]) =>
      [value].flat().map((entry) => `${encodeURIComponent(name)}=${encodeURIComponent(entry)}`),
    )
    .join('&');

/** A fetch response's JSON body, loosely typed for assertions. */
export const readJson = async (response: Response): Promise<TestResponse['json']> =>
  (await response.json()) as TestResponse['json'];
