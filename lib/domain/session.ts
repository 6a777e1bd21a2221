import { randomBytes } from 'node:crypto';
import type { Db } from '../db/client.ts';
import {
  claimClientSessionAction,
  dropClientSessionAction,
  getClientSessions,
  holdClientUnitsAction,
  releaseClientUnitsAction,
} from '../db/client-hold-repository.ts';
import {
  getSession,
  putSessionAction,
  type SessionLine,
  type StoredSession,
} from '../db/session-repository.ts';
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
import {
  ConditionsFailedError,
  ContentionError,
  type RetryPolicy,
  type TransactItem,
  transact,
} from '../db/transact.ts';
import { type RatedItem, type RateRequest, rateItem, type StockLookup } from '../rating/rate-item.ts';
import { resolveSpan } from '../rating/span.ts';
import { SlipError, type SlipKey, type SlipPayload, verifySlip } from '../slip/codec.ts';
import { mergeRanges, paramLabels, partsOf, type Range, ratingTenant } from './catalog.ts';
import { DomainError } from './errors.ts';
import { capacityOf, clientAllowance, holdsOf, isHolding, totalHolds } from './stock.ts';
import { releaseExpiredSession } from './sweep.ts';

/**
 * Limits of one session and one call. A session holds at most 48 item-dates, so releasing all of it (a
 * counter and the client's budget record per item-date, the session and the client's session set) always
 * fits one transaction of 100 actions.
 */
export const SESSION_LIMITS = {
  slipsPerCall: 20,
  linesPerSession: 50,
  countersPerSession: 48,
  altersPerCall: 50,
  maxQty: 99,
} as const;

/** A transaction holds at most 100 actions: two per changed counter, the session and the client's set. */
const MAX_COUNTER_CHANGES = 49;

/** Who is changing a session: a customer (budgeted by its client address) or staff (exempt). */
export interface SessionActor {
  audience: 'customer' | 'staff';
  /** The client key of the caller; a new session's holds count against it (customers only). */
  client?: string;
}

/** The session actor of a caller: customers are budgeted by their client key, staff are not. */
export const actorOf = (caller: { kind: 'customer' | 'staff' }, client: string): SessionActor =>
  caller.kind === 'staff' ? { audience: 'staff' } : { audience: 'customer', client };

/** What every session operation needs. */
export interface SessionContext {
  db: Db;
  config: StoredConfig;
  keys: readonly SlipKey[];
  /** Milliseconds since the epoch. */
  now: number;
  retry?: RetryPolicy;
  /** The request's item loader, so one request reads each item once. */
  loadItems?: ItemLoader;
  /** Who is acting: customers get budgets and only public items and SLIPs. */
  actor: SessionActor;
}

const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;

/** Whether a string can be a session id at all (anything else is unknown without a lookup). */
export const isSessionId = (id: string): boolean => SESSION_ID.test(id);

/** A new random session id. */
export const newSessionId = (): string => randomBytes(18).toString('base64url');

const nowSeconds = (ms: number): number => Math.floor(ms / 1000);

/** Whether a session can no longer be used: ended, booked, swept, or past its hold time. */
export const isExpired = (session: StoredSession, now: number): boolean =>
  session.status !== 'open' || session.expires_at <= nowSeconds(now);

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

/** The rating request a SLIP stands for. */
export const requestOf = (payload: SlipPayload): RateRequest => ({
  start: payload.start,
  end: payload.end,
  ...(payload.startTime !== undefined && payload.endTime !== undefined
    ? { startTime: payload.startTime, endTime: payload.endTime }
    : {}),
  params: payload.params,
  rules: payload.rules ?? 'on',
  ...(payload.discountCode ? { discountCode: payload.discountCode } : {}),
  ...(payload.optIn ? { optIn: payload.optIn } : {}),
});

/**
 * The item of a line, if it is still offered to the actor: enabled, and not staff-only for customers. A staff
 * item's SLIP in a customer's hands is `invalid_slip` (`staff_only`); an item withdrawn since it was
 * added is `unavailable`.
 */
