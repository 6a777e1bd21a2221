import { describe, expect, it } from 'vitest';
import { parseTenant } from '#lib/config/tenant-schema.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';

// `policy.cancellation` and an item's `cancellation` in the tenant file (issue 44), checked as the tenant
// loader checks every file: each problem named by its path, in words that say what is wanted.

const GOOD = {
  refunds: [
    { before: { days: 14 }, percent: 100 },
    { before: { hours: 48 }, percent: 50 },
  ],
  fee: 2_500,
  deposit_refundable: false,
  cutoff: { hours: 24 },
  staff_override: true,
};

const problemsOf = (cancellation: unknown, where: 'tenant' | 'item' = 'tenant') => {
  const result = parseTenant(
    where === 'tenant'
      ? makeTenantJson({ policy: { body: 'Terms', cancellation } })
      : makeTenantJson({ items: [makeItem({ cancellation })] }),
  );
  if (result.ok) return [];
  return result.problems.map((problem) => `${problem.path}: ${problem.message}`);
};

describe('a cancellation policy in the tenant file', () => {
  it('is accepted for the tenant and for an item, with defaults filled in, and is optional', () => {
    const result = parseTenant(
      makeTenantJson({
        policy: { cancellation: GOOD },
        items: [makeItem({ cancellation: { refunds: [{ before: { hours: 2 }, percent: 100 }] } })],
      }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.tenant.policy.cancellation).toEqual(GOOD);
    expect(result.tenant.items[0]?.cancellation).toEqual({
      refunds: [{ before: { hours: 2 }, percent: 100 }],
      fee: 0,
      deposit_refundable: true,
      staff_override: false,
    });
    const bare = parseTenant(makeTenantJson());
    if (!bare.ok) throw new Error('invalid bare tenant');
    expect(bare.tenant.policy.cancellation).toBeUndefined();
    expect(bare.tenant.items[0]?.cancellation).toBeUndefined();
  });

  it('refuses two tiers of the same length, written alike or not', () => {
    expect(
      problemsOf({
        refunds: [
          { before: { days: 2 }, percent: 100 },
          { before: { hours: 48 }, percent: 50 },
          { before: { days: 2 }, percent: 50 },
        ],
      }),
    ).toEqual([
      'policy.cancellation.refunds[1].before: 48 hours is the length of tier 0 already: one tier per length',
      'policy.cancellation.refunds[2].before: 2 days is the length of tier 0 already: one tier per length',
    ]);
  });

  it('refuses a percent above 100, both days and hours, more than 10 tiers and a negative fee', () => {
    expect(problemsOf({ refunds: [{ before: { days: 1 }, percent: 101 }] })).toEqual([
      'policy.cancellation.refunds[0].percent: a percent from 0 to 100',
    ]);
    expect(problemsOf({ refunds: [{ before: { days: 1, hours: 3 }, percent: 50 }] })).toEqual([
      'policy.cancellation.refunds[0].before: exactly one of days or hours',
    ]);
    expect(problemsOf({ refunds: [], cutoff: {} })).toEqual([
      'policy.cancellation.cutoff: exactly one of days or hours',
    ]);
    const eleven = Array.from({ length: 11 }, (_, index) => ({ before: { days: 11 - index }, percent: 50 }));
    expect(problemsOf({ refunds: eleven })).toEqual(['policy.cancellation.refunds: at most 10 tiers']);
    expect(problemsOf({ refunds: [], fee: -1 })).toEqual(['policy.cancellation.fee: minor units, 0 or more']);
    expect(problemsOf({ refunds: [], fee: 12.5 })).toEqual([
      'policy.cancellation.fee: minor units, a whole number',
    ]);
  });

  it('refuses lengths past two years, and a shorter tier that gives back more than a longer one', () => {
    expect(
      problemsOf({ refunds: [{ before: { days: 731 }, percent: 50 }], cutoff: { hours: 17_521 } }),
    ).toEqual([
      'policy.cancellation.refunds[0].before.days: at most 730 days',
      'policy.cancellation.cutoff.hours: at most 17520 hours',
    ]);
    expect(
      problemsOf({
        refunds: [
          { before: { hours: 48 }, percent: 80 },
          { before: { days: 14 }, percent: 50 },
        ],
      }),
    ).toEqual([
      'policy.cancellation.refunds[0].percent: 80% 48 hours before is more than the 50% of the longer tier (14 days)',
    ]);
  });

  it("checks an item's own policy the same way, and refuses unknown keys", () => {
    expect(problemsOf({ refunds: [{ before: { days: 1 }, percent: 101 }] }, 'item')).toEqual([
      'items[0].cancellation.refunds[0].percent: a percent from 0 to 100',
    ]);
    expect(problemsOf({ refunds: [], deposit: false })).toEqual([
      'policy.cancellation: Unrecognized key: "deposit"',
    ]);
  });
});
