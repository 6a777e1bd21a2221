import { randomUUID } from 'node:crypto';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type Caller, resolveCaller } from '../auth/access.ts';
import type { Db } from '../db/client.ts';
import type { StoredConfig } from '../db/tenant-repository.ts';
import type { SlipKey } from '../slip/codec.ts';
import { clientKeyOf, resolveClientAddress } from './client-address.ts';
import { buildEnvelope, type EnvelopeContext, type RouteResult } from './envelope.ts';
import { ApiError, AuthError } from './errors.ts';
import { collectIgnored } from './ignored.ts';
import { logger } from './logger.ts';
import { type Meter, meterAnswer, meterOf } from './observability.ts';
import { type Input, parseRequest } from './parse.ts';
import { apiUrlOf, DEFAULT_PUBLIC_URL } from './public-url.ts';
import { budgetOf, enforceRateLimit } from './rate-limit.ts';
import {
  errorResponse,
  jsonResponse,
  type RequestState,
  respond,
  toApiError,
  unauthorizedResponse,
} from './respond.ts';
import { matchRoute } from './route-match.ts';
import { API_PREFIX, fullPath, type Group, type Route, routesOfGroup } from './routes.ts';
import { accessStore, createConfigCache, createTrustedCache, envelopeTenant } from './tenant-context.ts';

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
  /** Proxies trusted besides the tenant's `settings.trusted_proxies` (the local runner's TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  /** Where the answers' metrics go (deployed functions); none are kept without it. */
  metrics?: Metrics;
  /**
   * Traces each invocation (deployed functions: `runtimeFromEnv`). A middleware, not the tracer: only a
   * Lambda entry loads the X-Ray SDK, whose async hook would otherwise cost every promise of a process
   * that never traces (npm start, the tests, the benchmark).
   */
  trace?: MiddlewareObj<Event, Result>;
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
  /** The client's address: the source IP, or what trusted proxies (or a vouching staff credential) forward. */
  clientAddress: string;
  /** The key the client's limits and hold budgets are counted under (an IPv6 address by its /64, or the tenant's `ipv6_prefix`). */
  client: string;
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

/** What a request is assumed to have left when no Lambda context says (the functions' timeout). */
const DEFAULT_REMAINING_MS = 10_000;
type Result = APIGatewayProxyStructuredResultV2;

const states = new WeakMap<Event, RequestState>();

const lowerCaseKeys = (headers: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), value]],
    ),
  );

const firstSegment = (path: string): string => path.slice(`${API_PREFIX}/`.length).split('/')[0] ?? '';

/**
 * Builds the middy handler of one endpoint group: routes from the route table, each with its access
 * rule, input parsing and the envelope; every error becomes its envelope (or a 401 body) in one place.
 * Routes of the group without an implementation answer 501 `not_implemented`.
 */