function offeredItem(
  ctx: SessionContext,
  options: { itemId: number; all: StoredItem[]; where: Record<string, unknown>; adding: boolean },
): StoredItem {
  const item = options.all.find((entry) => entry.item_id === options.itemId && entry.enabled);
  // Private items (`P`) are bookable by anyone who has their id; staff items (`S`) only by staff.
  const hidden = item !== undefined && ctx.actor.audience === 'customer' && item.visibility === 'S';
  if (hidden && options.adding) {
    throw new DomainError('invalid_slip', 'This SLIP was issued to staff', {
      ...options.where,
      reason: 'staff_only',
    });
  }
  if (!item || hidden)
    throw new DomainError('unavailable', 'This item is no longer offered', {
      ...options.where,
      item_id: options.itemId,
    });
  return item;
}

/** Re-rates a SLIP's line at today's prices and rules (stock is left to the conditional writes). */
function rateLine(
  ctx: SessionContext,
  payload: SlipPayload,
  all: StoredItem[],
  where: Record<string, unknown>,
  adding: boolean,
) {
  const item = offeredItem(ctx, { itemId: payload.itemId, all, where, adding });
  const rated = rateItem({
    item,
    parts: partsOf(item, all),
    request: requestOf(payload),
    stock: () => 0,
    tenant: ratingTenant(ctx.config),
    labels: paramLabels(ctx.config),
    now: ctx.now,
  });
  if (rated.status !== 'AVAILABLE' || !rated.span) {
    throw new DomainError('unavailable', rated.errors.join('; ') || 'Not available', {
      ...where,
      item_id: item.item_id,
      reason: rated.errors.join('; '),
    });
  }
  return { item, rated };
}

const discountOf = (ctx: SessionContext, code: string | undefined): SessionLine['discount'] => {
  const found = code ? ctx.config.discounts.find((discount) => discount.code === code) : undefined;
  return found ? { code: found.code, type: found.type, value: found.value } : undefined;
};

/** Builds a session line from a verified SLIP, priced now. */
function makeLine(
  ctx: SessionContext,
  options: {
    lineId: string;
    slip: string;
    payload: SlipPayload;
    all: StoredItem[];
    where: Record<string, unknown>;
    /** A new line (from a SLIP) rather than a change of one already held. */
    adding: boolean;
  },
): SessionLine {
  const { item, rated } = rateLine(ctx, options.payload, options.all, options.where, options.adding);
  const span = rated.span as NonNullable<RatedItem['span']>;
  const discount = discountOf(ctx, rated.discountCode);
  return {
    line_id: options.lineId,
    item_id: item.item_id,
    sku: item.sku,
    name: item.name,
    unit: item.unit,
    slip: options.slip,
    payload: options.payload,
    qty: 1,
    holds_per_qty: holdsOf(item, rated, options.payload, options.all),
    sub_total: rated.subTotal,
    ...(discount ? { discount } : {}),
    parts: Object.fromEntries(
      partsOf(item, options.all).map((part, index) => [
        String(index + 1),
        {
          item_id: part.item.item_id,
          name: part.item.name,
          sku: part.item.sku,
          optional: part.optional,
          included: !part.optional || (options.payload.optIn ?? []).includes(part.item.item_id),
        },
      ]),
    ),
    start_date: span.start,
    end_date: span.end,
    last_date: rated.slots.at(-1)?.slot.date ?? span.start,
    length: rated.slots.length,
    added_at: ctx.now,
  };
}

/** A change computed against one read of the session: the session to write and which line did what. */
interface Change {
  next: StoredSession;
  /** For messages: which line (or SLIP) each counter belongs to. */
  owners: Record<string, string>;
}

const withHolds = (session: StoredSession, ctx: SessionContext): StoredSession => {
  const holds = totalHolds(session.lines);
  if (Object.keys(holds).length > SESSION_LIMITS.countersPerSession) {
    throw new DomainError(
      'validation_error',
      `A session holds at most ${SESSION_LIMITS.countersPerSession} item-dates`,
      {
        slip: `more than ${SESSION_LIMITS.countersPerSession} item-dates in one session`,
      },
    );
  }
  const firstHeldAt = session.first_held_at ?? (Object.keys(holds).length ? ctx.now : undefined);
  return {
    ...session,
    holds,
    version: session.version + 1,
    updated_at: ctx.now,
    expires_at: expiryOf(ctx, firstHeldAt),
    ...(firstHeldAt !== undefined ? { first_held_at: firstHeldAt } : {}),
  };
};

/**
 * When a session changed now expires: `hold_minutes` from now, but never more than
 * `max_session_minutes` after it first held stock, however often it changes.
 */
