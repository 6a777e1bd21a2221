import { describe, expect, it } from 'vitest';
import { addDays } from '#lib/kernel/dates.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import { withHeldSince } from '#lib/sessions/hold-actions.ts';
import type { StoredSession } from '#lib/sessions/repository.ts';
import {
  isZoneId,
  releaseActionCount,
  releaseFits,
  stayReachOf,
  zonesOfCounter,
  zonesOfHolds,
} from '#lib/sessions/zones.ts';

// Stay zones (review of issue 41, item 2): letting go of an item-date cools the item's dates one stay could
// span with it. The guarantee the cooldown rests on is geometric: two slots within the item's reach always
// share a zone, two slots twice the reach apart never do.

const item = (unit: 'D' | 'N' | 'H', maxLen?: number) => ({
  item_id: 7,
  unit,
  rules: { closed_dates: [], closed_dow: [], ...(maxLen ? { max_len: maxLen } : {}) },
});
const shared = (a: string, b: string, reach: number) =>
  zonesOfCounter(a, reach).filter((zone) => zonesOfCounter(b, reach).includes(zone));

/** Every date from `first` for `count` days. */
const days = (first: string, count: number) => Array.from({ length: count }, (_, at) => addDays(first, at));

describe('stayReachOf', () => {
  it.each([
    ['N', 4, 3],
    ['N', 14, 13],
    ['D', 1, 0],
    ['N', undefined, 47],
    ['D', 400, 47],
    ['H', 3, 2],
    ['H', undefined, 24],
    ['H', 48, 24],
  ] as const)('a %s item of max_len %s reaches %i slots', (unit, maxLen, reach) => {
    expect(stayReachOf(item(unit, maxLen))).toBe(reach);
  });
});

describe('zonesOfCounter', () => {
  it('gives a one-slot item no zone: the item-date cooldown covers its bookings', () => {
    expect(zonesOfCounter('7|20270105', 0)).toEqual([]);
  });

  it('gives each slot a zone of each grid, named for the item, the unit and the size', () => {
    const zones = zonesOfCounter('7|20270105', 3);
    expect(zones).toHaveLength(2);
    expect(zones.every((zone) => zone.startsWith('7~d6') && isZoneId(zone))).toBe(true);
    expect(isZoneId('7|20270105')).toBe(false);
    expect(zonesOfCounter('7|20270105T15Z', 2).every((zone) => zone.startsWith('7~h4'))).toBe(true);
  });

  it.each([1, 2, 3, 13, 47])(
    'puts any two dates within a reach of %i in one zone, and none twice the reach apart',
    (reach) => {
      // Across month and year ends and a leap day.
      const dates = days('20271201', 120);
      for (const [index, date] of dates.entries()) {
        for (let gap = 0; gap <= reach && index + gap < dates.length; gap += 1) {
          expect(shared(`7|${date}`, `7|${dates[index + gap]}`, reach)).not.toEqual([]);
        }
        const far = dates[index + 2 * reach];
        if (far) expect(shared(`7|${date}`, `7|${far}`, reach)).toEqual([]);
      }
    },
  );

  it('shares a zone between touching stays: the last night of one and the first of the next', () => {
    expect(shared('7|20280228', '7|20280229', 1)).not.toEqual([]);
    expect(shared('7|20280229', '7|20280301', 1)).not.toEqual([]);
    expect(shared('7|20271231', '7|20280101', 1)).not.toEqual([]);
  });

  it('counts hours in UTC, across midnight, and never joins an hourly item with a daily one', () => {
    expect(shared('7|20270105T23Z', '7|20270106T00Z', 1)).not.toEqual([]);
    expect(shared('7|20270105T22Z', '7|20270106T00Z', 2)).not.toEqual([]);
    expect(shared('7|20270105T20Z', '7|20270106T00Z', 2)).toEqual([]);
    expect(shared('7|20270105T00Z', '7|20270105', 1)).toEqual([]);
  });

  it('never shares a zone between two items', () => {
    const other = zonesOfCounter('8|20270105', 3);
    expect(zonesOfCounter('7|20270105', 3).some((zone) => other.includes(zone))).toBe(false);
  });
});

