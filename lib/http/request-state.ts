import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Caller } from '../access/index.ts';
import type { StoredConfig } from '../config/index.ts';
import type { ParsedRequest } from './parse.ts';

/**
 * What one request has learnt so far, for its response and its log lines, whatever the outcome. Each
 * middleware of the pipeline fills in its part; the answer (or the error envelope) reads what is there.
 */
export interface RequestState {
  requestId: string;
  startedAt: number;
  resource: string;
  id: string;
  /** Parameters sent but not read, as sent. */
  ignored: Set<string>;
  /** The route's name once the router chose one (for the answer's metrics and log line). */
  route?: string;
  config?: StoredConfig;
  /** The client's address as the gateway and the trusted proxies tell it. */
  requesterAddress?: string;
  /** The address the peer forwards, taken when a staff credential vouches for it (`X-On-Behalf: off`). */
  forwardedAddress?: string;
  /** The parameters, headers and cookies; the parameters without `access_token`, which is a credential. */
  parsed?: ParsedRequest;
  /** The `access_token` parameter as sent, read only by the authorisation step. */
  accessToken?: unknown;
  caller?: Caller;
  /** The key the requester's limits and hold budgets are counted under. */
  requester?: string;
  /** The `RateLimit-*` headers of a limited route, sent on every response of the request. */
  limitHeaders?: Record<string, string>;
  /** Whether the answer was a rated list (its latency is a metric of its own). */
  rated?: boolean;
}

/** One step of the request pipeline: a middy middleware over API Gateway HTTP API events. */
export type ApiMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

const states = new WeakMap<APIGatewayProxyEventV2, RequestState>();

/** Starts the state of a request (the pipeline's first middleware). */
export const openState = (event: APIGatewayProxyEventV2, state: RequestState): RequestState => {
  states.set(event, state);
  return state;
};

/** The state of a request, or undefined before the pipeline started it. */
export const stateOf = (event: APIGatewayProxyEventV2): RequestState | undefined => states.get(event);

/**
 * The state with the fields a middleware relies on, which the middlewares before it filled in. A missing
 * one is a pipeline built in the wrong order: a bug, answered as a 500.
 */
export function stateWith<K extends keyof RequestState>(
  event: APIGatewayProxyEventV2,
  ...fields: K[]
): RequestState & Required<Pick<RequestState, K>> {
  const state = states.get(event);
  if (!state) throw new Error('The request pipeline did not start this request');
  for (const field of fields) {
    if (state[field] === undefined) throw new Error(`The request pipeline has no ${field} yet`);
  }
  return state as RequestState & Required<Pick<RequestState, K>>;
}