const expiryOf = (ctx: SessionContext, firstHeldAt: number | undefined): number => {
  const { hold_minutes: holdMinutes, max_session_minutes: maxMinutes } = ctx.config.settings;
  const extended = nowSeconds(ctx.now) + Math.round(holdMinutes * 60);
  if (firstHeldAt === undefined) return extended;
  return Math.min(extended, nowSeconds(firstHeldAt) + Math.round(maxMinutes * 60));
};

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
): { actions: TransactItem[]; roles: ActionRole[] } {
  const { before, after } = options;
  const client = before.client ?? after.client;
  const seconds = nowSeconds(ctx.now);
  const actions: TransactItem[] = [];
  const roles: ActionRole[] = [];
  const push = (action: TransactItem, role: ActionRole) => {
    actions.push(action);
    roles.push(role);
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
  if (roles.length > MAX_COUNTER_CHANGES * 2) {
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
  return { actions, roles };
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
  for (let attempt = 1; ; attempt += 1) {
    const session = await read();
    const all = await (ctx.loadItems ?? createItemLoader(ctx.db))([
      ...itemIds,
      ...Object.values(session.lines).map((line) => line.item_id),
    ]);
    const { next, owners } = change(session, all);
    if (next === session) return session;
    const { actions, roles } = holdActions(ctx, { before: session, after: next, all, owners });
    const isNew = session.version === 0;
    actions.push(
      putSessionAction(ctx.db, {
        session: next,
        ...(isNew ? {} : { previousVersion: session.version }),
        nowSeconds: nowSeconds(ctx.now),
      }),
    );
    roles.push({ kind: 'session' });
    try {
      await transact(ctx.db, actions, ctx.retry);
      return next;
    } catch (error) {
      if (!(error instanceof ConditionsFailedError)) throw error;
      const failed = error.failed.map((index) => roles[index]);
      if (!failed.some((role) => role?.kind === 'session')) {
        const stock = failed.find((role) => role?.kind === 'stock');
        if (stock?.kind === 'stock') throw unavailable(stock.counter, owners);
        const budget = failed.find((role) => role?.kind === 'client');
        if (budget?.kind === 'client') {
          throw holdLimit(budget.counter, owners, { allowance: budget.allowance });
        }
        if (failed.some((role) => role?.kind === 'sessions')) {
          const client = next.client as string;
          if (!cleaned) {
            cleaned = true;
            await releaseClientExpiredSessions(ctx, client);
            continue;
          }
          throw holdLimit(Object.keys(next.holds)[0] ?? '', owners, {
            sessions: ctx.config.settings.limits.open_sessions_per_client,
          });
        }
      }
      if (attempt >= 5) throw new ContentionError();
      // Someone changed (or expired) the session since we read it: read again and re-apply.
    }
  }
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
    (session, all) => {
      const lines = { ...session.lines };
      const known = new Set(Object.values(lines).map((line) => line.slip));
      let next = session.next_line;
      const owners: Record<string, string> = {};
      options.slips.forEach((slip, index) => {
        const payload = payloads[index] as SlipPayload;
        if (known.has(slip)) return;
        known.add(slip);
        const lineId = String(next);
        next += 1;
        const line = makeLine(ctx, { lineId, slip, payload, all, where: { slip: index }, adding: true });
        for (const id of Object.keys(line.holds_per_qty)) owners[id] ??= lineId;
        lines[lineId] = line;
      });
      if (Object.keys(lines).length > SESSION_LIMITS.linesPerSession) {
        throw new DomainError(
          'validation_error',
          `A session has at most ${SESSION_LIMITS.linesPerSession} lines`,
          {
            slip: `at most ${SESSION_LIMITS.linesPerSession} lines per session`,
          },
        );
      }
      if (Object.keys(lines).length === Object.keys(session.lines).length && session.version > 0) {
        return { next: session, owners };
      }
      return { next: withHolds({ ...session, lines, next_line: next }, ctx), owners };
    },
    payloads.map((payload) => payload.itemId),
  );
}

/** What `alter` may say of a line. */
export type AlterValue = number | 'remove' | 'optin' | 'optout';

const LINE_ID = /^(\d{1,4})(?:\.(\d{1,3}))?$/;
const SLIP_KEY = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+){2,}$/;

