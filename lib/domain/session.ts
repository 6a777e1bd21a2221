import { randomBytes } from 'node:crypto';
import { unixSeconds } from '../core/time.ts';
import type { Db } from '../db/client.ts';
import {
  claimClientSessionAction,
  dropClientSessionAction,
  getClientSessions,
  holdClientUnitsAction,
  releaseClientUnitsAction,
} from '../db/client-hold-repository.ts';
import { getSession, putSessionAction, type StoredSession } from '../db/session-repository.ts';
import {
  holdStockAction,
  parseCounterId,
  queryStockRanges,
  releaseStockAction,
} from '../db/stock-repository.ts';
import {
  createItemLoader,
  type ItemLoader,
  type StoredConfig,
  type StoredItem,
} from '../db/tenant-repository.ts';
import { commitWithRetry, type NamedAction, type RetryPolicy, type TransactItem } from '../db/transact.ts';
import { rateItem, type StockLookup } from '../rating/rate-item.ts';
import { resolveSpan } from '../rating/span.ts';
import { SlipError, type SlipKey, type SlipPayload, verifySlip } from '../slip/codec.ts';
import {
  type AlterChange,
  addLines,
  applyAlters,
  type Change,
  expiryOf,
  type LineContext,
  MAX_COUNTER_CHANGES,
  requestOf,
  SESSION_LIMITS,
  withHolds,
} from './cart-lines.ts';
import { mergeRanges, paramLabels, partsOf, type Range, ratingTenant } from './catalog.ts';
import { DomainError } from './errors.ts';
import { capacityOf, clientAllowance, isHolding } from './stock.ts';
import { releaseExpiredSession } from './sweep.ts';

/** What every session operation needs: the line rules' context, the table and the SLIP keys. */
export interface SessionContext extends LineContext {
  db: Db;
  keys: readonly SlipKey[];
  retry?: RetryPolicy;
  /** The request's item loader, so one request reads each item once. */
  loadItems?: ItemLoader;
}

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
  if (!session) throw new DomainError('not_found', 'No such session', { session_id: id });
  if (isExpired(session, now)) {
    throw new DomainError('session_expired', 'The session has expired or ended; start a new one', {
      session_id: id,
      status: session.status === 'open' ? 'expired' : session.status,
    });
  }
  return session;
}

/** What one action of a session transaction does, to tell which rule a failed condition broke. */
type ActionRole =
  | { kind: 'stock'; counter: string }
  | { kind: 'client'; counter: string; allowance: number }
  | { kind: 'sessions' }
  | { kind: 'session' };

/**
 * The actions that move a session's holds from `before` to `after`: each counter that grows is held on
 * capacity and (for a budgeted client) on the client's allowance; each that shrinks is released from both;
 * and the client's set of holding sessions gains or loses the session when it starts or stops holding.
 */
