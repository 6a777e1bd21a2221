import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ROUTES } from '#functions/routes.ts';
import { REQUEST_LIMITS } from '#lib/http/parse.ts';
import { createMatcher } from '#lib/http/route-match.ts';
import { fullPath, type Group } from '#lib/http/routes.ts';
import { logger } from '#lib/runtime/logger.ts';

/** A Lambda handler as the gateway calls it. */
export type GatewayHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway base64-encodes every body that is not text. */
const isTextMedia = (contentType: string | undefined): boolean => {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/xml' ||
    type.endsWith('+xml') ||
    type === 'application/javascript'
  );
};

/** The route table's matcher, as API Gateway's routes are made from the same table. */
const matchRoute = createMatcher(ROUTES);

/** Which group serves a request and the route key API Gateway would report ($default when none matches). */
export function resolveGroup(
  method: string,
  path: string,
): {
  group: Group;
  routeKey: string;
  pathParameters?: Record<string, string>;
} {
  const match = matchRoute(method, path);
  if (match.kind !== 'route') return { group: 'meta', routeKey: '$default' };
  return {
    group: match.route.group,
    routeKey: `${match.route.method} ${fullPath(match.route)}`,
    ...(Object.keys(match.params).length ? { pathParameters: match.params } : {}),
  };
}

const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(',') : value;

/** Turns a Node request and its body into an HTTP API payload 2.0 event, as API Gateway builds it. */
function toEvent(request: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = request.url ?? '/';
  const questionMark = url.indexOf('?');
  const rawPath = questionMark < 0 ? url : url.slice(0, questionMark);
  const rawQueryString = questionMark < 0 ? '' : url.slice(questionMark + 1);
  const method = (request.method ?? 'GET').toUpperCase();
  const { routeKey, pathParameters } = resolveGroup(method, rawPath);

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const joined = headerValue(value);
    if (joined !== undefined && name !== 'cookie') headers[name.toLowerCase()] = joined;
  }
  const cookies = (headerValue(request.headers.cookie) ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');

  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    queryStringParameters[name] =
      name in queryStringParameters ? `${queryStringParameters[name]},${value}` : value;
  }

  const requestId = randomUUID();
  const now = Date.now();
  const sourceIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const hasBody = body.length > 0;
  const base64 = hasBody && !isTextMedia(headers['content-type']);
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(pathParameters ? { pathParameters } : {}),
    ...(hasBody ? { body: body.toString(base64 ? 'base64' : 'utf8') } : {}),
    isBase64Encoded: base64,
  };
}

const lambdaContext = (functionName: string, requestId: string): Context => {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/** A request body as far as the gateway read it. */
interface ReadBody {
  body: Buffer;
  /** False when the body is over the limit and the rest of it was left unread. */
  complete: boolean;
}

/**
 * Reads a body up to the API's limit, and no further: no route accepts more, so a larger body is never
 * streamed in only to be refused. A declared Content-Length over the limit is not read at all; a body
 * that passes it is cut at limit + 1 bytes, which is what the function needs to answer 413.
 */
const readBody = (request: IncomingMessage, limit: number): Promise<ReadBody> =>
  new Promise((resolve, reject) => {
    if (Number(request.headers['content-length']) > limit) {
      resolve({ body: Buffer.alloc(0), complete: false });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= limit) return;
      request.off('data', onData);
      request.off('end', onEnd);
      request.pause();
      resolve({ body: Buffer.concat(chunks).subarray(0, limit + 1), complete: false });
    };
    const onEnd = () => resolve({ body: Buffer.concat(chunks), complete: true });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', reject);
  });

/** Whether a request carries a body, which an answer sent without reading it leaves unread. */
const hasBody = (request: IncomingMessage): boolean =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

const send = (
  response: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: string | Buffer,
) => {
  response.writeHead(status, headers);
  response.end(body);
};

// What the gateway answers itself gets the header every API answer carries (`respond`); a function's
// answer is written as the function made it, as API Gateway does, so a missing one shows locally too.
const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const;

/** An answer of the gateway's own (preflight, page, integration failure), always with `nosniff`. */
const sendOwn = (
  response: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: string,
) => send(response, status, { ...headers, ...NOSNIFF }, body);

