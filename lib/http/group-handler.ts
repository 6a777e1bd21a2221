import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from '../access/index.ts';
import type { FeedRequest, FeedResponse } from '../channels/index.ts';
import type { StoredConfig } from '../config/index.ts';
import type { OutboundPolicy } from '../kernel/outbound/address-guard.ts';
import type { Db } from '../kernel/storage/database.ts';
import type { ProviderSource } from '../payments/index.ts';
import { type Meter, meterOf } from '../runtime/metrics.ts';
import type { SlipKey } from '../slip/index.ts';
import type { EdgeOrigin } from './edge-origin.ts';
import { buildEnvelope, type RouteResult } from './envelope.ts';
import { envelopeContext } from './envelope-context.ts';
import { ApiError } from './errors.ts';
import { collectIgnored } from './ignored.ts';
import { accessLog } from './middleware/access-log.ts';
import { answerMetrics } from './middleware/answer-metrics.ts';
import { authorise } from './middleware/authorise.ts';
import { errorEnvelope } from './middleware/error-envelope.ts';
import { loadTenant } from './middleware/load-tenant.ts';
import { notImplemented } from './middleware/not-implemented.ts';
import { parseInput } from './middleware/parse-input.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { resolveAddress } from './middleware/resolve-address.ts';
import { routeContext } from './middleware/route-context.ts';
import { startRequest } from './middleware/start-request.ts';
import type { Input } from './parse.ts';
import { apiUrlOf, DEFAULT_PUBLIC_URL } from './public-url.ts';
import { stateWith } from './request-state.ts';
import { jsonResponse, respond } from './respond.ts';
import { createMatcher, type KnownRoute, type RouteMatch } from './route-match.ts';
import { type Group, type Route, type RouteRowDeclaration, rowsOf } from './routes.ts';
import { accessStore, createConfigCache, createTrustedCache } from './tenant-context.ts';

/** What every endpoint group needs at run time, built once per process. */
export interface ApiDeps {
  db: Db;
  /** Where the service runs, reported by `ping` (`aws:<region>` or `local`). */
  provider: string;
  /** Milliseconds since the epoch; tests inject a fixed clock. */
  clock?: () => number;
  /** How long the tenant configuration is cached in memory (default 15 s). */
  configTtlMs?: number;
  /** The SLIP signing keys, the first signing (needed by the items, session and bookings groups). */
  slipKeys?: () => Promise<readonly SlipKey[]>;
  /**
   * Where the service is publicly reached (`https://host`, no `/api/3.0`), read when a link is built:
   * the stack's API endpoint in AWS (PUBLIC_URL), the runner's own address locally. Default
   * `DEFAULT_PUBLIC_URL`.
   */
  publicUrl?: () => string;
  /**
   * Where channel feeds may be fetched from (`POST channel/{id}/sync`): `deployed` (https to public
   * addresses, the default, failing closed) or `local` (the runner: also http and loopback).
   */
  feedPolicy?: OutboundPolicy;
  /** The CPU time one feed's read may take: READ_BUDGET_MS (5 s) unless the runner's CHANNEL_READ_BUDGET_MS says. */
  feedReadBudgetMs?: number;
  /** Fetches a channel feed; tests inject one, the default is `fetchFeed`. */
  fetchFeed?: (request: FeedRequest) => Promise<FeedResponse>;
  /** Proxies trusted besides the tenant's `settings.trusted_proxies` (the local runner's TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  /** The CloudFront edge in front of the API (docs/edge.md): requests through it are counted by their viewer. */
  edge?: EdgeOrigin;
  /** Where the answers' metrics go (deployed functions); none are kept without it. */
  metrics?: Metrics;
  /** The payment provider (issue 43): the bookings group's create and the payments group's webhook. */
  payments?: ProviderSource;
  /** How long one provider call of a payment webhook's delivery may take (10 s unless set; tests shorten it). */
  providerCallMs?: number;
  /** The most events one webhook replay lists (1,000 unless set; tests page with a few). */
  replayPageSize?: number;
}

/** The SLIP keys of a group that signs or verifies SLIPs; a deployment without them fails when used. */
export const slipKeysOf = (deps: ApiDeps): (() => Promise<readonly SlipKey[]>) =>
  deps.slipKeys ??
  (async () => {
    throw new Error('No SLIP signing keys configured (SLIP_KEYS or SLIP_SECRET_ARN)');
  });

