import { describe, expect, it } from 'vitest';
import { partsOf } from '#lib/catalog/catalog.ts';
import { quantitiesFor, unitsFor } from '#lib/catalog/rate-item.ts';
import type { StoredItem } from '#lib/config/model.ts';
import {
  clientAllowance,
  cooldownUntil,
  heldSinceOf,
  isHolding,
  powReserve,
  reholdCooldownOf,
  reholdCooldownSeconds,
} from '#lib/sessions/budgets.ts';
import { holdsOf, lineHolds, totalHolds } from '#lib/sessions/line-holds.ts';
import type { SessionLine, SessionStatus, StoredSession } from '#lib/sessions/repository.ts';
import type { SlipPayload } from '#lib/slip/codec.ts';
import { capacityOf } from '#lib/stock/capacity.ts';
import { makeTenantItem, NOW, rate } from '#test/support/rating.ts';
import { makeCatalog } from '#test/support/tenant.ts';

// Stock rules without DynamoDB (issue 11, point 4): units per line, holds per counter, capacity and the
// client's share of it.

const line = (qty: number, holds: Record<string, number>) => ({ qty, holds_per_qty: holds }) as SessionLine;

const catalogOf = (...items: Record<string, unknown>[]): StoredItem[] => makeCatalog(...items);

const catalog = catalogOf(
  { item_id: 1, sku: 'kayak', unit: 'D', stock: 10 },
  {
    item_id: 2,
    sku: 'cabin',
    unit: 'N',
    stock: 4,
    params: { adults: { price: '60.00', def: 2 }, children: { price: '25.00' } },
  },
  {
    item_id: 3,
    sku: 'tour',
    stock: 12,
    params: {
      adults: { price: '65.00', counts_stock: true, def: 1 },
      children: { price: '35.00', counts_stock: true },
      qty: { price: '5.00' },
    },
  },
  { item_id: 4, sku: 'hamper', unlimited: true, stock: 50, params: { adults: { price: '18.00' } } },
  {
    item_id: 5,
    sku: 'board',
    unit: 'H',
    stock: 6,
    hours: { open: '08:00', close: '20:00' },
    params: { qty: { price: '20.00', counts_stock: true, def: 1 } },
  },
  { item_id: 6, sku: 'bike', stock: 8, params: { adults: { price: '35.00', counts_stock: true } } },
  { item_id: 8, sku: 'guide', stock: 3, params: { adults: { price: '0.00' } } },
  {
    item_id: 7,
    sku: 'day-pack',
    stock: 5,
    params: { adults: { price: '0.00', def: 1 } },
    price: { item: '5.00' },
    package: {
      items: [
        { item_id: 3, qty: 2 },
        { item_id: 8, qty: 1 },
        { item_id: 4, qty: 1 },
        { item_id: 6, qty: 1, optional: true },
      ],
    },
  },
);

const itemNamed = (sku: string): StoredItem => {
  const item = catalog.find((entry) => entry.sku === sku);
  if (!item) throw new Error(`no item ${sku}`);
  return item;
};

type LineRequest = Pick<SlipPayload, 'start' | 'params'> & Partial<SlipPayload>;

/** What one line of an item holds per unit of its qty, rated as the cart rates it (nothing used). */
const holdsFor = (sku: string, request: LineRequest): Record<string, number> => {
  const item = itemNamed(sku);
  const payload: SlipPayload = {
    tenant: 'test',
    itemId: item.item_id,
    end: request.start,
    expiresAt: Math.floor(NOW / 1000) + 3600,
    ...request,
  };
  const rated = rate(item, payload, { parts: partsOf(item, catalog) });
  return holdsOf(item, rated, payload, catalog);
};

const sessionWith = (status: SessionStatus, holds: Record<string, number>): StoredSession => ({
  id: 'session-0000000000000',
  status,
  version: 1,
  created_at: NOW,
  updated_at: NOW,
  expires_at: Math.floor(NOW / 1000) + 900,
  next_line: 2,
  lines: {},
  holds,
});

