import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import {
  clientHoldKey,
  clientSessionsKey,
  clientUnpaidKey,
  clientZoneKey,
  UNPAID_BOOKINGS_PARTITION,
  unpaidBookingKey,
} from '../kernel/storage/keys.ts';
import { queryAll } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import { isZoneId } from './zones.ts';

/** How long a client's budget records outlive their last change before DynamoDB TTL deletes them. */
export const KEEP_SECONDS = 7 * 86_400;

/**
 * How a cart's first hold of a counter stands to its client's other carts, for the re-hold cooldown, which
 * grows with how long the client held the counter: the client record keeps the carts that hold it
 * (`carts`) and since when it has been held without a break (`anchor`, Unix seconds).
 */
export type HoldPeriod =
  /** No cart of the client holds the counter and no cooldown runs on it: holding starts at `since`. */
  | { kind: 'start'; since: number }
  /** Another cart of the client holds it (or this cart's own cooldown runs): holding goes on from `anchor`. */
  | { kind: 'join'; anchor: number | undefined }
  /** The carts recorded (`seen`) hold it no longer (a booked cart): holding starts again at `since`. */
  | { kind: 'restart'; since: number; seen: string[] };

/**
 * The conditions and updates that keep a client's holding of a counter or a stay zone and wait for its
 * cooldown: with `session` the hold is that cart's, and waits for the client's re-hold cooldown unless this
 * cart started it (with `period` start or restart, whoever started it); `period` says how the cart's first
 * hold stands to the client's other carts.
 */
export function holdingParts(
  session: string | undefined,
  period: HoldPeriod | undefined,
  nowSeconds: number,
): { conditions: string[]; adds: string[]; sets: string[]; values: Record<string, unknown> } {
  const fresh = period?.kind === 'start' || period?.kind === 'restart';
  const conditions: string[] = [];
  if (session !== undefined) {
    conditions.push(
      `(attribute_not_exists(cooldown_until) OR cooldown_until <= :now${fresh ? '' : ' OR cooldown_session = :session'})`,
    );
  }
  if (period?.kind === 'start') conditions.push('attribute_not_exists(carts)');
  if (period?.kind === 'restart') conditions.push('carts = :seen');
  if (period?.kind === 'join') {
    conditions.push(
      period.anchor === undefined ? 'attribute_not_exists(anchor)' : 'anchor = :anchor',
      '(attribute_exists(carts) OR cooldown_session = :session)',
    );
  }
  return {
    conditions,
    adds: session !== undefined && period?.kind !== 'restart' ? ['carts :cart'] : [],
    sets: [...(fresh ? ['anchor = :since'] : []), ...(period?.kind === 'restart' ? ['carts = :cart'] : [])],
    values: {
      ...(session !== undefined ? { ':now': nowSeconds, ':cart': new Set([session]) } : {}),
      // A first hold that starts (or restarts) the client's holding waits for any cooldown, its own too.
      ...(session !== undefined && !fresh ? { ':session': session } : {}),
      ...(period?.kind === 'start' ? { ':since': period.since } : {}),
      ...(period?.kind === 'restart' ? { ':since': period.since, ':seen': new Set(period.seen) } : {}),
      ...(period?.kind === 'join' && period.anchor !== undefined ? { ':anchor': period.anchor } : {}),
    },
  };
}

/**
 * Adds `units` to what a client holds of a counter, only while it stays within the client's allowance
 * (conditions cannot add, so the caller passes allowance − units).
 */
