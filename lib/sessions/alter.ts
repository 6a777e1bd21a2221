import type { StoredItem } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import { holdsNowOf } from './line-holds.ts';
import { type Change, type LineContext, makeLine, offeredItem, SESSION_LIMITS, withHolds } from './lines.ts';
import type { SessionLine, StoredSession } from './repository.ts';

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

/**
 * A line grown to `qty`. Holding more re-checks that the item is still offered to this caller, and works
 * out what the whole line takes from the item as it is now: a line held while its item was unlimited, or
 * took fewer units, would otherwise keep taking what it took then (nothing, for an unlimited item) for
 * every unit added after the item was given a finite stock. The session's holds are the sum of its lines',
 * so the difference is held on each counter's capacity, conditionally, like any other hold.
 */
function grownLine(
  ctx: LineContext,
  options: { line: SessionLine; qty: number; all: StoredItem[] },
): SessionLine {
  const { line, all } = options;
  const where = { line: line.line_id };
  offeredItem(ctx, { itemId: line.item_id, all, where, adding: false });
  const holdsNow = holdsNowOf(line, { config: ctx.config, all, now: ctx.now });
  if (!holdsNow) {
    throw new DomainError(
      'unavailable',
      `${line.name} has changed since it was added; remove it and add it again`,
      {
        ...where,
        item_id: line.item_id,
      },
    );
  }
  return { ...line, qty: options.qty, holds_per_qty: holdsNow, items_stamp: ctx.config.updated_at };
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
 * Applies `alter` changes to a session's lines: a quantity, `remove` (or 0), `optin`/`optout` of a
 * package part; a change that changes nothing leaves the session as it is (no write, no extension).
 */
export function applyAlters(
  ctx: LineContext,
  options: { session: StoredSession; all: StoredItem[]; changes: AlterChange[] },
): Change {
  const { session, all } = options;
  const lines = { ...session.lines };
  const owners: Record<string, string> = {};
  let changed = false;
  let takes = false;
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
      takes ||= value === 'optin';
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
    lines[main] = value > line.qty ? grownLine(ctx, { line, qty: value, all }) : { ...line, qty: value };
    for (const id of Object.keys(lines[main]?.holds_per_qty ?? {})) owners[id] ??= main;
    changed = true;
    takes ||= value > line.qty;
  }
  // A change that changes nothing writes nothing and extends nothing.
  if (!changed) return { next: session, owners };
  return { next: withHolds({ ...session, lines }, ctx), owners, takes };
}