describe('units per line', () => {
  it.each([
    ['no parameter counts: 2 adults and 1 child', 'cabin', { adults: 2, children: 1 }, 1],
    ['no parameter counts, even at zero quantities', 'cabin', { adults: 0, children: 0 }, 1],
    ['one counting parameter', 'kayak', { qty: 3 }, 3],
    ['one counting parameter at zero', 'kayak', { qty: 0 }, 0],
    ['one counting parameter at its default when not sent', 'kayak', {}, 1],
    [
      'two counting parameters summed, the non-counting one ignored',
      'tour',
      { adults: 2, children: 1, qty: 4 },
      3,
    ],
    ['two counting parameters, one at zero', 'tour', { adults: 0, children: 2 }, 2],
    ['two counting parameters, both at zero', 'tour', { adults: 0, children: 0 }, 0],
    ['a counting parameter at its default, the other at zero', 'tour', { children: 0 }, 1],
  ])('takes the units of %s (%s %o): %i', (_case, sku, requested, units) => {
    const item = itemNamed(sku);
    expect(unitsFor(item, quantitiesFor(item, requested))).toBe(units);
  });
});

describe('holds of a line', () => {
  it.each([
    [
      'a counting qty on each day of a daily span',
      'kayak',
      { start: '20270110', end: '20270111', params: { qty: 3 } },
      { '1|20270110': 3, '1|20270111': 3 },
    ],
    ['no counter when its counting quantity is zero', 'kayak', { start: '20270110', params: { qty: 0 } }, {}],
    [
      'one unit per night whatever the guests when nothing counts',
      'cabin',
      { start: '20270110', end: '20270112', params: { adults: 2, children: 1 } },
      { '2|20270110': 1, '2|20270111': 1 },
    ],
    [
      'a seat per person',
      'tour',
      { start: '20270110', params: { adults: 2, children: 1, qty: 4 } },
      { '3|20270110': 3 },
    ],
    [
      'no counter when every counting quantity is zero',
      'tour',
      { start: '20270110', params: { adults: 0, children: 0 } },
      {},
    ],
    ['no counter for an unlimited item', 'hamper', { start: '20270110', params: { adults: 3 } }, {}],
    [
      'one counter per UTC hour of an hourly span',
      'board',
      // 10:00 to 13:00 in Toronto in January (UTC-5).
      { start: '20270110', startTime: 600, endTime: 780, params: { qty: 2 } },
      { '5|20270110T15Z': 2, '5|20270110T16Z': 2, '5|20270110T17Z': 2 },
    ],
    [
      'its own counter and its required parts times units per package, not an unlimited part',
      'day-pack',
      { start: '20270110', params: { adults: 2 } },
      // tour: 2 per package × 2 adults; guide: 1 per package × 1 (nothing counts).
      { '7|20270110': 1, '3|20270110': 4, '8|20270110': 1 },
    ],
    [
      'an opted-in optional part times its units',
      'day-pack',
      { start: '20270110', params: { adults: 2 }, optIn: [6] },
      { '7|20270110': 1, '3|20270110': 4, '8|20270110': 1, '6|20270110': 2 },
    ],
    [
      'no counter for a part whose counting quantities are zero',
      'day-pack',
      { start: '20270110', params: { adults: 0 }, optIn: [6] },
      { '7|20270110': 1, '8|20270110': 1 },
    ],
  ])('holds %s', (_case, sku, request: LineRequest, holds) => {
    expect(holdsFor(sku, request)).toEqual(holds);
  });

  it.each([
    [1, { '1|20270101': 2, '2|20270101': 1 }, { '1|20270101': 2, '2|20270101': 1 }],
    [3, { '1|20270101': 2, '2|20270101': 1 }, { '1|20270101': 6, '2|20270101': 3 }],
    [99, { '1|20270101': 1 }, { '1|20270101': 99 }],
    [2, {}, {}],
  ])('multiplies the holds per qty by a qty of %i', (qty, perQty, holds) => {
    expect(lineHolds(line(qty, perQty))).toEqual(holds);
  });

  it.each([
    ['no lines', {}, {}],
    [
      'lines on different counters',
      { 1: line(2, { '1|20270101': 1 }), 2: line(1, { '2|20270101': 3 }) },
      { '1|20270101': 2, '2|20270101': 3 },
    ],
    [
      'two lines sharing a counter',
      { 1: line(2, { '1|20270101': 1 }), 2: line(1, { '1|20270101': 3, '1|20270102': 1 }) },
      { '1|20270101': 5, '1|20270102': 1 },
    ],
  ])('sums the holds of %s per counter', (_case, lines: Record<string, SessionLine>, total) => {
    expect(totalHolds(lines)).toEqual(total);
  });

  it('sums a package line and a line of its part on the part counter', () => {
    const packageLine = line(1, holdsFor('day-pack', { start: '20270110', params: { adults: 2 } }));
    const tourLine = line(2, holdsFor('tour', { start: '20270110', params: { adults: 2 } }));
    // tour: 4 from the package, 2 seats × qty 2 from its own line.
    expect(totalHolds({ 1: packageLine, 2: tourLine })).toEqual({
      '7|20270110': 1,
      '8|20270110': 1,
      '3|20270110': 8,
    });
  });
});

