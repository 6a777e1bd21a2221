import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CancellationSnapshot,
  deadlineOf,
  quoteBookingCancellation,
  quoteCancellation,
  resolveCancellation,
  startOfLines,
} from '#lib/bookings/cancellation.ts';
import { cancellationSchema } from '#lib/config/cancellation-schema.ts';
import type { StoredConfig } from '#lib/config/index.ts';
import { localInstant } from '#lib/kernel/dates.ts';
import type { SessionLine } from '#lib/sessions/index.ts';

// The quote of a cancellation (issue 44): tiers at their boundaries, fee, deposit, mixed policies, cutoff
// and a start across a change of clocks. Money in minor units; instants in ms.

const ZONE = 'America/Toronto';
const SECOND = 1_000;
const HOUR = 3_600_000;

const policyOf = (raw: Record<string, unknown>) => cancellationSchema.parse(raw);

/** 14 days or more: all back; 48 hours or more: half; later: nothing. */
const TYPICAL = policyOf({
  refunds: [
    { before: { days: 14 }, percent: 100 },
    { before: { hours: 48 }, percent: 50 },
  ],
});

const lineOf = (overrides: Partial<SessionLine> = {}) =>
  ({
    line_id: '1',
    item_id: 1,
    unit: 'N',
    start_date: '20270715',
    payload: { tenant: 't', itemId: 1, start: '20270715', end: '20270718', params: {}, expiresAt: 0 },
    ...overrides,
  }) as SessionLine;

const single = (policy = TYPICAL, lines = ['1']): CancellationSnapshot => ({ policies: [{ policy, lines }] });

const START = localInstant('20270715', 0, ZONE);

const quote = (overrides: Partial<Parameters<typeof quoteCancellation>[0]> = {}) =>
  quoteCancellation({
    snapshot: single(),
    lineTotals: { '1': 40_000 },
    start: START,
    paid: 40_000,
    deposit: 0,
    now: START - 30 * 24 * HOUR,
    timeZone: ZONE,
    ...overrides,
  });

