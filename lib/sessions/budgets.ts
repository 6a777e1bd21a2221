import type { Db } from '../kernel/storage/database.ts';
import { MAX_TRANSACTION_ACTIONS, type TransactItem } from '../kernel/storage/transact.ts';
import {
  claimUnpaidBookingAction,
  deleteUnpaidMarkerAction,
  dropClientSessionAction,
  dropUnpaidBookingAction,
  keepClientUnitsAction,
  putUnpaidMarkerAction,
  releaseClientUnitsAction,
} from './budget-repository.ts';
import type { StoredSession } from './repository.ts';
import { releaseZoneAction } from './zone-repository.ts';

/** What a client may hold of a counter: its share of the capacity, rounded down, but at least one unit. */
export const clientAllowance = (capacity: number, share: number): number =>
  // The epsilon undoes binary fractions: 100 × 0.29 is 28.999999999999996, and the share means 29.
  Math.max(1, Math.floor(capacity * share + 1e-9));

/**
 * The units of an item-date under a proof-of-work gate that a hold without a solved challenge must leave
 * free: the share of the capacity, rounded up (a hold that would leave less than the share needs one).
 */
export const powReserve = (capacity: number, share: number): number =>
  // The epsilon undoes binary fractions, as in clientAllowance: 100 × 0.29 means 29, not 30.
  Math.max(0, Math.ceil(capacity * share - 1e-9));

/** Whether a session holds stock: open, with at least one held counter. */
export const isHolding = (session: StoredSession): boolean =>
  session.status === 'open' && Object.keys(session.holds).length > 0;

/**
 * How long (seconds) a client waits before it may hold a counter again after one of its carts let go of it
 * unbooked, having held it one hold time or less: `settings.limits.rehold_cooldown_minutes`, by default
 * twice the tenant's hold time; 0 when disabled.
 */
export const reholdCooldownSeconds = (settings: {
  hold_minutes: number;
  limits: { rehold_cooldown_minutes?: number | undefined };
}): number => Math.round((settings.limits.rehold_cooldown_minutes ?? 2 * settings.hold_minutes) * 60);

/** A tenant's re-hold cooldown: its length after a hold of one hold time or less, and how it grows past that. */
export interface CooldownPolicy {
  /** `reholdCooldownSeconds`; 0: no cooldown. */
  seconds: number;
  /** Seconds of cooldown per second held: the cooldown over the hold time (2 by default). */
  perHeldSecond: number;
}

/**
 * The re-hold cooldown of a tenant's settings: what a client held counts, not how its cart ended, so one
 * held for longer than a hold time (a cart kept alive, or carts overlapping) waits in proportion.
 */
export const reholdCooldownOf = (settings: {
  hold_minutes: number;
  limits: { rehold_cooldown_minutes?: number | undefined };
}): CooldownPolicy => {
  const seconds = reholdCooldownSeconds(settings);
  return { seconds, perHeldSecond: seconds / (settings.hold_minutes * 60) };
};

/**
 * Until when (Unix seconds) a client may not hold a counter again that it held since `since` and let go
 * of at `from`: the policy's cooldown, or the time held times `perHeldSecond` when that is longer, so a
 * client holds an item-date at most hold / (hold + cooldown) of the time however it keeps its carts.
 */
export const cooldownUntil = (policy: CooldownPolicy, held: { since: number; from: number }): number =>
  held.from +
  Math.max(policy.seconds, Math.round(policy.perHeldSecond * Math.max(0, held.from - held.since)));

/**
 * Since when (Unix seconds) a session has held a counter without a break, as far as the client's carts go:
 * recorded when it first held it (sessions held before that was recorded: their first hold), else `from`.
 */
export const heldSinceOf = (session: StoredSession, counterId: string, from: number): number =>
  session.held_since?.[counterId] ??
  (session.first_held_at !== undefined ? Math.floor(session.first_held_at / 1000) : from);

/**
 * The actions that take a session's holds off its client's budget when the session lets go of them
 * (released by the sweeper, or handed over to a booking that does not count); with `cooldown`, the client may
 * not hold each counter, nor start holding in each of the cart's stay zones, before `cooldownUntil` from
 * `from` (the cart's expiry), unless that is over.
 */
