import type { Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AccessStore } from '#lib/auth/access.ts';
import { hashSecret } from '#lib/auth/secrets.ts';
import type { Db } from '#lib/db/client.ts';
import type { StoredConfig } from '#lib/db/tenant-repository.ts';
import { trustedProxies } from '#lib/http/client-address.ts';
import { ApiError, AuthError } from '#lib/http/errors.ts';
import { accessLog } from '#lib/http/middleware/access-log.ts';
import { answerMetrics } from '#lib/http/middleware/answer-metrics.ts';
import { authorise } from '#lib/http/middleware/authorise.ts';
import { errorEnvelope } from '#lib/http/middleware/error-envelope.ts';
import { loadTenant } from '#lib/http/middleware/load-tenant.ts';
import { notImplemented } from '#lib/http/middleware/not-implemented.ts';
import { parseInput } from '#lib/http/middleware/parse-input.ts';
import { rateLimit } from '#lib/http/middleware/rate-limit.ts';
import { resolveAddress } from '#lib/http/middleware/resolve-address.ts';
import { routeContext } from '#lib/http/middleware/route-context.ts';
import { startRequest } from '#lib/http/middleware/start-request.ts';
import type { Meter } from '#lib/http/observability.ts';
import { type ApiMiddleware, type RequestState, stateOf } from '#lib/http/request-state.ts';
import { ROUTES, type Route, type RouteName } from '#lib/http/routes.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, makeEvent } from '#test/support/events.ts';
import { makeTenant } from '#test/support/tenant.ts';

// Each step of the request pipeline (lib/http/middleware) on its own: what it reads from the request's
// state, what it adds, and what it refuses. The whole stack is exercised by every HTTP test.

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

const NOW = 1_800_000_000_000;
const SECRET = 'correct-horse-battery-staple';
const routeNamed = (name: RouteName): Route => ROUTES.find((route) => route.name === name) as Route;
const config = (settings: Record<string, unknown> = {}): StoredConfig => {
  const tenant = makeTenant();
  return { ...tenant, settings: { ...tenant.settings, ...settings }, updated_at: NOW };
};

const requestOf = (event: Event, extra: Partial<Request<Event, Result>> = {}): Request<Event, Result> => ({
  event,
  context: {} as Context,
  response: null,
  error: null,
  internal: {},
  ...extra,
});

/** Runs one phase of a middleware over a request, as middy would. */
async function run(
  middleware: ApiMiddleware,
  phase: 'before' | 'after' | 'onError',
  request: Request<Event, Result>,
): Promise<Request<Event, Result>> {
  await middleware[phase]?.(request);
  return request;
}

/** An event whose state was opened by the first step, as every later step expects. */
async function started(request: Parameters<typeof makeEvent>[0], fill: Partial<RequestState> = {}) {
  const event = makeEvent(request);
  await run(startRequest({ clock: () => NOW }), 'before', requestOf(event));
  const state = stateOf(event) as RequestState;
  Object.assign(state, fill);
  return { event, state };
}

/** A credential store with one staff credential (`bk_key`) and one partner's (`bk_partner`, account 2). */
const store: AccessStore = {
  getCredential: async (key) =>
    ['bk_key', 'bk_partner'].includes(key)
      ? {
          key,
          account_id: key === 'bk_key' ? 1 : 2,
          on_behalf: true,
          status: 'active',
          salt: 'salt',
          secret_hash: hashSecret(SECRET, 'salt'),
          rotated_at: NOW - 3_600_000,
          last_used_at: NOW,
        }
      : undefined,
  getToken: async () => undefined,
  getAccount: async (id) => ({ enabled: true, ...(id === 2 ? { partner: true } : {}) }),
  recordUse: async () => {},
};

let db: Db;
beforeAll(async () => {
  db = await createTestDb('pipeline');
});

describe('startRequest', () => {
  it("opens the state with API Gateway's request id, the start time and the path's resource", async () => {
    const { event, state } = await started({ path: 'booking/session' });
    expect(state).toMatchObject({
      requestId: event.requestContext.requestId,
      startedAt: NOW,
      resource: 'booking',
      id: '',
    });
    expect(state.ignored.size).toBe(0);
  });
});

describe('routeContext', () => {
  it("records the route's name, resource and id, or the path's own id", async () => {
    const { event, state } = await started({ path: 'booking/42/checkin' });
    await run(routeContext(routeNamed('booking.checkin')), 'before', requestOf(event));
    expect(state).toMatchObject({ route: 'booking.checkin', resource: 'booking', id: '42' });
    await run(routeContext(routeNamed('booking.form')), 'before', requestOf(event));
    expect(state.id).toBe('form');
  });
});