/** A parsed, authorised request as a route implementation sees it. */
export interface ApiRequest {
  route: Route;
  params: Record<string, string>;
  input: Input;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  caller: Caller;
  config: StoredConfig;
  requestId: string;
  /** The connection's address as the gateway saw it. */
  sourceIp: string;
  /** The requester's address: the source IP, or what trusted proxies (or a vouching staff credential) forward. */
  requesterAddress: string;
  /**
   * The requester: the key its limits and hold budgets are counted under (an IPv6 address by its /64, or the
   * tenant's `ipv6_prefix`; a partner's credential). Records and tenant settings call it the client.
   */
  requester: string;
  /** The API's public base URL (`https://host/api/3.0`), from configuration, never from request headers. */
  apiUrl: string;
  /** Milliseconds since the epoch at the start of the request. */
  now: number;
  /** Milliseconds left before the function times out (the Lambda deadline). */
  remainingMs: () => number;
  /** Counts what the request did (holds made, bookings created, status changes). */
  meter: Meter;
}

/** A route implementation: validated input in, one domain call, a body out. */
export type RouteHandler = (request: ApiRequest) => Promise<RouteResult>;

/**
 * A route as its group declares it: its row of the route table and the implementation its group builds from
 * what it shares (`C`); a route declared without one answers 501 `not_implemented`. The route's documentation
 * (summary, schemas, errors) is stated beside it, in a statement the functions' bundles leave out.
 */
export interface RouteDeclaration<C> extends RouteRowDeclaration {
  handler?: (context: C) => RouteHandler;
  /** A page's or a file's answer (kind `page` or `file`), built from what the group shares. */
  serve?: (context: C) => RawRouteHandler;
}

/**
 * A page or a file: answered as it is, with no tenant, credentials or envelope of the API's; undefined when
 * there is none such (a file not on the list), which the API answers 404.
 */