export function releaseBudgetActions(
  db: Db,
  session: StoredSession,
  cooldown?: { policy: CooldownPolicy; from: number; nowSeconds: number },
): TransactItem[] {
  const { client } = session;
  if (!client) return [];
  return [
    ...Object.entries(session.holds).map(([counterId, units]) => {
      const until =
        cooldown && cooldown.policy.seconds > 0
          ? cooldownUntil(cooldown.policy, {
              since: heldSinceOf(session, counterId, cooldown.from),
              from: cooldown.from,
            })
          : 0;
      return releaseClientUnitsAction(db, {
        client,
        counterId,
        units,
        cart: session.id,
        // A cooldown already over (a sweep long after the expiry) is not written: it could only shorten a
        // later one.
        cooldown:
          cooldown && until > cooldown.nowSeconds
            ? { until, nowSeconds: cooldown.nowSeconds, sessionId: session.id }
            : undefined,
      });
    }),
    ...(cooldown ? zoneReleaseActions(db, { session, client, cooldown }) : []),
    ...(isHolding(session) ? [dropClientSessionAction(db, { client, sessionId: session.id })] : []),
  ];
}

/**
 * The cart leaves its client's stay zone records, each cooled down as its item-dates are. A booked cart
 * leaves them after its booking's transaction, which has no room to spare (`leaveZonesAfterBooking`).
 */
function zoneReleaseActions(
  db: Db,
  options: {
    session: StoredSession;
    client: string;
    cooldown: { policy: CooldownPolicy; from: number; nowSeconds: number };
  },
): TransactItem[] {
  const { session, cooldown } = options;
  // Carts are held to what one transaction can let go of; this only guards one whose zones grew since.
  const room = Math.max(0, MAX_TRANSACTION_ACTIONS - 2 * Object.keys(session.holds).length - 2);
  return Object.entries(session.zones ?? {})
    .slice(0, room)
    .map(([zoneId, since]) => {
      const until =
        cooldown.policy.seconds > 0 ? cooldownUntil(cooldown.policy, { since, from: cooldown.from }) : 0;
      return releaseZoneAction(db, {
        client: options.client,
        zoneId,
        cart: session.id,
        cooldown:
          until > cooldown.nowSeconds
            ? { until, nowSeconds: cooldown.nowSeconds, sessionId: session.id }
            : undefined,
      });
    });
}

/**
 * The actions that hand a booked session's budget over to its booking: the session leaves its client's set
 * of holding sessions, its units stay counted against the client (kept past the records' TTL), and the
 * booking counts among the client's unpaid bookings, only while they are fewer than `max` (the last action).
 */
export function keepBudgetActions(
  db: Db,
  options: {
    session: StoredSession;
    max: number;
    booking: { booking_id: number; created_date: number };
    /** Counters the booking's transaction already writes for the client (units caught up now). */
    written: string[];
  },
): TransactItem[] {
  const { session, booking } = options;
  const client = session.client as string;
  return [
    ...Object.keys(session.holds)
      .filter((counterId) => !options.written.includes(counterId))
      .map((counterId) => keepClientUnitsAction(db, { client, counterId, cart: session.id })),
    ...(isHolding(session) ? [dropClientSessionAction(db, { client, sessionId: session.id })] : []),
    putUnpaidMarkerAction(db, { bookingId: booking.booking_id, createdSeconds: booking.created_date }),
    claimUnpaidBookingAction(db, { client, max: options.max }),
  ];
}

/** What an unpaid booking counts against the client that made it (`budget`, absent once it no longer counts). */
export interface BudgetedBooking {
  booking_id: number;
  created_date: number;
  budget?: { client: string; holds: Record<string, number> };
}

/** The actions that give back what an unpaid booking counted against its client (none once it is paid). */
export function releaseBookingBudgetActions(
  db: Db,
  booking: BudgetedBooking,
  nowSeconds: number,
): TransactItem[] {
  const { budget } = booking;
  if (!budget) return [];
  return [
    ...Object.entries(budget.holds).map(([counterId, units]) =>
      releaseClientUnitsAction(db, { client: budget.client, counterId, units, nowSeconds }),
    ),
    dropUnpaidBookingAction(db, { client: budget.client }),
    deleteUnpaidMarkerAction(db, { bookingId: booking.booking_id, createdSeconds: booking.created_date }),
  ];
}