export function holdClientUnitsAction(
  db: Db,
  options: {
    client: string;
    counterId: string;
    units: number;
    allowance: number;
    nowSeconds: number;
    /** For a booking that counts on the record: keep it past TTL (see `keepClientUnitsAction`). */
    keep?: boolean;
    /**
     * Set: the hold is this cart's, and waits for the client's re-hold cooldown unless this cart started it
     * (with `period` start or restart, whoever started it).
     */
    cooldownSession?: string;
    /** The cart's first hold of the counter: how it stands to the client's other carts' holds. */
    period?: HoldPeriod;
  },
): TransactItem {
  const holding = holdingParts(options.cooldownSession, options.period, options.nowSeconds);
  const sets = ['entity = :entity', ...(options.keep ? [] : ['#ttl = :ttl']), ...holding.sets];
  return {
    Update: {
      TableName: db.tableName,
      Key: clientHoldKey(options.client, options.counterId),
      UpdateExpression: `ADD ${['held :units', ...holding.adds].join(', ')} SET ${sets.join(', ')}${options.keep ? ' REMOVE #ttl' : ''}`,
      ConditionExpression: ['(attribute_not_exists(held) OR held <= :room)', ...holding.conditions].join(
        ' AND ',
      ),
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':units': options.units,
        ':room': options.allowance - options.units,
        ':entity': 'client_hold',
        ...(options.keep ? {} : { ':ttl': options.nowSeconds + KEEP_SECONDS }),
        ...holding.values,
      },
    },
  };
}

/** Marks an unpaid booking for the sweeper that voids those left unpaid (see `unpaidBookingKey`). */
export function putUnpaidMarkerAction(
  db: Db,
  options: { bookingId: number; createdSeconds: number },
): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...unpaidBookingKey(options.createdSeconds, options.bookingId),
        entity: 'unpaid_booking',
        booking_id: options.bookingId,
      },
    },
  };
}

/** Takes the mark off a booking that no longer counts as unpaid. */
export function deleteUnpaidMarkerAction(
  db: Db,
  options: { bookingId: number; createdSeconds: number },
): TransactItem {
  return {
    Delete: { TableName: db.tableName, Key: unpaidBookingKey(options.createdSeconds, options.bookingId) },
  };
}

/** The unpaid bookings made before `before` (Unix seconds), oldest first: one query of their markers. */
export async function listUnpaidBookingsBefore(db: Db, before: number): Promise<number[]> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND sk < :before',
    ExpressionAttributeValues: {
      ':pk': UNPAID_BOOKINGS_PARTITION,
      ':before': unpaidBookingKey(before, 0).sk,
    },
    ProjectionExpression: 'booking_id',
  });
  return records.map((record) => Number(record.booking_id));
}

/** A re-hold cooldown: until when (Unix seconds), started by which session, written at what time. */
export interface Cooldown {
  until: number;
  sessionId: string;
  nowSeconds: number;
}

/**
 * Takes `units` off what a client holds of a counter (never refused, like releasing stock). With `cart` the
 * cart lets go of the counter entirely and leaves its record's `carts`. With a `cooldown` the client may not
 * hold the counter again before its end, but from the session that let go (the record then lives a week
 * past it, so TTL deletes it only long after the cooldown); with `nowSeconds` (a booking's budget given
 * back) the record may be deleted again a week later.
 */
export function releaseClientUnitsAction(
  db: Db,
  options: {
    client: string;
    counterId: string;
    units: number;
    cooldown?: Cooldown | undefined;
    nowSeconds?: number;
    cart?: string | undefined;
  },
): TransactItem {
  const { cooldown, cart } = options;
  const ttl = cooldown
    ? Math.max(cooldown.until, cooldown.nowSeconds) + KEEP_SECONDS
    : options.nowSeconds !== undefined
      ? options.nowSeconds + KEEP_SECONDS
      : undefined;
  const sets = [
    ...(cooldown ? ['cooldown_until = :until', 'cooldown_session = :session'] : []),
    ...(ttl !== undefined ? ['#ttl = :ttl'] : []),
  ];
  return {
    Update: {
      TableName: db.tableName,
      Key: clientHoldKey(options.client, options.counterId),
      UpdateExpression: `ADD held :units SET entity = :entity${sets.map((set) => `, ${set}`).join('')}${cart !== undefined ? ' DELETE carts :cart' : ''}`,
      ...(ttl !== undefined ? { ExpressionAttributeNames: { '#ttl': 'ttl' } } : {}),
      ExpressionAttributeValues: {
        ':units': -options.units,
        ':entity': 'client_hold',
        ...(cooldown ? { ':until': cooldown.until, ':session': cooldown.sessionId } : {}),
        ...(ttl !== undefined ? { ':ttl': ttl } : {}),
        ...(cart !== undefined ? { ':cart': new Set([cart]) } : {}),
      },
    },
  };
}