describe('loadTenant', () => {
  it('reads the configuration as of the start of the request', async () => {
    const { event, state } = await started({ path: 'ping' });
    const asked: number[] = [];
    const tenant = config();
    await run(
      loadTenant(async (now) => {
        asked.push(now);
        return tenant;
      }),
      'before',
      requestOf(event),
    );
    expect(asked).toEqual([NOW]);
    expect(state.config).toBe(tenant);
  });
});

describe('resolveAddress', () => {
  const forwarded = { sourceIp: '10.0.0.5', headers: { 'x-forwarded-for': '203.0.113.9' } };

  it('takes the peer when it is not a trusted proxy, and keeps what it forwards for a vouching caller', async () => {
    const { event, state } = await started({ path: 'ping', ...forwarded }, { config: config() });
    await run(
      resolveAddress(() => trustedProxies([])),
      'before',
      requestOf(event),
    );
    expect(state.clientAddress).toBe('10.0.0.5');
    expect(state.forwardedAddress).toBe('203.0.113.9');
  });

  it('takes the forwarded address behind a trusted proxy', async () => {
    const { event, state } = await started({ path: 'ping', ...forwarded }, { config: config() });
    await run(
      resolveAddress(() => trustedProxies(['10.0.0.0/8'])),
      'before',
      requestOf(event),
    );
    expect(state.clientAddress).toBe('203.0.113.9');
  });
});

describe('parseInput', () => {
  it('parses the parameters and sets the access token apart from them', async () => {
    const { event, state } = await started({ path: 'item', query: 'start_date=2027-01-01&access_token=abc' });
    await run(parseInput(), 'before', requestOf(event));
    expect(state.parsed?.input).toEqual({ start_date: '2027-01-01' });
    expect(state.accessToken).toBe('abc');
  });

  it('refuses a malformed body before anything reads it', async () => {
    const { event } = await started({
      method: 'POST',
      path: 'booking/create',
      body: '{',
      contentType: 'application/json',
    });
    await expect(run(parseInput(), 'before', requestOf(event))).rejects.toBeInstanceOf(ApiError);
  });
});