export type RawRouteHandler = (
  event: APIGatewayProxyEventV2,
) => Promise<APIGatewayProxyStructuredResultV2 | undefined> | APIGatewayProxyStructuredResultV2 | undefined;

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** What a request is assumed to have left when no Lambda context says (the functions' timeout). */
const DEFAULT_REMAINING_MS = 10_000;

/**
 * Builds the middy handler of one endpoint group. The outer stack opens the request, turns any error into
 * its answer and reports metrics and the access log; the router then picks the route, and each route runs
 * its own stack, in order: tenant, client address, input, access, limits, 501, then the implementation.
 * A new cross-cutting concern is a new middleware in one of these stacks.
 */
export function createApiHandler<C>(options: {
  group: Group;
  /** The group's routes, in the table's order. */
  routes: readonly RouteDeclaration<C>[];
  /** What the group's route implementations share, built once. */
  context: C;
  deps: ApiDeps;
  /** Routes served by other functions, whose paths asked with another method are a 405 here (the meta group's). */
  known?: readonly KnownRoute[];
  /** Cookies a group sets on an error response (the session group clears a lost session's cookie). */
  errorCookies?: (error: unknown, headers: Record<string, string>) => string[];
}) {
  const { group, deps } = options;
  const implementations = new Map(
    options.routes.map((route) => [route.name, route.handler?.(options.context)] as const),
  );
  const served = new Map(
    options.routes.map((route) => [route.name, route.serve?.(options.context)] as const),
  );
  const clock = deps.clock ?? Date.now;
  const publicUrl = deps.publicUrl ?? (() => DEFAULT_PUBLIC_URL);
  const loadConfig = createConfigCache({ db: deps.db, ttlMs: deps.configTtlMs, publicUrl });
  const trustedOf = createTrustedCache(deps.trustedProxies ?? []);
  const store = accessStore(deps.db);
  const meter = meterOf(deps.metrics);

  /** The route's implementation called with what the pipeline learnt, its result as the answer. */
  const answer =
    (route: Route, implementation: RouteHandler | undefined) =>
    async (event: Event, lambda?: Context): Promise<Result> => {
      // `notImplemented` answered already when there is none.
      if (!implementation) throw new Error(`No implementation of ${route.name}`);
      const state = stateWith(event, 'config', 'parsed', 'caller', 'requester', 'requesterAddress');
      const { parsed } = state;
      collectIgnored(parsed.input, state.ignored);
      const params = event.pathParameters ?? {};
      const result = await implementation({
        route,
        params: Object.fromEntries(Object.entries(params).map(([name, value]) => [name, value ?? ''])),
        input: parsed.input,
        headers: parsed.headers,
        cookies: parsed.cookies,
        caller: state.caller,
        config: state.config,
        requestId: state.requestId,
        sourceIp: event.requestContext.http.sourceIp,
        requesterAddress: state.requesterAddress,
        requester: state.requester,
        apiUrl: apiUrlOf(publicUrl()),
        now: state.startedAt,
        remainingMs: () => lambda?.getRemainingTimeInMillis?.() ?? DEFAULT_REMAINING_MS,
        meter,
      });
      state.rated = Boolean(result.query);
      const status = result.status ?? 200;
      if (result.raw) {
        return respond(state, {
          status,
          ...result.raw,
          ...(result.headers ? { headers: result.headers } : {}),
        });
      }
      return jsonResponse(state, {
        status,
        body: buildEnvelope(envelopeContext(state, event.requestContext.http.method, clock()), result),
        headers: result.headers,
        cookies: result.cookies,
      });
    };

  // Each route's own stack, as middy's router composes them; the inner middy leaves the early timeout to
  // the outer one.
  const routeHandler = (route: Route) =>
    (route.kind ?? 'api') !== 'api'
      ? serveRaw(route, served.get(route.name))
      : middy<Event, Result>({ timeoutEarlyInMillis: 0 })
          .use(routeContext(route))
          .use(loadTenant(loadConfig))
          .use(resolveAddress(trustedOf, deps.edge))
          .use(parseInput())
          .use(authorise({ db: deps.db, store, route }))
          .use(rateLimit({ db: deps.db, route }))
          .use(notImplemented(route, implementations.get(route.name) !== undefined))
          .handler(answer(route, implementations.get(route.name)));

  // The group's rows pick the route; a path of another group is this function's 404, as API Gateway never
  // sends one here (the meta group, which answers every path no route has, knows the others' for its 405).
  const rows = rowsOf(options.routes.filter((route) => route.group === group));
  const matchRoute = createMatcher(rows, options.known);
  const handlers = new Map(rows.map((route) => [route, routeHandler(route)]));
  const router = (event: Event, lambda: Context) => {
    const { method } = event.requestContext.http;
    const match = matchRoute(method, event.rawPath);
    const handle = match.kind === 'route' ? handlers.get(match.route) : undefined;
    if (match.kind !== 'route' || !handle) return notFound(match, { method, path: event.rawPath });
    // API Gateway's own path parameters win, as they did under middy's router.
    event.pathParameters = { ...match.params, ...event.pathParameters };
    return handle(event, lambda);
  };

  const handler = middy<Event, Result>();
  // Outermost: metrics are flushed after every answer. (Lambda's active tracing covers the invocation.)
  if (deps.metrics) handler.use(logMetrics(deps.metrics));
  return handler
    .use(startRequest({ clock }))
    .use(errorEnvelope({ clock, loadConfig, errorCookies: options.errorCookies }))
    .use(answerMetrics({ meter, clock }))
    .use(accessLog())
    .handler(router);
}

/**
 * A page's or a file's stack: the route recorded for the log and the metrics, then its answer as it is (a
 * file not on the list is the API's 404).
 */
const serveRaw =
  (route: Route, serve: RawRouteHandler | undefined) =>
  async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    routeContext(route).before?.({ event } as never);
    // HEAD is answered as GET would be, without the body.
    const head = route.method === 'HEAD';
    const asked = head
      ? {
          ...event,
          requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method: 'GET' } },
        }
      : event;
    const answer = await serve?.(asked);
    if (answer && head) return { ...answer, body: '', isBase64Encoded: false };
    if (answer) return answer;
    throw new ApiError('not_found', {
      details: `No endpoint at ${event.rawPath}`,
      data: { path: event.rawPath },
    });
  };

/** The router's answer to a path no route has: 405 with `Allow` when another method has it, else 404. */
function notFound(match: RouteMatch, { method, path }: { method: string; path: string }): never {
  if (match.kind === 'method_not_allowed') {
    throw new ApiError('method_not_allowed', {
      details: `${method} is not allowed here; use ${match.allowed.join(' or ')}`,
      data: { allowed: match.allowed },
      headers: { allow: match.allowed.join(', ') },
    });
  }
  throw new ApiError('not_found', { details: `No endpoint at ${path}`, data: { path } });
}
