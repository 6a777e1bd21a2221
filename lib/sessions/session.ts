import { randomBytes } from 'node:crypto';
import {
  mergeRanges,
  paramLabels,
  partsOf,
  type Range,
  rateItem,
  ratingTenant,
  requestOf,
  resolveSpan,
  type StockLookup,
} from '../catalog/index.ts';

import { createItemLoader, type ItemLoader, type StoredConfig } from '../config/index.ts';

import { DomainError, NO_SUCH_SESSION, SESSION_EXPIRED } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { unixSeconds } from '../kernel/time.ts';
import { SlipError, type SlipPayload, verifySlip } from '../slip/index.ts';
import { queryStockRanges } from '../stock/index.ts';
import { type AlterChange, applyAlters } from './alter.ts';
import { commitSession, type SessionContext } from './commit.ts';
import { addLines, SESSION_LIMITS, sessionExpiryOf, withHolds } from './lines.ts';
import { getSession, type StoredSession } from './repository.ts';

const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;

/** Whether a string can be a session id at all (anything else is unknown without a lookup). */
export const isSessionId = (id: string): boolean => SESSION_ID.test(id);

/** A new random session id. */
export const newSessionId = (): string => randomBytes(18).toString('base64url');

/** Whether a session can no longer be used: ended, booked, swept, or past its hold time. */
export const isExpired = (session: StoredSession, now: number): boolean =>
  session.status !== 'open' || session.expires_at <= unixSeconds(now);

/**
 * Reads an open session. An unknown (or malformed) id is `not_found`; an ended, booked, swept or
 * timed-out one is `session_expired`, whether or not the sweeper has run.
 */
export async function loadOpenSession(db: Db, id: string, now: number): Promise<StoredSession> {
  const session = SESSION_ID.test(id) ? await getSession(db, id) : undefined;
  if (!session) throw new DomainError('not_found', NO_SUCH_SESSION, { session_id: id });
  if (isExpired(session, now)) {
    throw new DomainError('session_expired', SESSION_EXPIRED, {
      session_id: id,
      status: session.status === 'open' ? 'expired' : session.status,
    });
  }
  return session;
}

const emptySession = (ctx: SessionContext): StoredSession => ({
  id: newSessionId(),
  status: 'open',
  version: 0,
  created_at: ctx.now,
  updated_at: ctx.now,
  expires_at: sessionExpiryOf(ctx, undefined),
  next_line: 1,
  lines: {},
  holds: {},
  ...(ctx.actor.client ? { client: ctx.actor.client } : {}),
});

/**
 * Verifies SLIPs before anything is read or held: their number, signature, tenant and expiry, and that a
 * SLIP rated for staff is in the hands of an actor who may use it.
 */
export function verifySlips(
  ctx: Pick<SessionContext, 'keys' | 'config' | 'now' | 'actor'>,
  slips: string[],
): SlipPayload[] {
  if (slips.length > SESSION_LIMITS.slipsPerCall) {
    throw new DomainError('validation_error', `At most ${SESSION_LIMITS.slipsPerCall} SLIPs per call`, {
      slip: `at most ${SESSION_LIMITS.slipsPerCall}`,
    });
  }
  return slips.map((slip, index) => {
    let payload: SlipPayload;
    try {
      payload = verifySlip(slip, { keys: ctx.keys, tenant: ctx.config.tenant, now: ctx.now });
    } catch (error) {
      if (error instanceof SlipError) {
        throw new DomainError('invalid_slip', error.message, { reason: error.reason, slip: index });
      }
      throw error;
    }
    if (!ctx.actor.rulesOverride && (payload.rules ?? 'on') !== 'on') {
      throw new DomainError('invalid_slip', 'This SLIP was issued to staff', {
        reason: 'staff_only',
        slip: index,
      });
    }
    return payload;
  });
}

/**
 * Adds SLIPs to a session (a new one when no id is given), all or nothing. A SLIP identical to a line
 * already there changes nothing; every other is verified, re-rated at today's prices and held.
 */
export async function addSlips(
  ctx: SessionContext,
  options: { sessionId?: string; slips: string[] },
): Promise<StoredSession> {
  const payloads = verifySlips(ctx, options.slips);
  const fresh = emptySession(ctx);
  const read = async () => (options.sessionId ? loadOpenSession(ctx.db, options.sessionId, ctx.now) : fresh);
  return commitSession(
    ctx,
    read,
    (session, all) => addLines(ctx, { session, all, slips: options.slips, payloads }),
    { itemIds: payloads.map((payload) => payload.itemId), takes: true },
  );
}

/**
 * Applies `alter` changes to lines, all in one transaction: a quantity holds or releases the difference,
 * `remove` (or 0) releases the line, `optin`/`optout` hold or release a package's optional part.
 */
export async function alterSession(
  ctx: SessionContext,
  options: { sessionId: string; changes: AlterChange[] },
): Promise<StoredSession> {
  if (options.changes.length > SESSION_LIMITS.altersPerCall) {
    throw new DomainError('validation_error', `At most ${SESSION_LIMITS.altersPerCall} changes per call`, {
      alter: `at most ${SESSION_LIMITS.altersPerCall}`,
    });
  }
  return commitSession(
    ctx,
    () => loadOpenSession(ctx.db, options.sessionId, ctx.now),
    (session, all) => applyAlters(ctx, { session, all, changes: options.changes }),
  );
}

/** Releases every hold and keeps the session, empty. */
export async function clearSession(ctx: SessionContext, sessionId: string): Promise<StoredSession> {
  return commitSession(
    ctx,
    () => loadOpenSession(ctx.db, sessionId, ctx.now),
    (session) => ({
      next: Object.keys(session.lines).length ? withHolds({ ...session, lines: {} }, ctx) : session,
      owners: {},
    }),
  );
}

/** Releases every hold and closes the session. */
export async function endSession(ctx: SessionContext, sessionId: string): Promise<StoredSession> {
  return commitSession(
    ctx,
    () => loadOpenSession(ctx.db, sessionId, ctx.now),
    (session) => ({ next: { ...withHolds({ ...session, lines: {} }, ctx), status: 'ended' }, owners: {} }),
  );
}

/**
 * How many of each line's item are left now (A at read time, packages through their parts): one counter
 * query per item of the session.
 */
export async function lineAvailability(
  db: Db,
  options: { config: StoredConfig; session: StoredSession; now: number; loadItems?: ItemLoader },
): Promise<Record<string, number>> {
  const lines = Object.values(options.session.lines);
  if (lines.length === 0) return {};
  const all = await (options.loadItems ?? createItemLoader(db))(lines.map((line) => line.item_id));
  const tenant = ratingTenant(options.config);
  const ranges: Range[] = [];
  const rateable = lines.flatMap((line) => {
    const item = all.find((entry) => entry.item_id === line.item_id);
    if (!item) return [];
    const span = resolveSpan(item.unit, requestOf(line.payload), tenant.timeZone);
    const first = span.slots[0]?.key;
    const last = span.slots.at(-1)?.key;
    for (const entry of [item, ...partsOf(item, all).map((part) => part.item)]) {
      if (first && last && !entry.unlimited) ranges.push({ itemId: entry.item_id, first, last });
    }
    return [{ line, item }];
  });
  const stock: StockLookup = await queryStockRanges(db, mergeRanges(ranges));
  const labels = paramLabels(options.config);
  return Object.fromEntries(
    rateable.map(({ line, item }) => [
      line.line_id,
      rateItem({
        item,
        parts: partsOf(item, all),
        request: requestOf(line.payload),
        stock,
        tenant,
        labels,
        now: options.now,
      }).available,
    ]),
  );
}