// Node's own answers to a request its parser refuses (its `socketOnError`), with `nosniff` added.
const CLIENT_ERRORS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * Answers a request Node could not parse as Node would, with `nosniff`, and closes the connection: only when
 * no answer of this connection has begun (a kept-alive connection's earlier answers are no reason not to).
 */
const answerClientError = (
  error: NodeJS.ErrnoException,
  socket: Duplex & { _httpMessage?: { headersSent?: boolean } | null },
) => {
  if (socket.writable && !socket._httpMessage?.headersSent) {
    const status = CLIENT_ERRORS[error.code ?? ''] ?? '400 Bad Request';
    socket.write(
      `HTTP/1.1 ${status}\r\nContent-Length: 0\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n`,
    );
  }
  socket.destroy(error);
};

/** CORS as API Gateway answers it when the HTTP API has a CORS configuration. */
export interface GatewayCors {
  origins: string[];
  headers: string[];
  methods: string[];
  maxAgeSeconds: number;
  /** Response headers a browser script may read. */
  exposeHeaders?: string[];
}

const corsHeaders = (cors: GatewayCors | undefined, origin: string | undefined): Record<string, string> =>
  cors && origin && cors.origins.includes(origin)
    ? {
        'access-control-allow-origin': origin,
        'access-control-allow-credentials': 'true',
        vary: 'Origin',
        ...(cors.exposeHeaders?.length
          ? { 'access-control-expose-headers': cors.exposeHeaders.join(',') }
          : {}),
      }
    : {};

/** A page the local gateway serves itself at one path (the demo site), outside the API. */
export interface GatewayPage {
  headers: Record<string, string>;
  body: string;
}

/** Whether Node can write a header line (it throws on CR, LF, NUL and anything past Latin-1). */
const canWrite = (name: string, value: string): boolean => {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
};

/**
 * The function's headers that Node can write. One that cannot is left out and logged, never turned into
 * a 500: the function has answered, and may have committed a change (a booking made) that a 500 would deny.
 */
function writableHeaders(
  result: APIGatewayProxyStructuredResultV2,
  cors: Record<string, string>,
  requestId: string,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { ...cors };
  const dropped: string[] = [];
  for (const [name, raw] of Object.entries(result.headers ?? {})) {
    const value = name === 'vary' ? joinVary(cors.vary, String(raw)) : String(raw);
    if (canWrite(name, value)) headers[name] = value;
    else dropped.push(name);
  }
  const cookies: string[] = [];
  for (const cookie of result.cookies ?? []) {
    if (canWrite('set-cookie', cookie)) cookies.push(cookie);
    else dropped.push('set-cookie');
  }
  if (cookies.length) headers['set-cookie'] = cookies;
  if (dropped.length)
    logger.error('gateway dropped headers it cannot write', { request_id: requestId, headers: dropped });
  return headers;
}

/** Joins two `Vary` values, so CORS's `Origin` survives a function's own `Vary`. */
const joinVary = (first: string | undefined, second: string | undefined): string =>
  [first, second].filter((value) => value).join(', ');

/** How long an idle kept-alive client connection stays open (Node's default is 5 s). */
const KEEP_ALIVE_MS = 65_000;

/**
 * The local gateway: serves the API over HTTP by turning each request into the event API Gateway would
 * send to the group's Lambda function, and the function's result back into HTTP.
 */
export function createGateway(options: {
  handlers: Record<Group, GatewayHandler>;
  cors?: GatewayCors;
  /** Pages by exact path, answered to GET and HEAD before any function (the query is ignored). */
  pages?: Record<string, GatewayPage>;
}): Server {
  // Node's own refusals of a request without Host and of an unknown expectation are answered here instead,
  // with `nosniff` like every other answer of the gateway.
  const server = createServer({ requireHostHeader: false }, async (request, response) => {
    if (request.httpVersion === '1.1' && request.headers.host === undefined) {
      sendOwn(response, 400, { connection: 'close' }, '');
      return;
    }
    try {
      const origin = headerValue(request.headers.origin);
      const cors = corsHeaders(options.cors, origin);
      // Preflights and pages never read a body: one sent anyway closes the connection, unread.
      const unread: Record<string, string> = hasBody(request) ? { connection: 'close' } : {};
      if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] && options.cors) {
        sendOwn(
          response,
          204,
          Object.keys(cors).length
            ? {
                ...unread,
                ...cors,
                'access-control-allow-methods': options.cors.methods.join(','),
                'access-control-allow-headers': options.cors.headers.join(','),
                'access-control-max-age': String(options.cors.maxAgeSeconds),
              }
            : unread,
          '',
        );
        return;
      }
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const page = options.pages && Object.hasOwn(options.pages, path) ? options.pages[path] : undefined;
      if (page && (request.method === 'GET' || request.method === 'HEAD')) {
        sendOwn(response, 200, { ...page.headers, ...unread }, page.body);
        return;
      }
      const { body, complete } = await readBody(request, REQUEST_LIMITS.bodyBytes);
      const event = toEvent(request, body);
      const { group } = resolveGroup(event.requestContext.http.method, event.rawPath);
      const result = await options.handlers[group](
        event,
        lambdaContext(group, event.requestContext.requestId),
      );
      const headers = writableHeaders(result, cors, event.requestContext.requestId);
      // The rest of an oversized body stays unread: Node closes a `Connection: close` answer's socket once
      // it is written, rather than draining the body to keep the connection.
      if (!complete) headers.connection = 'close';
      const payload = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? '');
      send(response, result.statusCode ?? 200, headers, payload);
    } catch {
      // What API Gateway answers when the integration itself fails.
      sendOwn(response, 500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
    }
  });
  server.on('clientError', answerClientError);
  // API Gateway keeps an idle client connection far longer than Node's 5 s default; with the default, a
  // client that paused a few seconds (a script between calls, a test process busy) sent its next request
  // on a socket the runner had just closed ("other side closed"). The runner's stop closes idle connections.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.on('checkExpectation', (_request, response: ServerResponse) => sendOwn(response, 417, {}, ''));
  return server;
}