describe('capacity of a counter', () => {
  const item = makeTenantItem({
    item_id: 1,
    stock: 4,
    stock_overrides: { '20270102': 1, '20270105': 0, '20270701': 2 },
  });

  it.each([
    ['a date without override: the stock', '20270101', 'America/Toronto', 4],
    ['a date with an override: the override', '20270102', 'America/Toronto', 1],
    ['a date overridden to zero: zero, not the stock', '20270105', 'America/Toronto', 0],
    ['23:00 EST on the 2nd: the 2nd', '20270103T04Z', 'America/Toronto', 1],
    ['midnight EST on the 3rd: the 3rd', '20270103T05Z', 'America/Toronto', 4],
    ['23:00 EST on a date overridden to zero', '20270106T04Z', 'America/Toronto', 0],
    ['23:00 EDT on 1 July: 1 July', '20270702T03Z', 'America/Toronto', 2],
    ['midnight EDT on 2 July: 2 July', '20270702T04Z', 'America/Toronto', 4],
    ['midnight in Tokyo on the 2nd: the 2nd', '20270101T15Z', 'Asia/Tokyo', 1],
    ['23:00 in Tokyo on the 1st: the 1st', '20270101T14Z', 'Asia/Tokyo', 4],
  ])('reads the capacity of %s (%s in %s): %i', (_case, slot, timeZone, capacity) => {
    expect(capacityOf(item, slot, timeZone)).toBe(capacity);
  });
});

describe('client allowance', () => {
  it.each([
    [10, 0.5, 5],
    [9, 0.5, 4],
    [4, 0.5, 2],
    [3, 0.5, 1],
    [2, 0.5, 1],
    [1, 0.5, 1],
    [0, 0.5, 1],
    [3, 1, 3],
    [100, 1, 100],
    [1, 1, 1],
    [0, 1, 1],
    [8, 0.25, 2],
    [7, 0.25, 1],
    [20, 0.1, 2],
    [19, 0.1, 1],
    [10, 0.7, 7],
    [100, 0.29, 29],
    [100, 0.57, 57],
    [100_000, 0.33, 33_000],
    [10, 0, 1],
    [0, 0, 1],
  ])('lets a client hold of a capacity of %i at a share of %f at most %i', (capacity, share, allowed) => {
    expect(clientAllowance(capacity, share)).toBe(allowed);
  });
});