describe('zonesOfHolds', () => {
  it('lists the zones of a cart with their counters, none for an item not given or of one slot', () => {
    const zones = zonesOfHolds({ '7|20270105': 1, '7|20270106': 1, '8|20270105': 1, '9|20270105': 2 }, [
      item('N', 4),
      { ...item('D', 1), item_id: 8 },
    ]);
    expect([...zones.keys()].every((zone) => zone.startsWith('7~'))).toBe(true);
    const counters = [...zones.values()].flat();
    expect(new Set(counters)).toEqual(new Set(['7|20270105', '7|20270106']));
    expect(zones.size).toBeGreaterThanOrEqual(2);
    expect(zones.size).toBeLessThanOrEqual(3);
  });
});

describe('releaseFits', () => {
  const holds = (count: number) =>
    Object.fromEntries(days('20270105', count).map((date) => [`7|${date}`, 1]));
  const zones = (count: number) => Object.fromEntries(days('20270105', count).map((date) => [date, 0]));

  it('counts two actions per item-date, one per zone, the session and its client set', () => {
    expect(releaseActionCount({ holds: holds(3), zones: zones(2) })).toBe(10);
    expect(releaseActionCount({ holds: holds(3) })).toBe(8);
  });

  it('lets a cart hold exactly what one transaction of 100 actions lets go of, and no more', () => {
    expect(releaseFits({ holds: holds(48), zones: zones(2) })).toBe(true);
    expect(releaseFits({ holds: holds(48), zones: zones(3) })).toBe(false);
    expect(releaseFits({ holds: holds(47), zones: zones(4) })).toBe(true);
  });
});

describe('withHeldSince: the zones a cart records', () => {
  const cart = (holds: string[], zones?: Record<string, number>): StoredSession => ({
    id: 'cart',
    status: 'open',
    version: 1,
    created_at: 0,
    updated_at: 0,
    expires_at: 0,
    next_line: 1,
    lines: {},
    holds: Object.fromEntries(holds.map((date) => [`7|${date}`, 1])),
    client: '203.0.113.9',
    ...(zones ? { zones } : {}),
  });
  const zonesOf = (session: StoredSession) => zonesOfHolds(session.holds, [item('N', 4)]);
  const change = (before: StoredSession, after: StoredSession) =>
    withHeldSince(before, after, { periods: new Map(), nowSeconds: 500, zones: zonesOf(after) });

  it('enters a zone by holding a date in it anew, and keeps since when it held the zones it keeps', () => {
    const before = cart(['20270105']);
    const first = change(cart([]), before);
    expect(Object.values(first.zones ?? {})).toEqual([500, 500]);
    const moved = change(
      { ...first, zones: Object.fromEntries(Object.keys(first.zones ?? {}).map((id) => [id, 100])) },
      cart(['20270105', '20270120']),
    );
    const kept = Object.entries(moved.zones ?? {}).filter(([, since]) => since === 100);
    expect(kept).toHaveLength(2);
    expect(Object.keys(moved.zones ?? {})).toHaveLength(4);
  });

  it('starts no zone for a change that adds no date: a cart from before stay zones lets go as it did', () => {
    const legacy = cart(['20270105', '20270106', '20270107']);
    expect(change(legacy, cart(['20270105', '20270106'])).zones).toBeUndefined();
    expect(change(legacy, cart([])).zones).toBeUndefined();
  });

  it('refuses to add a date when the cart could no longer be let go of in one transaction', () => {
    const run = (count: number) => days('20270105', count);
    // A long run of an item without max_len (reach 47) lies in three zones: 47 days fit, 48 do not.
    const long = (session: StoredSession) => zonesOfHolds(session.holds, [item('N')]);
    const add = (count: number) =>
      withHeldSince(cart([]), cart(run(count)), {
        periods: new Map(),
        nowSeconds: 0,
        zones: long(cart(run(count))),
      });
    expect(Object.keys(add(47).zones ?? {})).toHaveLength(3);
    expect(() => add(48)).toThrow(DomainError);
    expect(() => add(48)).toThrow(/Your cart is full/);
  });
});
