import { z } from 'zod';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { noParameters } from '#lib/http/validate.ts';
import { sessionSchema } from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';
import { sessionSchema as sessionRequest } from './input.ts';
import {
  createClearSession,
  createEndSession,
  createWriteSession,
  type SessionDeps as SessionContext,
} from './routes.ts';

// The session group's routes: each one's row of the route table and its implementation, with its documentation
// beside it (a `DOCS` statement, which the functions' bundles leave out: the OpenAPI document and the tests
// read it).

export const sessionWriteRoute = {
  name: 'session.write',
  group: 'session',
  methods: ['GET', 'POST'],
  path: 'booking/session',
  access: 'public',
  resource: 'booking',
  id: 'session',
  writes: ['slip', 'alter'],
  handler: createWriteSession,
} as const satisfies RouteDeclaration<SessionContext>;

DOCS: describeRoute(sessionWriteRoute, {
  summary: 'Read the cart, add SLIPs (holding their stock) or alter its lines',
  request: sessionRequest,
  response: envelope({ booking: z.object({ session: sessionSchema }) }),
  errors: [
    'invalid_slip',
    'unavailable',
    'hold_limit',
    'challenge_required',
    'session_expired',
    'not_found',
    'busy',
  ],
  needs: ['slip'],
});

export const sessionClearRoute = {
  name: 'session.clear',
  group: 'session',
  methods: ['GET', 'POST'],
  path: 'booking/session/clear',
  access: 'public',
  resource: 'booking',
  id: 'session',
  writes: true,
  handler: createClearSession,
} as const satisfies RouteDeclaration<SessionContext>;

DOCS: describeRoute(sessionClearRoute, {
  summary: 'Release every hold and keep the cart',
  request: noParameters,
  response: envelope({ booking: z.object({ session: sessionSchema }) }),
  errors: ['session_expired', 'not_found', 'busy'],
  needs: ['cart'],
});

export const sessionEndRoute = {
  name: 'session.end',
  group: 'session',
  methods: ['GET', 'POST'],
  path: 'booking/session/end',
  access: 'public',
  resource: 'booking',
  id: 'session',
  writes: true,
  handler: createEndSession,
} as const satisfies RouteDeclaration<SessionContext>;

DOCS: describeRoute(sessionEndRoute, {
  summary: 'Release every hold and close the cart',
  request: noParameters,
  response: envelope({ booking: z.object({ session: sessionSchema }) }),
  errors: ['session_expired', 'not_found', 'busy'],
  needs: ['cart'],
});

/** The session group's routes, in the table's order. */
export const SESSION_ROUTES = [sessionWriteRoute, sessionClearRoute, sessionEndRoute];