/**
 * Keeps a client's record of a counter for as long as an unpaid booking counts on it: TTL would delete it
 * a week after its last change, and the booking's units with it. With `cart`, the booked cart leaves the
 * record's `carts` (its units are the booking's now).
 */
export function keepClientUnitsAction(
  db: Db,
  options: { client: string; counterId: string; cart?: string },
): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: clientHoldKey(options.client, options.counterId),
      UpdateExpression: `REMOVE #ttl${options.cart !== undefined ? ' DELETE carts :cart' : ''}`,
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ...(options.cart !== undefined
        ? { ExpressionAttributeValues: { ':cart': new Set([options.cart]) } }
        : {}),
    },
  };
}

/**
 * Counts a booking among its client's unpaid bookings, only while they are fewer than `max` (a counter,
 * not a set: a booking leaves it exactly once, in the transaction that takes its budget away).
 */
export function claimUnpaidBookingAction(db: Db, options: { client: string; max: number }): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: clientUnpaidKey(options.client),
      UpdateExpression: 'ADD unpaid :one SET entity = :entity',
      ConditionExpression: 'attribute_not_exists(unpaid) OR unpaid < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': options.max, ':entity': 'client_unpaid' },
    },
  };
}

/** Takes a booking off its client's count of unpaid bookings. */
export function dropUnpaidBookingAction(db: Db, options: { client: string }): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: clientUnpaidKey(options.client),
      UpdateExpression: 'ADD unpaid :minusOne',
      ExpressionAttributeValues: { ':minusOne': -1 },
    },
  };
}

/** What a client's record of a counter says: units held, the carts holding it, since when, its cooldown. */
export interface ClientHoldState {
  held: number;
  carts: string[];
  anchor?: number;
  cooldown?: { until: number; sessionId: string };
}

/**
 * A client's records of some counters and stay zones (consistent reads, at once); those without one are
 * absent.
 */
export async function getClientHolds(
  db: Db,
  options: { client: string; counterIds: string[] },
): Promise<Map<string, ClientHoldState>> {
  const found = new Map<string, ClientHoldState>();
  await Promise.all(
    [...new Set(options.counterIds)].map(async (id) => {
      const { Item: item } = await db.documents.send(
        new GetCommand({
          TableName: db.tableName,
          Key: isZoneId(id) ? clientZoneKey(options.client, id) : clientHoldKey(options.client, id),
          ConsistentRead: true,
        }),
      );
      if (!item) return;
      found.set(id, {
        held: Number(item.held ?? 0),
        carts: [...((item.carts as Set<string> | undefined) ?? [])],
        ...(typeof item.anchor === 'number' ? { anchor: item.anchor } : {}),
        ...(typeof item.cooldown_until === 'number'
          ? { cooldown: { until: item.cooldown_until, sessionId: String(item.cooldown_session ?? '') } }
          : {}),
      });
    }),
  );
  return found;
}

/** Enters a session in its client's set of holding sessions, only while the set has room (or has it). */
export function claimClientSessionAction(
  db: Db,
  options: { client: string; sessionId: string; max: number; nowSeconds: number },
): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: clientSessionsKey(options.client),
      UpdateExpression: 'ADD sessions :ids SET entity = :entity, #ttl = :ttl',
      ConditionExpression:
        'attribute_not_exists(sessions) OR size(sessions) < :max OR contains(sessions, :id)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':ids': new Set([options.sessionId]),
        ':id': options.sessionId,
        ':max': options.max,
        ':entity': 'client_sessions',
        ':ttl': options.nowSeconds + KEEP_SECONDS,
      },
    },
  };
}

/** Takes a session out of its client's set of holding sessions. */
export function dropClientSessionAction(
  db: Db,
  options: { client: string; sessionId: string },
): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: clientSessionsKey(options.client),
      UpdateExpression: 'DELETE sessions :ids',
      ExpressionAttributeValues: { ':ids': new Set([options.sessionId]) },
    },
  };
}

/** Lists a client's holding sessions as recorded in its set (consistent read). */
export async function getClientSessions(db: Db, client: string): Promise<string[]> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: clientSessionsKey(client), ConsistentRead: true }),
  );
  return [...((Item?.sessions as Set<string> | undefined) ?? [])];
}