/** One `alter` change: a line id, or (for widgets that never keep line ids) the SLIP of a line. */
export interface AlterChange {
  lineId: string;
  value: AlterValue;
  /** `lineId` is the SLIP of a line in the session, not its id. */
  bySlip?: boolean;
}

/** Reads one `alter[...]` entry; throws a 400 naming it when malformed. */
export function readAlter(lineId: string, value: unknown): AlterChange {
  const field = `alter[${lineId}]`;
  const bySlip = !LINE_ID.test(lineId) && lineId.length <= 4096 && SLIP_KEY.test(lineId);
  if (!LINE_ID.test(lineId) && !bySlip)
    throw new DomainError('validation_error', `Malformed line id ${lineId.slice(0, 64)}`, {
      [field]: 'malformed line id',
    });
  const text =
    typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim().toLowerCase() : '';
  const change = (parsed: AlterValue): AlterChange => ({
    lineId,
    value: parsed,
    ...(bySlip ? { bySlip } : {}),
  });
  if (text === 'remove' || text === 'optin' || text === 'optout') return change(text);
  if (/^\d{1,3}$/.test(text) && Number(text) <= SESSION_LIMITS.maxQty) return change(Number(text));
  throw new DomainError('validation_error', `Invalid change for line ${lineId.slice(0, 64)}`, {
    [field]: `a quantity from 0 to ${SESSION_LIMITS.maxQty}, remove, optin or optout`,
  });
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
    (session, all) => {
      const lines = { ...session.lines };
      const owners: Record<string, string> = {};
      let changed = false;
      for (const change of options.changes) {
        const { value } = change;
        const field = `alter[${change.lineId}]`;
        // A widget that keeps no line ids names the line by its SLIP.
        const lineId = change.bySlip
          ? (Object.values(lines).find((line) => line.slip === change.lineId)?.line_id ?? '')
          : change.lineId;
        if (!lineId)
          throw new DomainError('validation_error', 'No line with this SLIP in this session', {
            [field]: 'unknown line',
          });
        const [main = '', sub] = lineId.split('.');
        const line = lines[main];
        if (!line)
          throw new DomainError('validation_error', `No line ${lineId} in this session`, {
            [field]: 'unknown line',
          });
        if (sub !== undefined) {
          const part = line.parts[sub];
          if (!part)
            throw new DomainError('validation_error', `No line ${lineId} in this session`, {
              [field]: 'unknown line',
            });
          if (value !== 'optin' && value !== 'optout') {
            throw new DomainError('validation_error', 'A package part takes optin or optout', {
              [field]: 'optin or optout',
            });
          }
          if (!part.optional) {
            throw new DomainError('validation_error', `Line ${lineId} is not optional`, {
              [field]: 'not an optional part',
            });
          }
          const optIn = new Set(line.payload.optIn ?? []);
          if (optIn.has(part.item_id) === (value === 'optin')) continue;
          if (value === 'optin') optIn.add(part.item_id);
          else optIn.delete(part.item_id);
          const payload = { ...line.payload, optIn: [...optIn].sort((a, b) => a - b) };
          const rebuilt = makeLine(ctx, {
            lineId: main,
            slip: line.slip,
            payload,
            all,
            where: { line: lineId },
            adding: false,
          });
          lines[main] = { ...rebuilt, qty: line.qty, added_at: line.added_at };
          for (const id of Object.keys(rebuilt.holds_per_qty)) owners[id] ??= lineId;
          changed = true;
          continue;
        }
        if (value === 'optin' || value === 'optout') {
          throw new DomainError('validation_error', 'optin and optout apply to package parts (such as 1.1)', {
            [field]: 'optin and optout take a part line such as 1.1',
          });
        }
        if (value === 'remove' || value === 0) {
          delete lines[main];
          changed = true;
          continue;
        }
        if (value === line.qty) continue;
        // Holding more re-checks that the item is still offered to this caller.
        if (value > line.qty)
          offeredItem(ctx, { itemId: line.item_id, all, where: { line: lineId }, adding: false });
        lines[main] = { ...line, qty: value };
        for (const id of Object.keys(line.holds_per_qty)) owners[id] ??= main;
        changed = true;
      }
      // A change that changes nothing writes nothing and extends nothing.
      if (!changed) return { next: session, owners };
      return { next: withHolds({ ...session, lines }, ctx), owners };
    },
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
