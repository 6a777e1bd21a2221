import { describe, expect, it } from 'vitest';
import type { StoredConfig } from '#lib/config/model.ts';
import { reconcile, reconcileClients } from '#lib/housekeeping/reconcile.ts';
import { sweepMinutes } from '#lib/housekeeping/sweep.ts';
import { makeTenantItem } from '#test/support/rating.ts';

const items = [
  makeTenantItem({ item_id: 1, stock: 3 }),
  makeTenantItem({ item_id: 2, sku: 'two', stock: 5, unlimited: true }),
];
const options = {
  items,
  config: { company: { timezone: 'America/Toronto' } } as StoredConfig,
  now: 1_000_000,
};

describe('reconcile', () => {
  it('finds nothing when used equals live holds plus active bookings', () => {
    const report = reconcile(
      {
        counters: [{ itemId: 1, slot: '20270110', used: 3 }],
        sessions: [
          { id: 'a', status: 'open', expires_at: 2_000, holds: { '1|20270110': 1 } },
          { id: 'b', status: 'ended', expires_at: 2_000, holds: { '1|20270110': 5 } },
        ],
        channelBlocks: [],
        clientHolds: [],
        clientSessions: [],
        clientUnpaid: [],
        bookings: [
          { id: 'x', status_id: 'PAID', holds: { '1|20270110': 2 } },
          { id: 'y', status_id: 'VOID', holds: { '1|20270110': 4 } },
        ],
      },
      options,
    );
    expect(report).toEqual({
      counters: 1,
      discrepancies: [],
      clientDiscrepancies: [],
      holderDiscrepancies: [],
      awaitingSweep: 0,
    });
  });

  it('counts channel blocks as taken: used = holds + bookings + blocks, and a lost block is corruption', () => {
    const snapshot = (used: number) => ({
      counters: [{ itemId: 1, slot: '20270110', used }],
      sessions: [{ id: 'a', status: 'open', expires_at: 2_000, holds: { '1|20270110': 1 } }],
      channelBlocks: [{ channelId: 'airbnb', itemId: 1, slot: '20270110', units: 1 }],
      clientHolds: [],
      clientSessions: [],
      clientUnpaid: [],
      bookings: [{ id: 'x', status_id: 'PAID', holds: { '1|20270110': 1 } }],
    });
    expect(reconcile(snapshot(3), options).discrepancies).toEqual([]);
    expect(reconcile(snapshot(2), options).discrepancies).toEqual([
      { itemId: 1, slot: '20270110', used: 2, expected: 3, capacity: 3, kind: 'corrupt' },
    ]);
  });

  it('proves each client budget against its open sessions', () => {
    const holding = (id: string, client: string, holds: Record<string, number>, status = 'open') => ({
      id,
      status,
      expires_at: 2_000,
      holds,
      client,
    });
    const snapshot = {
      counters: [],
      bookings: [],
      channelBlocks: [],
      sessions: [
        holding('a', 'c1', { '1|20270110': 1, '1|20270111': 1 }),
        holding('b', 'c1', { '1|20270110': 1 }),
        holding('c', 'c1', { '1|20270110': 3 }, 'booked'),
        holding('d', 'c2', {}),
      ],
      clientHolds: [
        { client: 'c1', counterId: '1|20270110', held: 2 },
        { client: 'c1', counterId: '1|20270111', held: 0 },
        { client: 'c2', counterId: '1|20270110', held: 0 },
      ],
      clientSessions: [
        { client: 'c1', sessions: ['b', 'a'] },
        { client: 'c2', sessions: ['d'] },
      ],
      clientUnpaid: [{ client: 'c3', unpaid: 2 }],
    };
    expect(reconcileClients(snapshot)).toEqual([
      { kind: 'client_hold', client: 'c1', counterId: '1|20270111', held: 0, expected: 1 },
      { kind: 'client_unpaid', client: 'c3', unpaid: 2, expected: 0 },
      { kind: 'client_sessions', client: 'c2', sessions: ['d'], expected: [] },
    ]);
  });

  it('tells corruption from over-capacity after a lowered stock', () => {
    const report = reconcile(
      {
        counters: [
          { itemId: 1, slot: '20270110', used: 2 },
          { itemId: 1, slot: '20270111', used: 4 },
        ],
        sessions: [
          {
            id: 'a',
            status: 'open',
            expires_at: 500,
            holds: { '1|20270110': 1, '1|20270111': 4, '1|20270112': 1 },
          },
        ],
        channelBlocks: [],
        clientHolds: [],
        clientSessions: [],
        clientUnpaid: [],
        bookings: [],
      },
      options,
    );
    expect(report.discrepancies).toEqual([
      { itemId: 1, slot: '20270110', used: 2, expected: 1, capacity: 3, kind: 'corrupt' },
      { itemId: 1, slot: '20270111', used: 4, expected: 4, capacity: 3, kind: 'over_capacity' },
      { itemId: 1, slot: '20270112', used: 0, expected: 1, capacity: 3, kind: 'corrupt' },
    ]);
    expect(report.awaitingSweep).toBe(1);
  });
});

describe('sweepMinutes', () => {
  it('reads the last hour on a first run, up to the current minute', () => {
    const minutes = sweepMinutes(7_200 + 30);
    expect(minutes[0]).toBe(3_600);
    expect(minutes.at(-1)).toBe(7_200);
    expect(minutes).toHaveLength(61);
  });

  it('continues from where the last sweep stopped, never more than a day back', () => {
    expect(sweepMinutes(10_000, 9_840)).toEqual([9_840, 9_900, 9_960]);
    expect(sweepMinutes(200_000, 0)).toHaveLength(24 * 60 + 1);
  });
});
