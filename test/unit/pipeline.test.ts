import { describe, expect, it } from 'vitest';
import { ApiError, AuthError } from '#lib/http/errors.ts';
import { accessLog } from '#lib/http/middleware/access-log.ts';
import { answerMetrics } from '#lib/http/middleware/answer-metrics.ts';
import { errorEnvelope } from '#lib/http/middleware/error-envelope.ts';
import { loadTenant } from '#lib/http/middleware/load-tenant.ts';
import { notImplemented } from '#lib/http/middleware/not-implemented.ts';
import { parseInput } from '#lib/http/middleware/parse-input.ts';
import { resolveAddress } from '#lib/http/middleware/resolve-address.ts';
import { routeContext } from '#lib/http/middleware/route-context.ts';
import { trustedProxies } from '#lib/http/requester-address.ts';
import type { Meter } from '#lib/runtime/metrics.ts';
import { makeEvent } from '#test/support/events.ts';
import { config, NOW, requestOf, routeNamed, run, started } from '#test/support/pipeline.ts';
import { makeTenant } from '#test/support/tenant.ts';

// Each step of the request pipeline (lib/http/middleware) on its own: what it reads from the request's
// state, what it adds, and what it refuses. The steps that count in DynamoDB (access, limits) are in
// test/integration/pipeline-access.test.ts; the whole stack is exercised by every HTTP test.

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
    expect(state.requesterAddress).toBe('10.0.0.5');
    expect(state.forwardedAddress).toBe('203.0.113.9');
  });

  it('takes the forwarded address behind a trusted proxy', async () => {
    const { event, state } = await started({ path: 'ping', ...forwarded }, { config: config() });
    await run(
      resolveAddress(() => trustedProxies(['10.0.0.0/8'])),
      'before',
      requestOf(event),
    );
    expect(state.requesterAddress).toBe('203.0.113.9');
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