export function createApiHandler(options: {
  group: Group;
  routes: Partial<Record<string, RouteHandler>>;
  deps: ApiDeps;
  /** Cookies a group sets on an error response (the session group clears a lost session's cookie). */
  errorCookies?: (error: unknown, headers: Record<string, string>) => string[];
}) {
  const { group, routes, deps } = options;
  const clock = deps.clock ?? Date.now;
  const loadConfig = createConfigCache({ db: deps.db, ttlMs: deps.configTtlMs });
  const trustedOf = createTrustedCache(deps.trustedProxies ?? []);
  const store = accessStore(deps.db);
  const meter = meterOf(deps.metrics);
  const publicUrl = deps.publicUrl ?? (() => DEFAULT_PUBLIC_URL);

  const context = (state: RequestState, method: string): EnvelopeContext => ({
    tenant: envelopeTenant(state.config),
    resource: state.resource,
    id: state.id,
    method,
    startedAt: state.startedAt,
    now: clock(),
    ignored: [...state.ignored],
  });

  const serve =
    (route: Route) =>
    async (event: Event, lambda?: Context): Promise<Result> => {
      const state = states.get(event) as RequestState;
      const params = event.pathParameters ?? {};
      state.resource = route.resource;
      state.route = route.name;
      state.id = route.id || (Object.values(params)[0] ?? '');
      const config = await loadConfig(state.startedAt);
      state.config = config;
      const sourceIp = event.requestContext.http.sourceIp;
      const addressOf = (vouched: boolean) =>
        resolveClientAddress({
          peer: sourceIp,
          forwardedFor: event.headers?.['x-forwarded-for'],
          trusted: trustedOf(config),
          vouched,
        });
      state.clientAddress = addressOf(false);
      const parsed = parseRequest(event);
      const { access_token: accessToken, ...input } = parsed.input;

      const caller = await resolveCaller(
        store,
        {
          authorization: parsed.headers.authorization,
          accessToken,
          onBehalf: parsed.headers['x-on-behalf'],
          sourceIp,
        },
        state.startedAt,
      ).catch(async (error: unknown) => {
        // A refused credential still costs its client a request, so guessing keys is rate limited too.
        if (error instanceof AuthError) {
          const budget = { requests: config.settings.limits.requests_per_minute };
          const client = `client:${clientKeyOf(state.clientAddress ?? sourceIp, config.settings.limits.ipv6_prefix)}`;
          state.limitHeaders = await enforceRateLimit(deps.db, {
            counter: client,
            budgets: budget,
            now: state.startedAt,
          });
        }
        throw error;
      });
      // A staff credential calling for its customer (X-On-Behalf: off) vouches for the address it forwards.
      // A partner's does not: its customers are its own, and it is held to its budgets per credential, so a
      // made-up X-Forwarded-For per cart cannot buy it a fresh share.
      const partnerOff = caller.kind === 'customer' && caller.partnerId !== undefined;
      if (caller.kind === 'customer' && caller.credentialKey && !partnerOff)
        state.clientAddress = addressOf(true);
      const clientAddress = state.clientAddress;
      const client = partnerOff
        ? `credential:${caller.credentialKey}`
        : clientKeyOf(clientAddress, config.settings.limits.ipv6_prefix);
      const credentialed = caller.kind === 'staff' || caller.credentialKey !== undefined;
      if (route.access === 'staff' && caller.kind !== 'staff') {
        throw new AuthError('unauthorized', 'Staff credentials are required');
      }
      if (route.access === 'public' && !state.config.settings.public_api && !credentialed) {
        throw new AuthError('unauthorized', 'This API requires credentials');
      }
      if (route.access === 'token' && caller.kind !== 'staff' && typeof input.token !== 'string') {
        throw new AuthError('unauthorized', 'Staff credentials or the booking token are required');
      }
      const budget = budgetOf({ caller, client, route, input, config: state.config });
      if (budget) {
        state.limitHeaders = await enforceRateLimit(deps.db, { ...budget, now: state.startedAt });
      }
      const implementation = routes[route.name];
      if (!implementation) {
        throw new ApiError('not_implemented', {
          details: `${route.method} ${route.path} is not built yet`,
          data: { route: `${route.method} ${route.path}` },
        });
      }
      collectIgnored(input, state.ignored);
      const result = await implementation({
        route,
        params: Object.fromEntries(Object.entries(params).map(([name, value]) => [name, value ?? ''])),
        input,
        headers: parsed.headers,
        cookies: parsed.cookies,
        caller,
        config,
        requestId: state.requestId,
        sourceIp,
        clientAddress,
        client,
        apiUrl: apiUrlOf(publicUrl()),
        now: state.startedAt,
        remainingMs: () => lambda?.getRemainingTimeInMillis?.() ?? DEFAULT_REMAINING_MS,
        meter,
      });
      meterAnswer(meter, { route: route.name, rated: Boolean(result.query), ms: clock() - state.startedAt });
      const status = result.status ?? 200;
      logger.info('request', {
        request_id: state.requestId,
        route: route.name,
        status,
        client_ip: clientAddress,
      });
      if (result.raw) {
        return respond(state, {
          status,
          ...result.raw,
          ...(result.headers ? { headers: result.headers } : {}),
        });
      }
      return jsonResponse(state, {
        status,
        body: buildEnvelope(context(state, event.requestContext.http.method), result),
        headers: result.headers,
        cookies: result.cookies,
      });
    };

  const notFound = ({ method, path }: { method: string; path: string }): never => {
    const match = matchRoute(method, path);
    if (match.kind === 'method_not_allowed') {
      throw new ApiError('method_not_allowed', {
        details: `${method} is not allowed here; use ${match.allowed.join(' or ')}`,
        data: { allowed: match.allowed },
        headers: { allow: match.allowed.join(', ') },
      });
    }
    throw new ApiError('not_found', { details: `No endpoint at ${path}`, data: { path } });
  };

  const router = httpRouterHandler<Event, Result>({
    routes: routesOfGroup(group).map((route) => ({
      method: route.method,
      path: fullPath(route),
      handler: serve(route),
    })),
    notFoundResponse: notFound,
  });

  const handler = middy<Event, Result>();
  // Outermost: the trace covers the whole invocation, and metrics are flushed after every answer.
  if (deps.trace) handler.use(deps.trace);
  if (deps.metrics) handler.use(logMetrics(deps.metrics));
  return handler
    .use({
      before: (request) => {
        const path = request.event.requestContext?.http?.path ?? request.event.rawPath ?? '';
        states.set(request.event, {
          requestId: request.event.requestContext?.requestId || randomUUID(),
          startedAt: clock(),
          resource: firstSegment(path),
          id: '',
          ignored: new Set(),
        });
      },
      onError: async (request) => {
        const event = request.event;
        const state = states.get(event) ?? {
          requestId: randomUUID(),
          startedAt: clock(),
          resource: '',
          id: '',
          ignored: new Set<string>(),
        };
        const error = request.error;
        const sourceIp = event.requestContext?.http?.sourceIp;
        meterAnswer(meter, {
          route: state.route,
          errorId: toApiError(error)?.id,
          ms: clock() - state.startedAt,
        });
        if (error instanceof AuthError) {
          request.response = unauthorizedResponse(state, error, sourceIp);
          return;
        }
        if (!state.config) {
          state.config = await loadConfig(clock()).catch(() => undefined);
        }
        request.response = errorResponse(state, {
          error,
          context: context(state, event.requestContext?.http?.method ?? 'GET'),
          sourceIp,
          cookies: options.errorCookies?.(error, lowerCaseKeys(event.headers ?? {})) ?? [],
        });
      },
    })
    .handler(router);
}
