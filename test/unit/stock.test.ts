import { describe, expect, it } from 'vitest';
import type { SessionLine } from '#lib/db/session-repository.ts';
import { capacityOf, clientAllowance, lineHolds, totalHolds } from '#lib/domain/stock.ts';
import { makeTenantItem } from '#test/support/rating.ts';

const line = (qty: number, holds: Record<string, number>) => ({ qty, holds_per_qty: holds }) as SessionLine;

describe('stock rules', () => {
  it.each([
    [10, 0.5, 5],
    [9, 0.5, 4],
    [1, 0.5, 1],
    [0, 0.5, 1],
    [3, 1, 3],
    [7, 0.25, 1],
  ])('lets a client hold at most floor(%i × %f), at least one: %i', (capacity, share, allowed) => {
    expect(clientAllowance(capacity, share)).toBe(allowed);
  });

  it('multiplies a line holds by its qty and sums the lines per counter', () => {
    expect(lineHolds(line(3, { '1|20270101': 2, '2|20270101': 1 }))).toEqual({
      '1|20270101': 6,
      '2|20270101': 3,
    });
    expect(
      totalHolds({ 1: line(2, { '1|20270101': 1 }), 2: line(1, { '1|20270101': 3, '1|20270102': 1 }) }),
    ).toEqual({ '1|20270101': 5, '1|20270102': 1 });
    expect(totalHolds({})).toEqual({});
  });

  it('reads the capacity of a date from its override, else the stock, and of a UTC hour from its local date', () => {
    const item = makeTenantItem({ item_id: 1, stock: 4, stock_overrides: { '20270102': 1 } });
    expect(capacityOf(item, '20270101', 'America/Toronto')).toBe(4);
    expect(capacityOf(item, '20270102', 'America/Toronto')).toBe(1);
    // 03:00 UTC on the 3rd is still the 2nd in Toronto.
    expect(capacityOf(item, '20270103T03Z', 'America/Toronto')).toBe(1);
    expect(capacityOf(item, '20270103T06Z', 'America/Toronto')).toBe(4);
  });
});