describe('the quote of a cancellation', () => {
  it('gives all back exactly 14 days before the start, half one second later, and nothing after 48 hours', () => {
    const fourteenDays = localInstant('20270701', 0, ZONE);
    const fortyEight = START - 48 * HOUR;
    expect(quote({ now: fourteenDays })).toMatchObject({ refund: 40_000, parts: [{ percent: 100 }] });
    expect(quote({ now: fourteenDays + SECOND })).toMatchObject({
      refund: 20_000,
      parts: [{ percent: 50, tier: { before: { hours: 48 }, percent: 50 } }],
    });
    expect(quote({ now: fortyEight })).toMatchObject({ refund: 20_000, parts: [{ percent: 50 }] });
    const late = quote({ now: fortyEight + SECOND });
    expect(late).toMatchObject({ refund: 0, parts: [{ percent: 0 }] });
    expect(late.parts[0]?.tier).toBeUndefined();
  });

  it('keeps the fee once from what the tier gives back, and gives nothing back when the fee is larger', () => {
    const withFee = single(policyOf({ ...TYPICAL, fee: 2_500 }));
    expect(quote({ snapshot: withFee })).toMatchObject({ refund: 37_500, fee: 2_500 });
    const bigFee = single(policyOf({ ...TYPICAL, fee: 25_000 }));
    // Half of 400.00 is 200.00, less a 250.00 fee: nothing, and never less than nothing.
    expect(quote({ snapshot: bigFee, now: START - 3 * 24 * HOUR })).toMatchObject({ refund: 0, fee: 20_000 });
  });

  it('keeps the deposit of a booking paid by one when the policy says so, and only then', () => {
    const keeps = single(policyOf({ ...TYPICAL, deposit_refundable: false }));
    expect(quote({ snapshot: keeps, deposit: 12_000 })).toMatchObject({
      refund: 28_000,
      deposit_kept: 12_000,
    });
    // Half of what was paid beyond the deposit.
    expect(quote({ snapshot: keeps, deposit: 12_000, now: START - 3 * 24 * HOUR })).toMatchObject({
      refund: 14_000,
    });
    // Only the deposit was paid: it is all kept.
    expect(quote({ snapshot: keeps, deposit: 12_000, paid: 12_000 })).toMatchObject({
      refund: 0,
      deposit_kept: 12_000,
    });
    expect(quote({ deposit: 12_000 })).toMatchObject({ refund: 40_000, deposit_kept: 0 });
  });

  it('never gives back more than was paid, nor less than nothing, whatever the policy, payment and time', () => {
    const tier = fc.record({
      before: fc.oneof(
        fc.record({ days: fc.integer({ min: 0, max: 730 }) }),
        fc.record({ hours: fc.integer({ min: 0, max: 17_520 }) }),
      ),
      percent: fc.integer({ min: 0, max: 100 }),
    });
    fc.assert(
      fc.property(
        fc.array(tier, { maxLength: 4 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: -800 * 24, max: 24 }),
        (refunds, fee, totals, paid, deposit, hoursBefore) => {
          const policy = { refunds, fee, deposit_refundable: deposit % 2 === 0, staff_override: false };
          const lines = totals.map((_, index) => String(index + 1));
          const result = quote({
            snapshot: { policies: [{ policy, lines: lines.slice(0, 1) }], uncovered: lines.slice(1) },
            lineTotals: Object.fromEntries(lines.map((line, index) => [line, totals[index] ?? 0])),
            paid,
            deposit,
            now: START + hoursBefore * HOUR,
          });
          expect(result.refund).toBeGreaterThanOrEqual(0);
          expect(result.refund).toBeLessThanOrEqual(paid);
          expect(Number.isInteger(result.refund)).toBe(true);
          expect(result.parts.reduce((sum, part) => sum + part.paid, 0)).toBe(paid);
        },
      ),
    );
  });

  it('shares what was paid among per-item policies pro rata to their lines, each with its own tier, rounding down once', () => {
    const strict = policyOf({ refunds: [{ before: { days: 30 }, percent: 50 }], fee: 500 });
    const lenient = policyOf({ refunds: [{ before: { days: 1 }, percent: 100 }], fee: 1_000 });
    const snapshot = {
      policies: [
        { policy: strict, lines: ['1'] },
        { policy: lenient, lines: ['2', '3'] },
      ],
    };
    // 100.01 paid over 200.00 and 50.00 + 50.00: 66.67 and 33.34 (the units rounding leaves, to the largest).
    const result = quote({
      snapshot,
      lineTotals: { '1': 20_000, '2': 5_000, '3': 5_000 },
      paid: 10_001,
      now: START - 40 * 24 * HOUR,
    });
    expect(result.parts).toEqual([
      { lines: ['1'], paid: 6_667, percent: 50, tier: { before: { days: 30 }, percent: 50 } },
      { lines: ['2', '3'], paid: 3_334, percent: 100, tier: { before: { days: 1 }, percent: 100 } },
    ]);
    // 33.335 + 33.34 = 66.675, down to 66.67; the larger fee once: 56.67.
    expect(result).toMatchObject({ refund: 5_667, fee: 1_000 });
    // Ten days before: the strict policy's share gives nothing back, the lenient one's all of it.
    expect(
      quote({
        snapshot,
        lineTotals: { '1': 20_000, '2': 5_000, '3': 5_000 },
        paid: 10_001,
        now: START - 10 * 24 * HOUR,
      }),
    ).toMatchObject({ refund: 3_334 - 1_000, parts: [{ percent: 0 }, { percent: 100 }] });
  });

  it('gives nothing back for lines no policy covers', () => {
    const result = quote({
      snapshot: { policies: [{ policy: TYPICAL, lines: ['1'] }], uncovered: ['2'] },
      lineTotals: { '1': 30_000, '2': 10_000 },
    });
    expect(result).toMatchObject({
      refund: 30_000,
      parts: [{ paid: 30_000 }, { lines: ['2'], paid: 10_000, percent: 0 }],
    });
  });

  it('closes changes and cancellations at the earliest cutoff of the lines, and not before', () => {
    const day = policyOf({ ...TYPICAL, cutoff: { hours: 24 } });
    const week = policyOf({ refunds: [], cutoff: { days: 7 } });
    const atDay = START - 24 * HOUR;
    expect(quote({ snapshot: single(day), now: atDay })).toMatchObject({
      cutoff_at: atDay,
      cutoff_passed: false,
    });
    expect(quote({ snapshot: single(day), now: atDay + SECOND })).toMatchObject({ cutoff_passed: true });
    const both = {
      policies: [
        { policy: day, lines: ['1'] },
        { policy: week, lines: ['2'] },
      ],
    };
    const atWeek = localInstant('20270708', 0, ZONE);
    expect(quote({ snapshot: both, now: atWeek })).toMatchObject({ cutoff_at: atWeek, cutoff_passed: false });
    expect(quote({ snapshot: both, now: atWeek + SECOND })).toMatchObject({ cutoff_passed: true });
    expect(quote()).toMatchObject({ cutoff_passed: false });
    expect(quote().cutoff_at).toBeUndefined();
  });

  it('counts days as calendar days in the tenant zone across a change of clocks (Toronto, November 2027)', () => {
    // The clocks go back on Sunday 7 November: 14 days before Wednesday 10 November, midnight, is
    // Wednesday 27 October, midnight, 14 days and one hour earlier.
    const start = localInstant('20271110', 0, ZONE);
    const deadline = localInstant('20271027', 0, ZONE);
    expect(start - deadline).toBe(14 * 24 * HOUR + HOUR);
    expect(deadlineOf(start, { days: 14 }, ZONE)).toBe(deadline);
    const at = (now: number) => quote({ start, now }).parts[0]?.percent;
    expect(at(deadline)).toBe(100);
    expect(at(deadline + SECOND)).toBe(50);
    // Hours are hours: 48 of them before the start, whatever the clocks do.
    expect(deadlineOf(start, { hours: 48 }, ZONE)).toBe(start - 48 * HOUR);
    const spring = localInstant('20280315', 0, ZONE);
    expect(spring - deadlineOf(spring, { days: 14 }, ZONE)).toBe(14 * 24 * HOUR - HOUR);
  });
});