describe('the proof-of-work reserve', () => {
  it.each([
    [10, 0.25, 3],
    [8, 0.25, 2],
    [4, 0.5, 2],
    [1, 0.5, 1],
    [1, 1, 1],
    [0, 0.5, 0],
    [100, 0.29, 29],
    [100, 0.57, 57],
    [3, 0.34, 2],
  ])(
    'keeps of a capacity of %i at a share of %f the last %i for solved holds',
    (capacity, share, reserve) => {
      expect(powReserve(capacity, share)).toBe(reserve);
    },
  );
});

describe('the re-hold cooldown', () => {
  it.each([
    [15, undefined, 1800],
    [0.1, undefined, 12],
    [15, 0, 0],
    [15, 5, 300],
    [15, 0.25, 15],
    [30, 1440, 86_400],
  ])('with holds of %f minutes and a setting of %s lasts %i seconds', (hold, setting, seconds) => {
    expect(reholdCooldownSeconds({ hold_minutes: hold, limits: { rehold_cooldown_minutes: setting } })).toBe(
      seconds,
    );
  });
});

describe('the re-hold cooldown after a hold of some length', () => {
  const FROM = 1_800_000_000;
  const defaults = reholdCooldownOf({ hold_minutes: 15, limits: {} });
  it.each([
    ['nothing', 0, 1800],
    ['a minute', 60, 1800],
    ['one hold time', 900, 1800],
    ['a second past one hold time', 901, 1802],
    ['a cart kept alive for its lifetime', 3600, 7200],
    ['two carts one after the other, overlapping', 6600, 13_200],
  ])('after %s held (%i s) lasts %i s with the defaults', (_, held, seconds) => {
    expect(cooldownUntil(defaults, { since: FROM - held, from: FROM })).toBe(FROM + seconds);
  });

  it('never runs back: a hold that began after it was let go counts nothing', () => {
    expect(cooldownUntil(defaults, { since: FROM + 60, from: FROM })).toBe(FROM + 1800);
  });

  it.each([
    [15, undefined, 1800, 2],
    [15, 15, 900, 1],
    [15, 60, 3600, 4],
    [0.1, undefined, 12, 2],
    [15, 0, 0, 0],
  ])(
    'with holds of %f minutes and a setting of %s is %i s, %f s per second held',
    (hold, setting, seconds, per) => {
      expect(reholdCooldownOf({ hold_minutes: hold, limits: { rehold_cooldown_minutes: setting } })).toEqual({
        seconds,
        perHeldSecond: per,
      });
    },
  );

  it('keeps a client at most hold / (hold + cooldown) of the time, however long it holds', () => {
    for (const held of [1, 60, 900, 901, 1800, 3600, 86_400]) {
      const waits = cooldownUntil(defaults, { since: FROM - held, from: FROM }) - FROM;
      expect(held / (held + waits)).toBeLessThanOrEqual(1 / 3 + 1e-9);
    }
  });

  it('counts a session from when it first held a counter, else from its first hold', () => {
    const session = { ...sessionWith('open', { '1|20270110': 1 }), first_held_at: (FROM - 600) * 1000 };
    expect(heldSinceOf({ ...session, held_since: { '1|20270110': FROM - 60 } }, '1|20270110', FROM)).toBe(
      FROM - 60,
    );
    expect(heldSinceOf(session, '1|20270110', FROM)).toBe(FROM - 600);
    expect(heldSinceOf(sessionWith('open', {}), '1|20270110', FROM)).toBe(FROM);
  });
});

describe('holding sessions', () => {
  it.each([
    ['open', { '1|20270110': 1 }, true],
    ['open', { '1|20270110': 1, '2|20270110': 3 }, true],
    ['open', {}, false],
    ['ended', { '1|20270110': 1 }, false],
    ['expired', { '1|20270110': 1 }, false],
    ['booked', { '1|20270110': 1 }, false],
  ] as const)('says whether a session %s with holds %o holds stock: %s', (status, holds, holding) => {
    expect(isHolding(sessionWith(status, holds))).toBe(holding);
  });
});
