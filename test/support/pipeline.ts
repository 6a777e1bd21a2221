import type { Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ROUTES, type RouteName } from '#functions/routes.ts';
import type { StoredConfig } from '#lib/config/model.ts';
import { startRequest } from '#lib/http/middleware/start-request.ts';
import { type ApiMiddleware, type RequestState, stateOf } from '#lib/http/request-state.ts';
import type { Route } from '#lib/http/routes.ts';
import { makeEvent } from './events.ts';
import { makeTenant } from './tenant.ts';

// Runs the steps of the request pipeline (lib/http/middleware) one at a time, as middy would.

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

export const NOW = 1_800_000_000_000;
export const SECRET = 'correct-horse-battery-staple';
export const routeNamed = (name: RouteName): Route => ROUTES.find((route) => route.name === name) as Route;
export const config = (settings: Record<string, unknown> = {}): StoredConfig => {
  const tenant = makeTenant();
  return { ...tenant, settings: { ...tenant.settings, ...settings }, updated_at: NOW };
};

export const requestOf = (
  event: Event,
  extra: Partial<Request<Event, Result>> = {},
): Request<Event, Result> => ({
  event,
  context: {} as Context,
  response: null,
  error: null,
  internal: {},
  ...extra,
});

/** Runs one phase of a middleware over a request, as middy would. */
export async function run(
  middleware: ApiMiddleware,
  phase: 'before' | 'after' | 'onError',
  request: Request<Event, Result>,
): Promise<Request<Event, Result>> {
  await middleware[phase]?.(request);
  return request;
}

/** An event whose state was opened by the first step, as every later step expects. */
export async function started(request: Parameters<typeof makeEvent>[0], fill: Partial<RequestState> = {}) {
  const event = makeEvent(request);
  await run(startRequest({ clock: () => NOW }), 'before', requestOf(event));
  const state = stateOf(event) as RequestState;
  Object.assign(state, fill);
  return { event, state };
}