describe('the start of a booking', () => {
  it('is the local midnight of its first date, or the first hour of an hourly line that starts first', () => {
    const hourly = lineOf({
      line_id: '2',
      unit: 'H',
      start_date: '20270714',
      payload: { ...lineOf().payload, startTime: 600 },
    });
    expect(startOfLines([lineOf()], ZONE)).toBe(START);
    expect(startOfLines([lineOf(), hourly], ZONE)).toBe(localInstant('20270714', 600, ZONE));
    expect(startOfLines([lineOf({ start_date: '20270714' }), hourly], ZONE)).toBe(
      localInstant('20270714', 0, ZONE),
    );
    expect(startOfLines([], ZONE)).toBeUndefined();
  });
});

describe('the policies of lines', () => {
  const own = policyOf({ refunds: [{ before: { hours: 2 }, percent: 100 }] });

  it("gives each line its item's own policy, else the tenant's, each distinct policy once, tiers longest first", () => {
    const tenant = policyOf({
      refunds: [
        { before: { hours: 48 }, percent: 50 },
        { before: { days: 14 }, percent: 100 },
      ],
    });
    const lines = [lineOf({ line_id: '3', item_id: 2 }), lineOf(), lineOf({ line_id: '2' })];
    expect(resolveCancellation(lines, { tenant, items: new Map([[2, own]]) })).toEqual({
      policies: [
        { policy: { ...tenant, refunds: [...tenant.refunds].reverse() }, lines: ['1', '2'] },
        { policy: own, lines: ['3'] },
      ],
    });
  });

  it('makes one entry of the same policy on two items, whatever the order of its keys', () => {
    const same = { staff_override: false, deposit_refundable: true, fee: 0, refunds: own.refunds };
    const lines = [lineOf(), lineOf({ line_id: '2', item_id: 2 })];
    const items = new Map([
      [1, own],
      [2, same],
    ]);
    expect(resolveCancellation(lines, { tenant: undefined, items })).toEqual({
      policies: [{ policy: own, lines: ['1', '2'] }],
    });
  });

  it('lists the lines no policy covers, and is nothing when none is covered', () => {
    const lines = [lineOf(), lineOf({ line_id: '2', item_id: 2 })];
    expect(resolveCancellation(lines, { tenant: undefined, items: new Map([[2, own]]) })).toEqual({
      policies: [{ policy: own, lines: ['2'] }],
      uncovered: ['1'],
    });
    expect(resolveCancellation(lines, { tenant: undefined, items: new Map() })).toBeUndefined();
  });

  it('quotes a stored booking from its lines, its payment and the policies kept with it', () => {
    const config = {
      company: { timezone: ZONE },
      taxes: [],
      locale: { decimals: 2 },
    } as unknown as StoredConfig;
    const booking = {
      lines: { '1': { ...lineOf(), qty: 1, sub_total: 40_000 } },
      paid_total: 12_000,
      payment: { payment_id: 'p', kind: 'deposit' as const, amount: 12_000, deadline: 0 },
      cancellation_policy: single(policyOf({ ...TYPICAL, deposit_refundable: false })),
    };
    expect(quoteBookingCancellation(booking, { config, now: START - 30 * 24 * HOUR })).toMatchObject({
      refund: 0,
      deposit_kept: 12_000,
    });
    const { cancellation_policy: _, ...older } = booking;
    expect(quoteBookingCancellation(older, { config, now: START })).toBeUndefined();
  });
});