function holdActions(
  ctx: SessionContext,
  options: { before: StoredSession; after: StoredSession; all: StoredItem[]; owners: Record<string, string> },
): NamedAction<ActionRole>[] {
  const { before, after } = options;
  const client = before.client ?? after.client;
  const seconds = unixSeconds(ctx.now);
  const named: NamedAction<ActionRole>[] = [];
  const push = (action: TransactItem, role: ActionRole) => {
    named.push({ action, role });
  };
  const counters = new Set([...Object.keys(before.holds), ...Object.keys(after.holds)]);
  for (const id of counters) {
    const delta = (after.holds[id] ?? 0) - (before.holds[id] ?? 0);
    if (delta === 0) continue;
    const { itemId, slot } = parseCounterId(id);
    if (delta < 0) {
      push(releaseStockAction(ctx.db, { itemId, slot, units: -delta }), { kind: 'stock', counter: id });
      if (client) {
        push(releaseClientUnitsAction(ctx.db, { client, counterId: id, units: -delta }), {
          kind: 'client',
          counter: id,
          allowance: 0,
        });
      }
      continue;
    }
    const item = options.all.find((entry) => entry.item_id === itemId);
    const capacity = item ? capacityOf(item, slot, ctx.config.company.timezone) : 0;
    if (delta > capacity) throw unavailable(id, options.owners);
    push(holdStockAction(ctx.db, { itemId, slot, units: delta, capacity }), { kind: 'stock', counter: id });
    if (client) {
      const allowance = clientAllowance(capacity, ctx.config.settings.limits.client_hold_share);
      if (delta > allowance) throw holdLimit(id, options.owners, { allowance });
      push(
        holdClientUnitsAction(ctx.db, {
          client,
          counterId: id,
          units: delta,
          allowance,
          nowSeconds: seconds,
        }),
        { kind: 'client', counter: id, allowance },
      );
    }
  }
  if (named.length > MAX_COUNTER_CHANGES * 2) {
    throw new DomainError('validation_error', 'Too many item-dates change in one call; split the changes', {
      alter: `at most ${MAX_COUNTER_CHANGES} item-dates may change in one call`,
    });
  }
  if (client && isHolding(after) && !isHolding(before)) {
    push(
      claimClientSessionAction(ctx.db, {
        client,
        sessionId: after.id,
        max: ctx.config.settings.limits.open_sessions_per_client,
        nowSeconds: seconds,
      }),
      { kind: 'sessions' },
    );
  } else if (client && isHolding(before) && !isHolding(after)) {
    push(dropClientSessionAction(ctx.db, { client, sessionId: before.id }), { kind: 'sessions' });
  }
  return named;
}

/**
 * Frees a client's session slots held by sessions that have already expired but that the sweeper has
 * not reached yet, so a guest who abandoned carts is not locked out until the next sweep.
 */
async function releaseClientExpiredSessions(ctx: SessionContext, client: string): Promise<void> {
  for (const sessionId of await getClientSessions(ctx.db, client)) {
    await releaseExpiredSession(ctx.db, {
      sessionId,
      now: ctx.now,
      ...(ctx.retry ? { retry: ctx.retry } : {}),
    });
  }
}

/**
 * Writes a changed session and the difference of its holds in one transaction: counters that grow are
 * held conditionally on capacity and on the client's hold budget, those that shrink are released, and the
 * session only if nobody changed it meanwhile. A failed counter is 409 `unavailable` naming the line and
 * date; a budget that would be exceeded is 409 `hold_limit`; a concurrent change of the session is re-read
 * and re-applied; persistent conflicts end in 503 `busy`.
 */
async function commit(
  ctx: SessionContext,
  read: () => Promise<StoredSession>,
  change: (session: StoredSession, all: StoredItem[]) => Change,
  itemIds: number[] = [],
): Promise<StoredSession> {
  let cleaned = false;
  let written: Change | undefined;
  return commitWithRetry<StoredSession, ActionRole>(ctx.db, {
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    attempt: async () => {
      const session = await read();
      const all = await (ctx.loadItems ?? createItemLoader(ctx.db))([
        ...itemIds,
        ...Object.values(session.lines).map((line) => line.item_id),
      ]);
      written = change(session, all);
      const { next, owners } = written;
      if (next === session) return { done: session };
      const write = holdActions(ctx, { before: session, after: next, all, owners });
      write.push({
        role: { kind: 'session' },
        action: putSessionAction(ctx.db, {
          session: next,
          ...(session.version === 0 ? {} : { previousVersion: session.version }),
          nowSeconds: unixSeconds(ctx.now),
        }),
      });
      return { write, result: next };
    },
    onFailed: async (failed) => {
      // Someone changed (or expired) the session since we read it: read again and re-apply.
      if (failed.some((role) => role.kind === 'session')) return;
      const { next, owners } = written as Change;
      const stock = failed.find((role) => role.kind === 'stock');
      if (stock?.kind === 'stock') throw unavailable(stock.counter, owners);
      const budget = failed.find((role) => role.kind === 'client');
      if (budget?.kind === 'client') throw holdLimit(budget.counter, owners, { allowance: budget.allowance });
      if (failed.some((role) => role.kind === 'sessions')) {
        if (cleaned) {
          throw holdLimit(Object.keys(next.holds)[0] ?? '', owners, {
            sessions: ctx.config.settings.limits.open_sessions_per_client,
          });
        }
        cleaned = true;
        await releaseClientExpiredSessions(ctx, next.client as string);
      }
    },
  });
}

