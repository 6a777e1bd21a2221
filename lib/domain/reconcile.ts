import type { HoldingSnapshot } from '../db/reconcile-repository.ts';
import { counterId, parseCounterId } from '../db/stock-repository.ts';
import type { StoredItem } from '../db/tenant-repository.ts';
import { isInactive } from './booking.ts';
import { capacityOf } from './stock.ts';

/** One counter that breaks the invariant. */
export interface Discrepancy {
  itemId: number;
  slot: string;
  used: number;
  /** Units of live session holds plus active bookings. */
  expected: number;
  capacity: number;
  /**
   * `corrupt`: used differs from what holds and bookings add up to. `over_capacity`: they agree, but the
   * item's stock was lowered below what was already held or booked (no write went wrong).
   */
  kind: 'corrupt' | 'over_capacity';
}

/** A client's budget record that disagrees with the open sessions it stands for. */
export type ClientDiscrepancy =
  | { kind: 'client_hold'; client: string; counterId: string; held: number; expected: number }
  | { kind: 'client_sessions'; client: string; sessions: string[]; expected: string[] };

/** The result of checking the invariant over a whole table. */
export interface ReconcileReport {
  counters: number;
  discrepancies: Discrepancy[];
  /** Hold budgets (per client and counter, and each client's holding sessions) that disagree with the sessions. */
  clientDiscrepancies: ClientDiscrepancy[];
  /** Open sessions past their hold time whose holds the sweeper has not released yet. */
  awaitingSweep: number;
}

/**
 * Checks, for every item-date, that `used` equals the units of live session holds plus active bookings
 * and is at most the capacity. Sessions count while open (even past their time, until the sweeper
 * releases them); bookings while not VOID or CANCELLED.
 */
export function reconcile(
  snapshot: HoldingSnapshot,
  options: { items: StoredItem[]; timeZone: string; nowSeconds: number },
): ReconcileReport {
  const expected = new Map<string, number>();
  const add = (holds: Record<string, number>) => {
    for (const [id, units] of Object.entries(holds))
      expected.set(id, (expected.get(id) ?? 0) + Number(units));
  };
  for (const session of snapshot.sessions) if (session.status === 'open') add(session.holds);
  for (const booking of snapshot.bookings) if (!isInactive(booking.status_id)) add(booking.holds);

  const used = new Map(
    snapshot.counters.map((counter) => [counterId(counter.itemId, counter.slot), counter.used]),
  );
  const ids = new Set([...used.keys(), ...expected.keys()]);
  const discrepancies: Discrepancy[] = [];
  for (const id of [...ids].sort()) {
    const { itemId, slot } = parseCounterId(id);
    const item = options.items.find((entry) => entry.item_id === itemId);
    const capacity = item ? capacityOf(item, slot, options.timeZone) : 0;
    const actual = used.get(id) ?? 0;
    const wanted = expected.get(id) ?? 0;
    if (actual !== wanted)
      discrepancies.push({ itemId, slot, used: actual, expected: wanted, capacity, kind: 'corrupt' });
    else if (!item?.unlimited && actual > capacity) {
      discrepancies.push({ itemId, slot, used: actual, expected: wanted, capacity, kind: 'over_capacity' });
    }
  }
  const awaitingSweep = snapshot.sessions.filter(
    (session) =>
      session.status === 'open' &&
      Object.keys(session.holds).length > 0 &&
      session.expires_at <= options.nowSeconds,
  ).length;
  return {
    counters: ids.size,
    discrepancies,
    clientDiscrepancies: reconcileClients(snapshot),
    awaitingSweep,
  };
}

/**
 * Checks that each client's budget records agree with its open sessions: what it holds of each counter
 * is the sum of those sessions' holds, and its set of holding sessions is exactly those holding stock.
 */
export function reconcileClients(snapshot: HoldingSnapshot): ClientDiscrepancy[] {
  const held = new Map<string, number>();
  const sessionsOf = new Map<string, string[]>();
  for (const session of snapshot.sessions) {
    if (session.status !== 'open' || !session.client) continue;
    const entries = Object.entries(session.holds);
    if (entries.length === 0) continue;
    sessionsOf.set(session.client, [...(sessionsOf.get(session.client) ?? []), session.id]);
    for (const [id, units] of entries) {
      const key = `${session.client}\n${id}`;
      held.set(key, (held.get(key) ?? 0) + Number(units));
    }
  }
  const recorded = new Map(
    snapshot.clientHolds.map((entry) => [`${entry.client}\n${entry.counterId}`, entry.held]),
  );
  const discrepancies: ClientDiscrepancy[] = [];
  for (const key of [...new Set([...held.keys(), ...recorded.keys()])].sort()) {
    const [client = '', counterId = ''] = key.split('\n');
    const actual = recorded.get(key) ?? 0;
    const expected = held.get(key) ?? 0;
    if (actual !== expected)
      discrepancies.push({ kind: 'client_hold', client, counterId, held: actual, expected });
  }
  const recordedSessions = new Map(snapshot.clientSessions.map((entry) => [entry.client, entry.sessions]));
  for (const client of [...new Set([...sessionsOf.keys(), ...recordedSessions.keys()])].sort()) {
    const actual = [...(recordedSessions.get(client) ?? [])].sort();
    const expected = [...(sessionsOf.get(client) ?? [])].sort();
    if (actual.join(' ') !== expected.join(' ')) {
      discrepancies.push({ kind: 'client_sessions', client, sessions: actual, expected });
    }
  }
  return discrepancies;
}
