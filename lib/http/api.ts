import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type Caller, resolveCaller } from '../auth/access.ts';
import { AccessError } from '../auth/errors.ts';
import { unixSeconds } from '../core/time.ts';
import type { Db } from '../db/client.ts';
import { getCredential, getToken, recordCredentialUse } from '../db/credential-repository.ts';
import { IdempotencyKeyError } from '../db/idempotency-store.ts';
import { getAccount, getConfig, recordAccountLogin, type StoredConfig } from '../db/tenant-repository.ts';
import { ContentionError } from '../db/transact.ts';
import { DomainError } from '../domain/errors.ts';
import type { SlipKey } from '../slip/codec.ts';
import { clientKeyOf, resolveClientAddress, type TrustedProxies, trustedProxies } from './client-address.ts';
import {
  buildEnvelope,
  buildErrorEnvelope,
  type EnvelopeContext,
  type EnvelopeTenant,
  type RouteResult,
  UNKNOWN_TENANT,
} from './envelope.ts';
import { ApiError, AuthError } from './errors.ts';
import { collectIgnored } from './ignored.ts';
import { logger } from './logger.ts';
import { type Input, parseRequest } from './parse.ts';
import { budgetOf, enforceRateLimit } from './rate-limit.ts';
import { API_PREFIX, fullPath, type Group, matchRoute, type Route, routesOfGroup } from './routes.ts';

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
  /** Proxies trusted besides the tenant's `settings.trusted_proxies` (the local runner's TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
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
  /** The key the client's limits and hold budgets are counted under (an IPv6 address by its /64). */
  client: string;
  /** Milliseconds since the epoch at the start of the request. */
  now: number;
  /** Milliseconds left before the function times out (the Lambda deadline). */
  remainingMs: () => number;
}

/** A route implementation: validated input in, one domain call, a body out. */
export type RouteHandler = (request: ApiRequest) => Promise<RouteResult>;

type Event = APIGatewayProxyEventV2;

/** What a request is assumed to have left when no Lambda context says (the functions' timeout). */
const DEFAULT_REMAINING_MS = 10_000;
type Result = APIGatewayProxyStructuredResultV2;

interface RequestState {
  requestId: string;
  startedAt: number;
  resource: string;
  id: string;
  config?: StoredConfig;
  clientAddress?: string;
  /** The `RateLimit-*` headers of a limited route, sent on every response of the request. */
  limitHeaders?: Record<string, string>;
  /** Parameters sent but not read, as sent. */
  ignored: Set<string>;
}

const states = new WeakMap<Event, RequestState>();

const WWW_AUTHENTICATE = 'Basic realm="Booking API 3.0", Bearer realm="Booking API 3.0"';

const envelopeTenant = (config: StoredConfig | undefined): EnvelopeTenant =>
  config
    ? {
        account_id: config.company.account_id,
        host_id: config.company.host_id,
        name: config.company.name,
        locale: { id: config.locale.id, lang: config.locale.lang, currency: config.locale.currency },
      }
    : UNKNOWN_TENANT;

/** Caches the tenant configuration for a short time, so most requests read nothing for the envelope. */
function createConfigCache(deps: ApiDeps) {
  const ttl = deps.configTtlMs ?? 15_000;
  let cached: { config: StoredConfig; until: number } | undefined;
  return async (now: number): Promise<StoredConfig> => {
    if (cached && cached.until > now) return cached.config;
    const config = await getConfig(deps.db);
    if (!config) throw new Error('No tenant is loaded into the table');
    cached = { config, until: now + ttl };
    return config;
  };
}

/** The trusted proxies of a configuration, built once per configuration read. */
const createTrustedCache = (extra: readonly string[]) => {
  const cache = new WeakMap<StoredConfig, TrustedProxies>();
  return (config: StoredConfig): TrustedProxies => {
    let list = cache.get(config);
    if (!list) {
      list = trustedProxies([...config.settings.trusted_proxies, ...extra]);
      cache.set(config, list);
    }
    return list;
  };
};

const accessStore = (db: Db) => ({
  getCredential: (key: string) => getCredential(db, key),
  getToken: (hash: string) => getToken(db, hash),
  getAccount: (accountId: number) => getAccount(db, accountId),
  recordUse: async (options: { key: string; accountId: number; ip: string; at: number }) => {
    const recorded = await recordCredentialUse(db, {
      key: options.key,
      at: options.at,
      notBefore: options.at - 60_000,
    });
    if (recorded) {
      await recordAccountLogin(db, {
        accountId: options.accountId,
        at: unixSeconds(options.at),
        ip: options.ip,
      });
    }
  },
});

