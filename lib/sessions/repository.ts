import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LineAmounts } from '../kernel/money.ts';
import type { Db } from '../kernel/storage/database.ts';
import { sessionExpiryShard, sessionKey } from '../kernel/storage/keys.ts';
import { stripKeys } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import type { SlipPayload } from '../slip/index.ts';

/** A package part inside a session line, per one of the line. */
export interface SessionPart {
  item_id: number;
  name: string;
  sku: string;
  optional: boolean;
  included: boolean;
}

/** One line of a session (cart): a SLIP, re-rated when added, with the stock it holds per unit of qty. */
export interface SessionLine {
  line_id: string;
  item_id: number;
  sku: string;
  name: string;
  unit: 'D' | 'N' | 'H';
  slip: string;
  payload: SlipPayload;
  qty: number;
  /** Counter id (`<item>|<slot>`) → stock units held per unit of `qty` (own and included parts). */
  holds_per_qty: Record<string, number>;
  /**
   * The tenant load (its `updated_at`) whose items `holds_per_qty` was worked out from: items change only
   * through a load, so a line of an earlier load may take less than its item takes now. Absent on lines
   * held before it was recorded.
   */
  items_stamp?: number;
  /** Minor units per unit of `qty`, before discount, at the price of when it was added. */
  sub_total: number;
  discount?: { code: string; type: 'percent' | 'amount'; value: string };
  /**
   * Booking lines only: the discount the line was charged when booked (minor units), its share of an
   * amount discount taken once per cart. Bookings made before it was kept charged each line its own.
   */
  discounted?: number;
  /**
   * Booking lines only: the line's money as it was sold (sub-total, discount, each tax, total, in minor
   * units), so a later change of the tenant's tax rates never changes an invoice. Absent on bookings made
   * before it was kept, whose money is worked out from the rates of the day.
   */
  amounts?: LineAmounts;
  parts: Record<string, SessionPart>;
  start_date: string;
  end_date: string;
  /** Local date of the last slot (the last night or day). */
  last_date: string;
  /** How many units of sale (days, nights, hours) the line spans. */
  length: number;
  added_at: number;
}

/** Where a session is in its life. */
export type SessionStatus = 'open' | 'ended' | 'expired' | 'booked';

/** A session (cart) as stored. `holds` is what its lines hold in total: the counters to release. */
export interface StoredSession {
  id: string;
  status: SessionStatus;
  version: number;
  created_at: number;
  updated_at: number;
  /** Unix seconds; past it an open session is expired for every call. */
  expires_at: number;
  next_line: number;
  lines: Record<string, SessionLine>;
  holds: Record<string, number>;
  booking_id?: number;
  /** The client whose hold budget the session's holds count against (none: staff, or made before budgets). */
  client?: string;
  /** When the session first held stock (ms); it holds for at most `max_session_minutes` after that. */
  first_held_at?: number;
  /**
   * Counter id → since when (Unix seconds) the client has held it without a break: when this cart first
   * held it, or earlier when another cart of the client already held it. The re-hold cooldown after the
   * cart lets go of it grows with the time since. Absent on sessions held before it was recorded.
   */
  held_since?: Record<string, number>;
  /**
   * Stay zone id (see zones.ts) → since when the client has held something in it without a break, for the
   * zones of this cart's holds: the cooldown of a stay, like `held_since` for an item-date. Absent on
   * carts held before stay zones, and without a client or a cooldown.
   */
  zones?: Record<string, number>;
}

/** Reads a session by id (consistent read: the caller decides on fresh state). */
export async function getSession(db: Db, id: string): Promise<StoredSession | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: sessionKey(id), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return stripKeys<StoredSession>(Item);
}

/** How long a closed session's record is kept before DynamoDB TTL deletes it. */
const KEEP_SECONDS = 7 * 86_400;

/**
 * The transaction action that writes a session: created only if new, otherwise only if nobody changed it
 * since it was read (`version`), it is still open and not expired. An open session holding stock is in
 * the sweeper's expiry shard; any other is not.
 */
export function putSessionAction(
  db: Db,
  options: { session: StoredSession; previousVersion?: number; nowSeconds: number },
): TransactItem {
  const { session } = options;
  const holding = session.status === 'open' && Object.keys(session.holds).length > 0;
  const item = {
    ...sessionKey(session.id),
    entity: 'session',
    ...session,
    ttl: Math.ceil(session.expires_at) + KEEP_SECONDS,
    ...(holding
      ? {
          gsi1pk: sessionExpiryShard(session.expires_at),
          gsi1sk: String(Math.ceil(session.expires_at)).padStart(12, '0'),
        }
      : {}),
  };
  if (options.previousVersion === undefined) {
    return { Put: { TableName: db.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
  }
  return {
    Put: {
      TableName: db.tableName,
      Item: item,
      ConditionExpression: '#version = :version AND #status = :open AND expires_at > :now',
      ExpressionAttributeNames: { '#version': 'version', '#status': 'status' },
      ExpressionAttributeValues: {
        ':version': options.previousVersion,
        ':open': 'open',
        ':now': options.nowSeconds,
      },
    },
  };
}

/**
 * Closes an open session in a transaction: it lets go of its holds (released by the sweeper, or handed
 * to a booking) and leaves the expiry index, only if it is unchanged since it was read, still open, and
 * already expired (`expired`) or not yet expired (`booked`).
 */
function closeSessionAction(
  db: Db,
  options: {
    session: StoredSession;
    status: 'expired' | 'booked';
    nowSeconds: number;
    nowMs: number;
    bookingId?: number;
  },
): TransactItem {
  const booked = options.status === 'booked';
  return {
    Update: {
      TableName: db.tableName,
      Key: sessionKey(options.session.id),
      UpdateExpression: `SET #status = :status, holds = :none, #version = :next, updated_at = :nowMs${booked ? ', booking_id = :booking' : ''} REMOVE gsi1pk, gsi1sk`,
      ConditionExpression: `#version = :version AND #status = :open AND expires_at ${booked ? '>' : '<='} :now`,
      ExpressionAttributeNames: { '#version': 'version', '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': options.status,
        ':none': {},
        ':next': options.session.version + 1,
        ':version': options.session.version,
        ':open': 'open',
        ':now': options.nowSeconds,
        ':nowMs': options.nowMs,
        ...(booked ? { ':booking': options.bookingId } : {}),
      },
    },
  };
}

/** The sweeper's action: releases an expired session that is still open, still expired and unchanged. */
export const expireSessionAction = (
  db: Db,
  options: { session: StoredSession; nowSeconds: number; nowMs: number },
): TransactItem => closeSessionAction(db, { ...options, status: 'expired' });

/** Books a session: marks it booked and hands its holds over (the counters are not touched). */
export const bookSessionAction = (
  db: Db,
  options: { session: StoredSession; bookingId: number; nowSeconds: number; nowMs: number },
): TransactItem => closeSessionAction(db, { ...options, status: 'booked' });
