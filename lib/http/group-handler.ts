import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from '../access/index.ts';
import type { FeedRequest, FeedResponse } from '../channels/index.ts';
import type { StoredConfig } from '../config/index.ts';
import type { DeliveryPolicy } from '../kernel/outbound/address-guard.ts';
import type { Db } from '../kernel/storage/database.ts';
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
import { matchRoute } from './route-match.ts';
import { type Group, type Route, type RouteName, type RouteNameOf, routesOfGroup } from './routes.ts';
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
  feedPolicy?: DeliveryPolicy;
  /** Fetches a channel feed; tests inject one, the default is `fetchFeed`. */
  fetchFeed?: (request: FeedRequest) => Promise<FeedResponse>;
  /** Proxies trusted besides the tenant's `settings.trusted_proxies` (the local runner's TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  /** The CloudFront edge in front of the API (docs/edge.md): requests through it are counted by their viewer. */
  edge?: EdgeOrigin;
  /** Where the answers' metrics go (deployed functions); none are kept without it. */
  metrics?: Metrics;
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
export function createApiHandler<G extends Group>(options: {
  group: G;
  /** The implementation of each route of the group; a route left out answers 501 `not_implemented`. */
  routes: Partial<Record<RouteNameOf<G>, RouteHandler>>;
  deps: ApiDeps;
  /** Cookies a group sets on an error response (the session group clears a lost session's cookie). */
  errorCookies?: (error: unknown, headers: Record<string, string>) => string[];
}) {
  const { group, deps } = options;
  const routes: Partial<Record<RouteName, RouteHandler>> = options.routes;
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
    middy<Event, Result>({ timeoutEarlyInMillis: 0 })
      .use(routeContext(route))
      .use(loadTenant(loadConfig))
      .use(resolveAddress(trustedOf, deps.edge))
      .use(parseInput())
      .use(authorise({ db: deps.db, store, route }))
      .use(rateLimit({ db: deps.db, route }))
      .use(notImplemented(route, routes[route.name] !== undefined))
      .handler(answer(route, routes[route.name]));

  // The route table's own matcher (the one API Gateway's routes and the local gateway are built from) picks
  // the route; a path of another group is this function's 404, as API Gateway never sends one here.
  const handlers = new Map(routesOfGroup(group).map((route) => [route, routeHandler(route)]));
  const router = (event: Event, lambda: Context) => {
    const { method } = event.requestContext.http;
    const match = matchRoute(method, event.rawPath);
    const handle = match.kind === 'route' ? handlers.get(match.route) : undefined;
    if (match.kind !== 'route' || !handle) return notFound({ method, path: event.rawPath });
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

/** The router's answer to a path no route has: 405 with `Allow` when another method has it, else 404. */
function notFound({ method, path }: { method: string; path: string }): never {
  const match = matchRoute(method, path);
  if (match.kind === 'method_not_allowed') {
    throw new ApiError('method_not_allowed', {
      details: `${method} is not allowed here; use ${match.allowed.join(' or ')}`,
      data: { allowed: match.allowed },
      headers: { allow: match.allowed.join(', ') },
    });
  }
  throw new ApiError('not_found', { details: `No endpoint at ${path}`, data: { path } });
}
