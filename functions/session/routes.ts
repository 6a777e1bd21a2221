import { type CatalogReader, catalogItemLoader } from '#lib/catalog/index.ts';
import { createItemLoader, type ItemLoader } from '#lib/config/index.ts';
import { assertNotCrossSite } from '#lib/http/cross-site.ts';
import type { RouteResult } from '#lib/http/envelope.ts';
import type { ApiRequest, RouteHandler } from '#lib/http/group-handler.ts';
import { clearedSessionCookie, type SessionSource, sessionCookie } from '#lib/http/session-cookie.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import { METRIC } from '#lib/kernel/metric-names.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import type { SessionContext, StoredSession } from '#lib/sessions/index.ts';
import {
  addSlips,
  alterSession,
  clearSession,
  endSession,
  lineAvailability,
  loadOpenSession,
  sessionActorOf,
} from '#lib/sessions/index.ts';
import type { SlipKey } from '#lib/slip/index.ts';
import { readSessionId, readSessionRequest } from './input.ts';
import { presentSession } from './present.ts';

/** What the session routes need. */
export interface SessionDeps {
  db: Db;
  slipKeys: () => Promise<readonly SlipKey[]>;
  /** The catalogue the function keeps (`createCatalogReader`): items are read from it, not per request. */
  catalog: CatalogReader;
}

const EMPTY: StoredSession = {
  id: '',
  status: 'open',
  version: 0,
  created_at: 0,
  updated_at: 0,
  expires_at: 0,
  next_line: 1,
  lines: {},
  holds: {},
};

/**
 * Answers with a session. The cookie is set for a session the request made or found by its cookie, never
 * for an id sent as a parameter: a link carrying someone's session id must not plant it in a browser.
 */
const respond = async (
  deps: SessionDeps,
  request: ApiRequest,
  options: { session: StoredSession; source: SessionSource; loadItems?: ItemLoader },
): Promise<RouteResult> => {
  const { session } = options;
  const available = session.id
    ? await lineAvailability(deps.db, {
        config: request.config,
        session,
        now: request.now,
        ...(options.loadItems ? { loadItems: options.loadItems } : {}),
      })
    : {};
  const view = presentSession(session, { config: request.config, available, now: request.now });
  return {
    body: { booking: { session: view } },
    request: { id: 'session', records: Object.keys(session.lines).length },
    ...(session.id && options.source !== 'param'
      ? { cookies: [sessionCookie(session.id, request.headers)] }
      : {}),
  };
};

/**
 * The cookies of a session group error: an expired, ended or unknown session also clears the cookie, so
 * the client starts afresh (clearing plants nothing, so this holds for an id sent as a parameter too).
 */
export const sessionErrorCookies = (error: unknown, headers: Record<string, string>): string[] =>
  error instanceof DomainError && (error.code === 'session_expired' || error.code === 'not_found')
    ? [clearedSessionCookie(headers)]
    : [];

/** A change made by a customer with nothing but the session cookie must come from an allowed site. */
const guardCookieWrite = (request: ApiRequest, source: SessionSource): void => {
  if (source === 'cookie' && request.caller.kind === 'customer' && !request.caller.credentialKey) {
    assertNotCrossSite(request.headers, request.config.settings.cors_origins);
  }
};

/**
 * A change's context. Items come from the kept catalogue, but a change that takes stock reads its items
 * from the table (consistently: a catalogue kept until the configuration is read again may still say
 * unlimited, or a stock since lowered); the answer then shows the items that change was decided on.
 */
const contextOf = async (
  deps: SessionDeps,
  request: ApiRequest,
): Promise<SessionContext & { loadItems: ItemLoader }> => {
  const kept = catalogItemLoader(() => deps.catalog(request.config));
  const fresh = createItemLoader(deps.db, { consistent: true });
  let read = false;
  return {
    db: deps.db,
    config: request.config,
    keys: await deps.slipKeys(),
    now: request.now,
    loadItems: (ids) => (read ? fresh(ids) : kept(ids)),
    freshItems: (ids) => {
      read = true;
      return fresh(ids);
    },
    actor: sessionActorOf(request.caller, request.requester),
  };
};

/**
 * GET and POST booking/session: adds SLIPs (a new session when there is none), applies `alter`, or reads.
 * Reads never extend the hold; without a session a read answers an empty, unsaved cart.
 */
export const createWriteSession =
  (deps: SessionDeps): RouteHandler =>
  async (request) => {
    const { sessionId, source, slips, changes, altcha } = readSessionRequest(request.input, request.cookies);
    if (!slips.length && !changes.length) {
      const session = sessionId ? await loadOpenSession(deps.db, sessionId, request.now) : EMPTY;
      return respond(deps, request, { session, source });
    }
    guardCookieWrite(request, source);
    const ctx = { ...(await contextOf(deps, request)), ...(altcha ? { altcha } : {}) };
    let session: StoredSession | undefined;
    if (slips.length) {
      session = await addSlips(ctx, { ...(sessionId ? { sessionId } : {}), slips });
      // All or nothing: every SLIP of the call is held now.
      request.meter.count(METRIC.holdsMade, slips.length);
    }
    const target = session?.id ?? sessionId;
    if (changes.length) {
      if (!target) throw new DomainError('not_found', 'No session to alter', { session_id: '' });
      session = await alterSession(ctx, { sessionId: target, changes });
    }
    return respond(deps, request, { session: session ?? EMPTY, source, loadItems: ctx.loadItems });
  };

/** booking/session/clear: releases every hold and keeps the (now empty) session. */
export const createClearSession =
  (deps: SessionDeps): RouteHandler =>
  async (request) => {
    const { sessionId, source } = readSessionId(request.input, request.cookies);
    if (!sessionId) throw new DomainError('not_found', 'No session to clear', { session_id: '' });
    guardCookieWrite(request, source);
    const ctx = await contextOf(deps, request);
    const session = await clearSession(ctx, sessionId);
    return respond(deps, request, { session, source, loadItems: ctx.loadItems });
  };

/** booking/session/end: releases every hold and closes the session; the cookie is cleared. */
export const createEndSession =
  (deps: SessionDeps): RouteHandler =>
  async (request) => {
    const { sessionId, source } = readSessionId(request.input, request.cookies);
    if (!sessionId) throw new DomainError('not_found', 'No session to end', { session_id: '' });
    guardCookieWrite(request, source);
    const ctx = await contextOf(deps, request);
    const ended = await endSession(ctx, sessionId);
    const result = await respond(deps, request, { session: ended, source, loadItems: ctx.loadItems });
    return { ...result, cookies: [clearedSessionCookie(request.headers)] };
  };