describe('authorise', () => {
  /** Runs the steps before authorisation, then authorisation, for a route. */
  async function authorised(
    name: RouteName,
    request: Parameters<typeof makeEvent>[0],
    settings: Record<string, unknown> = {},
  ) {
    const { event, state } = await started(request, { config: config(settings) });
    await run(
      resolveAddress(() => trustedProxies([])),
      'before',
      requestOf(event),
    );
    await run(parseInput(), 'before', requestOf(event));
    await run(authorise({ db, store, route: routeNamed(name) }), 'before', requestOf(event));
    return state;
  }

  it('lets a customer call a public route, counted by its address', async () => {
    const state = await authorised('item.list', { path: 'item', sourceIp: '192.0.2.7' });
    expect(state.caller).toEqual({ kind: 'customer' });
    expect(state.client).toBe('192.0.2.7');
  });

  it('refuses a customer on a staff route, and on a public one when the API is not public', async () => {
    await expect(authorised('booking.list', { path: 'booking' })).rejects.toBeInstanceOf(AuthError);
    await expect(authorised('item.list', { path: 'item' }, { public_api: false })).rejects.toBeInstanceOf(
      AuthError,
    );
  });

  it('asks for staff credentials or the token on a token route', async () => {
    await expect(authorised('booking.invoice', { path: 'booking/1/invoice' })).rejects.toBeInstanceOf(
      AuthError,
    );
    const state = await authorised('booking.invoice', { path: 'booking/1/invoice', query: 'token=t' });
    expect(state.caller?.kind).toBe('customer');
  });

  it("counts a staff credential calling for its customer by the address it forwards, a partner's by its key", async () => {
    const request = (key: string) => ({
      path: 'booking/session',
      sourceIp: '198.18.0.1',
      headers: {
        authorization: basic(key, SECRET),
        'x-on-behalf': 'off',
        'x-forwarded-for': '203.0.113.44',
      },
    });
    const staff = await authorised('session.write', request('bk_key'));
    expect([staff.clientAddress, staff.client]).toEqual(['203.0.113.44', '203.0.113.44']);
    const partner = await authorised('session.write', request('bk_partner'));
    expect([partner.clientAddress, partner.client]).toEqual(['198.18.0.1', 'credential:bk_partner']);
  });

  it('charges a refused credential to its address, so guessing keys is rate limited too', async () => {
    const request = {
      path: 'item',
      sourceIp: '192.0.2.99',
      headers: { authorization: basic('bk_key', 'wrong') },
    };
    const limits = { ...config().settings.limits, requests_per_minute: 1 };
    const first = await authorised('item.list', request, { limits }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(AuthError);
    // The second guess within the minute is over the budget of one: refused as rate limited, not checked.
    await expect(authorised('item.list', request, { limits })).rejects.toMatchObject({ id: 'rate_limited' });
  });
});

describe('rateLimit', () => {
  it("charges a customer's client, answers the limit headers and refuses past the budget", async () => {
    const route = routeNamed('item.list');
    const limits = { ...config().settings.limits, requests_per_minute: 2 };
    const call = async () => {
      const { event, state } = await started(
        { path: 'item' },
        { config: config({ limits }), parsed: { input: {}, headers: {}, cookies: {} } },
      );
      Object.assign(state, { caller: { kind: 'customer' }, client: '192.0.2.150' });
      await run(rateLimit({ db, route }), 'before', requestOf(event));
      return state.limitHeaders;
    };
    expect(await call()).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1' });
    expect(await call()).toMatchObject({ 'ratelimit-remaining': '0' });
    await expect(call()).rejects.toMatchObject({ id: 'rate_limited' });
  });

  it('leaves a customer call of a staff route alone (it was refused before) and charges staff per credential', async () => {
    const { event, state } = await started(
      { path: 'booking' },
      { config: config(), parsed: { input: {}, headers: {}, cookies: {} } },
    );
    Object.assign(state, {
      caller: { kind: 'staff', accountId: 1, credentialKey: 'bk_rate', credentialAccountId: 1 },
      client: '192.0.2.151',
    });
    await run(rateLimit({ db, route: routeNamed('booking.list') }), 'before', requestOf(event));
    expect(state.limitHeaders?.['ratelimit-limit']).toBe(
      String(config().settings.limits.staff_requests_per_minute),
    );
  });
});

describe('notImplemented', () => {
  it('answers 501 for a route without an implementation and nothing otherwise', async () => {
    const { event } = await started({ path: 'ping' });
    const route = routeNamed('ping');
    await expect(run(notImplemented(route, false), 'before', requestOf(event))).rejects.toMatchObject({
      id: 'not_implemented',
      status: 501,
    });
    await expect(run(notImplemented(route, true), 'before', requestOf(event))).resolves.toBeDefined();
  });
});

describe('answerMetrics', () => {
  const meterOf = () => {
    const seen: string[] = [];
    const meter: Meter = {
      count: (name) => seen.push(`count ${name}`),
      milliseconds: (name, value) => seen.push(`ms ${name} ${value}`),
      seconds: (name) => seen.push(`s ${name}`),
    };
    return { meter, seen };
  };

  it("reports the rated list's latency on an answer and a refusal by its error id", async () => {
    const { meter, seen } = meterOf();
    const metrics = answerMetrics({ meter, clock: () => NOW + 25 });
    const { event } = await started({ path: 'item' }, { route: 'item.list', rated: true });
    await run(metrics, 'after', requestOf(event));
    expect(seen).toEqual([expect.stringMatching(/^ms .+ 25$/)]);
    seen.length = 0;
    const refused = await started({ path: 'booking/session' }, { route: 'session.write' });
    const error = new ApiError('hold_limit', { details: 'over' });
    await run(metrics, 'onError', requestOf(refused.event, { error }));
    expect(seen).toEqual([expect.stringMatching(/^count /)]);
  });
});

describe('accessLog', () => {
  it('logs without failing when the request never got a state', async () => {
    const event = makeEvent({ path: 'ping' });
    await expect(
      run(accessLog(), 'after', requestOf(event, { response: { statusCode: 200 } })),
    ).resolves.toBeDefined();
  });
});

describe('errorEnvelope', () => {
  const envelope = errorEnvelope({ clock: () => NOW, loadConfig: async () => config() });

  it('answers a refused credential with the 401 body and the schemes', async () => {
    const { event } = await started({ path: 'booking' });
    const request = await run(
      envelope,
      'onError',
      requestOf(event, { error: new AuthError('unauthorized', 'Staff credentials are required') }),
    );
    expect(request.response?.statusCode).toBe(401);
    expect(request.response?.headers?.['www-authenticate']).toMatch(/^Basic /);
    expect(JSON.parse(request.response?.body ?? '')).toEqual({
      error: 'unauthorized',
      error_description: 'Staff credentials are required',
    });
  });

  it('answers a client error in the envelope, naming the tenant even before the step that reads it', async () => {
    const { event } = await started({ path: 'nowhere' });
    const error = new ApiError('not_found', { details: 'No endpoint at /nowhere' });
    const request = await run(envelope, 'onError', requestOf(event, { error }));
    const body = JSON.parse(request.response?.body ?? '');
    expect(request.response?.statusCode).toBe(404);
    expect(body.request.error).toMatchObject({ id: 'not_found', details: 'No endpoint at /nowhere' });
    expect(body.account_id).toBe(makeTenant().company.account_id);
  });

  it('answers an unexpected error with a 500 that names the request id and nothing of the cause', async () => {
    const { event, state } = await started({ path: 'ping' });
    const request = await run(envelope, 'onError', requestOf(event, { error: new Error('secret cause') }));
    expect(request.response?.statusCode).toBe(500);
    expect(request.response?.body).toContain(state.requestId);
    expect(request.response?.body).not.toContain('secret cause');
  });
});