const respond = (
  state: RequestState,
  options: {
    status: number;
    contentType: string;
    body: string;
    headers?: Record<string, string>;
    cookies?: string[];
  },
): Result => ({
  statusCode: options.status,
  headers: {
    'content-type': options.contentType,
    'cache-control': 'no-store',
    'x-request-id': state.requestId,
    ...(state.ignored.size ? { 'x-ignored-parameters': [...state.ignored].join(',') } : {}),
    ...state.limitHeaders,
    ...options.headers,
  },
  ...(options.cookies?.length ? { cookies: options.cookies } : {}),
  body: options.body,
});

const jsonResponse = (
  state: RequestState,
  options: { status: number; body: unknown; headers?: Record<string, string>; cookies?: string[] },
): Result =>
  respond(state, {
    ...options,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify(options.body),
  });

/** Maps the errors that carry a client-facing meaning to their envelope error; others are internal. */
const toApiError = (error: unknown): ApiError | undefined => {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    return new ApiError(error.code, {
      details: error.message,
      data: error.data,
      ...(error.title ? { title: error.title } : {}),
    });
  }
  if (error instanceof AccessError) {
    return new ApiError(error.code, { details: error.message, data: error.data });
  }
  if (error instanceof IdempotencyKeyError) {
    return new ApiError(error.code, { details: error.message, data: { 'Idempotency-Key': error.key } });
  }
  if (error instanceof ContentionError) {
    return new ApiError('busy', {
      details: 'Too many changes at once; try again',
      headers: { 'retry-after': '1' },
    });
  }
  return undefined;
};

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
  const loadConfig = createConfigCache(deps);
  const trustedOf = createTrustedCache(deps.trustedProxies ?? []);
  const store = accessStore(deps.db);

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
          const client = `client:${clientKeyOf(state.clientAddress ?? sourceIp)}`;
          state.limitHeaders = await enforceRateLimit(deps.db, {
            counter: client,
            budgets: budget,
            now: state.startedAt,
          });
        }
        throw error;
      });
      // A staff credential calling for its customer (X-On-Behalf: off) vouches for the address it forwards.
      if (caller.kind === 'customer' && caller.credentialKey) state.clientAddress = addressOf(true);
      const clientAddress = state.clientAddress;
      const client = clientKeyOf(clientAddress);
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
      const result = await collectIgnored(state.ignored, () =>
        implementation({
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
          now: state.startedAt,
          remainingMs: () => lambda?.getRemainingTimeInMillis?.() ?? DEFAULT_REMAINING_MS,
        }),
      );
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

  return middy<Event, Result>()
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
        if (error instanceof AuthError) {
          logger.info('request', {
            request_id: state.requestId,
            status: 401,
            reason: error.message,
            client_ip: state.clientAddress ?? event.requestContext?.http?.sourceIp,
          });
          request.response = jsonResponse(state, {
            status: 401,
            body: { error: error.error, error_description: error.message },
            headers: {
              'www-authenticate':
                error.error === 'invalid_token'
                  ? `${WWW_AUTHENTICATE}, error="invalid_token"`
                  : WWW_AUTHENTICATE,
            },
          });
          return;
        }
        const apiError =
          toApiError(error) ??
          new ApiError('internal', {
            details: `Something went wrong on our side. Quote request id ${state.requestId} when reporting it.`,
            data: { request_id: state.requestId },
          });
        if (apiError.status >= 500) {
          logger.error('request failed', {
            request_id: state.requestId,
            status: apiError.status,
            client_ip: state.clientAddress ?? event.requestContext?.http?.sourceIp,
            error,
          });
        } else {
          logger.info('request', {
            request_id: state.requestId,
            status: apiError.status,
            error_id: apiError.id,
            client_ip: state.clientAddress ?? event.requestContext?.http?.sourceIp,
          });
        }
        if (!state.config) {
          state.config = await loadConfig(clock()).catch(() => undefined);
        }
        const method = event.requestContext?.http?.method ?? 'GET';
        request.response = jsonResponse(state, {
          status: apiError.status,
          body: buildErrorEnvelope(context(state, method), apiError),
          headers: apiError.headers,
          cookies: [
            ...apiError.cookies,
            ...(options.errorCookies?.(error, lowerCaseKeys(event.headers ?? {})) ?? []),
          ],
        });
      },
    })
    .handler(router);
}
