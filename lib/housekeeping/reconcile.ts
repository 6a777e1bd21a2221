import { isInactive } from '../bookings/index.ts';
import type { StoredConfig, StoredItem } from '../config/index.ts';
import { unixSeconds } from '../kernel/time.ts';
import { holdsNowOf } from '../sessions/index.ts';
import { capacityOf, counterId, parseCounterId } from '../stock/index.ts';

import type { HoldingSnapshot } from './reconcile-repository.ts';

/** One counter that breaks the invariant. */
export interface Discrepancy {
  itemId: number;
  slot: string;
  used: number;
  /** Units of live session holds plus active bookings plus channel blocks. */
  expected: number;
  capacity: number;
  /**
   * `corrupt`: used differs from what holds, bookings and channel blocks add up to. `over_capacity`: they agree, but the
   * item's stock was lowered below what was already held or booked (no write went wrong).
   */
  kind: 'corrupt' | 'over_capacity';
}

/** A client's budget record that disagrees with the open sessions it stands for. */
export type ClientDiscrepancy =
  | { kind: 'client_hold'; client: string; counterId: string; held: number; expected: number }
  | { kind: 'client_sessions'; client: string; sessions: string[]; expected: string[] }
  | { kind: 'client_unpaid'; client: string; unpaid: number; expected: number };

/**
 * A line of an open cart or an active booking whose holds disagree with what its item takes now (the item
 * was corrected after it was held): `takes_more` could oversell (the counter agrees with its holders, so
 * nothing else shows it); `takes_less` keeps stock from sale. Reported for staff, never "fixed".
 */
export interface HolderDiscrepancy {
  kind: 'takes_more' | 'takes_less';
  holder: 'session' | 'booking';
  /** The session id or the booking code. */
  id: string;
  line: string;
  counterId: string;
  holds: number;
  takes: number;
}

/** The result of checking the invariant over a whole table. */
export interface ReconcileReport {
  counters: number;
  discrepancies: Discrepancy[];
  /** Hold budgets (per client and counter, and each client's holding sessions) that disagree with the sessions. */
  clientDiscrepancies: ClientDiscrepancy[];
  /** Lines of open carts and active bookings whose holds disagree with their items as they are now. */
  holderDiscrepancies: HolderDiscrepancy[];
  /** Open sessions past their hold time whose holds the sweeper has not released yet. */
  awaitingSweep: number;
}

/**
 * Checks, for every item-date, that `used` equals the units of live session holds plus active bookings
 * plus channel blocks, and is at most the capacity. Sessions count while open (even past their time, until the sweeper
 * releases them); bookings while not VOID or CANCELLED.
 */
export function reconcile(
  snapshot: HoldingSnapshot,
  options: { items: StoredItem[]; config?: StoredConfig; now: number },
): ReconcileReport {
  const { config } = options;
  const timeZone = config?.company.timezone ?? 'UTC';
  const nowSeconds = unixSeconds(options.now);
  const expected = new Map<string, number>();
  const add = (holds: Record<string, number>) => {
    for (const [id, units] of Object.entries(holds))
      expected.set(id, (expected.get(id) ?? 0) + Number(units));
  };
  for (const session of snapshot.sessions) if (session.status === 'open') add(session.holds);
  for (const booking of snapshot.bookings) if (!isInactive(booking.status_id)) add(booking.holds);
  for (const block of snapshot.channelBlocks) add({ [counterId(block.itemId, block.slot)]: block.units });

  const used = new Map(
    snapshot.counters.map((counter) => [counterId(counter.itemId, counter.slot), counter.used]),
  );
  const ids = new Set([...used.keys(), ...expected.keys()]);
  const discrepancies: Discrepancy[] = [];
  for (const id of [...ids].sort()) {
    const { itemId, slot } = parseCounterId(id);
    const item = options.items.find((entry) => entry.item_id === itemId);
    const capacity = item ? capacityOf(item, slot, timeZone) : 0;
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
      session.status === 'open' && Object.keys(session.holds).length > 0 && session.expires_at <= nowSeconds,
  ).length;
  return {
    counters: ids.size,
    discrepancies,
    clientDiscrepancies: reconcileClients(snapshot),
    holderDiscrepancies: config
      ? reconcileHolders(snapshot, { config, all: options.items, now: options.now })
      : [],
    awaitingSweep,
  };
}

/**
 * Checks that every line of an open cart or an active booking holds what its item takes now, counter by
 * counter: a line held while its item was unlimited holds nothing of a counter the item now has.
 */
function reconcileHolders(
  snapshot: HoldingSnapshot,
  options: { config: StoredConfig; all: StoredItem[]; now: number },
): HolderDiscrepancy[] {
  const holders = [
    ...snapshot.sessions
      .filter((session) => session.status === 'open')
      .map((session) => ({ holder: 'session' as const, id: session.id, lines: session.lines })),
    ...snapshot.bookings
      .filter((booking) => !isInactive(booking.status_id))
      .map((booking) => ({
        holder: 'booking' as const,
        id: booking.code ?? booking.id,
        lines: booking.lines,
      })),
  ];
  const found: HolderDiscrepancy[] = [];
  for (const { holder, id, lines } of holders) {
    for (const line of Object.values(lines ?? {})) {
      const holdsNow = holdsNowOf(line, options);
      if (!holdsNow) continue;
      for (const counter of new Set([...Object.keys(line.holds_per_qty), ...Object.keys(holdsNow)])) {
        const holds = (line.holds_per_qty[counter] ?? 0) * line.qty;
        const takes = (holdsNow[counter] ?? 0) * line.qty;
        if (holds === takes) continue;
        found.push({
          kind: takes > holds ? 'takes_more' : 'takes_less',
          holder,
          id,
          line: line.line_id,
          counterId: counter,
          holds,
          takes,
        });
      }
    }
  }
  return found;
}

/**
 * Checks that each client's budget records agree with its open sessions and unpaid bookings: what it holds
 * of each counter is the sum of those sessions' holds and those bookings' counted units, and its set of
 * holding sessions is exactly those holding stock.
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
  // An unpaid customer's booking keeps counting the units its cart held against the client.
  for (const booking of snapshot.bookings) {
    for (const [id, units] of Object.entries(booking.budget?.holds ?? {})) {
      const key = `${booking.budget?.client}\n${id}`;
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
  const unpaidOf = new Map<string, number>();
  for (const booking of snapshot.bookings) {
    if (booking.budget) unpaidOf.set(booking.budget.client, (unpaidOf.get(booking.budget.client) ?? 0) + 1);
  }
  const recordedUnpaid = new Map(snapshot.clientUnpaid.map((entry) => [entry.client, entry.unpaid]));
  for (const client of [...new Set([...unpaidOf.keys(), ...recordedUnpaid.keys()])].sort()) {
    const unpaid = recordedUnpaid.get(client) ?? 0;
    const expected = unpaidOf.get(client) ?? 0;
    if (unpaid !== expected) discrepancies.push({ kind: 'client_unpaid', client, unpaid, expected });
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