/** 409 `hold_limit`: the client would hold more than its share of an item-date, or too many sessions. */
const holdLimit = (
  id: string,
  owners: Record<string, string>,
  limit: { allowance?: number; sessions?: number },
): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  const message =
    limit.sessions !== undefined
      ? `This client already has ${limit.sessions} carts holding stock; book or end one first`
      : `One client may hold at most ${limit.allowance} of item ${itemId} on ${date}`;
  return new DomainError('hold_limit', message, {
    line: owners[id] ?? '',
    item_id: itemId,
    date,
    ...(slot.length > 8 ? { slot } : {}),
    ...(limit.sessions !== undefined ? { open_sessions: limit.sessions } : { allowed: limit.allowance }),
  });
};

const unavailable = (id: string, owners: Record<string, string>): DomainError => {
  const { itemId, slot } = parseCounterId(id);
  const date = slot.slice(0, 8);
  return new DomainError('unavailable', `Not enough left of item ${itemId} on ${date}`, {
    line: owners[id] ?? '',
    item_id: itemId,
    date,
    ...(slot.length > 8 ? { slot } : {}),
  });
};

const emptySession = (ctx: SessionContext): StoredSession => ({
  id: newSessionId(),
  status: 'open',
  version: 0,
  created_at: ctx.now,
  updated_at: ctx.now,
  expires_at: expiryOf(ctx, undefined),
  next_line: 1,
  lines: {},
  holds: {},
  ...(ctx.actor.audience === 'customer' && ctx.actor.client ? { client: ctx.actor.client } : {}),
});

/**
 * Adds SLIPs to a session (a new one when no id is given), all or nothing. A SLIP identical to a line
 * already there changes nothing; every other is verified, re-rated at today's prices and held.
 */
export async function addSlips(
  ctx: SessionContext,
  options: { sessionId?: string; slips: string[] },
): Promise<StoredSession> {
  if (options.slips.length > SESSION_LIMITS.slipsPerCall) {
    throw new DomainError('validation_error', `At most ${SESSION_LIMITS.slipsPerCall} SLIPs per call`, {
      slip: `at most ${SESSION_LIMITS.slipsPerCall}`,
    });
  }
  const payloads = options.slips.map((slip, index) => {
    let payload: SlipPayload;
    try {
      payload = verifySlip(slip, { keys: ctx.keys, tenant: ctx.config.tenant, now: ctx.now });
    } catch (error) {
      if (error instanceof SlipError) {
        throw new DomainError('invalid_slip', error.message, { reason: error.reason, slip: index });
      }
      throw error;
    }
    if (ctx.actor.audience === 'customer' && (payload.rules ?? 'on') !== 'on') {
      throw new DomainError('invalid_slip', 'This SLIP was issued to staff', {
        reason: 'staff_only',
        slip: index,
      });
    }
    return payload;
  });
  const fresh = emptySession(ctx);
  const read = async () => (options.sessionId ? loadOpenSession(ctx.db, options.sessionId, ctx.now) : fresh);
  return commit(
    ctx,
    read,
    (session, all) => addLines(ctx, { session, all, slips: options.slips, payloads }),
    payloads.map((payload) => payload.itemId),
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
  return commit(
    ctx,
    () => loadOpenSession(ctx.db, options.sessionId, ctx.now),
    (session, all) => applyAlters(ctx, { session, all, changes: options.changes }),
  );
}

/** Releases every hold and keeps the session, empty. */
export async function clearSession(ctx: SessionContext, sessionId: string): Promise<StoredSession> {
  return commit(
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
  return commit(
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
