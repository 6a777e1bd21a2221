import { describe, expect, it } from 'vitest';
import { advanceAttempt } from '#lib/bookings/payment-change.ts';
import type { StoredPaymentAttempt } from '#lib/bookings/payment-records.ts';
import type { PaymentSettings } from '#lib/config/index.ts';
import { settingsSchema } from '#lib/config/settings-schema.ts';
import { checkoutExpiresAt, dueNow, type Payment } from '#lib/payments/index.ts';

// Issue 43: what a booking asks at creation under settings.payment, until when its checkout stays open, the
// settings' own rules, and the forward-only rule of a payment attempt.

const settings = (payment: Record<string, unknown>): PaymentSettings =>
  settingsSchema.parse({ booking_code_prefix: 'TEST', payment }).payment;

describe('settings.payment', () => {
  it('defaults to taking nothing, 30 minutes, automatic capture and VOID at the lapse', () => {
    expect(settingsSchema.parse({ booking_code_prefix: 'TEST' }).payment).toEqual({
      take: 'none',
      pay_within_minutes: 30,
      capture: 'automatic',
      lapse_status: 'VOID',
    });
  });

  it.each([
    [{ take: 'deposit' }, 'deposit'],
    [{ take: 'full', deposit: { percent: 20 } }, 'deposit'],
    [{ take: 'full', capture_days_before_start: 2 }, 'capture_days_before_start'],
    [{ take: 'full', balance_due_days_before_start: 7 }, 'balance_due_days_before_start'],
    [{ take: 'deposit', deposit: { percent: 20, amount: 100 } }, 'deposit'],
    [{ take: 'full', pay_within_minutes: 4 }, 'pay_within_minutes'],
    [{ take: 'full', lapse_status: 'PEND' }, 'lapse_status'],
  ])('refuses %j at %s', (payment, field) => {
    const result = settingsSchema.safeParse({ booking_code_prefix: 'TEST', payment });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(`payment.${field}`);
  });
});

describe('dueNow', () => {
  it.each([
    [{ take: 'none' }, 10_000, undefined],
    [{ take: 'full' }, 10_000, { kind: 'full', amount: 10_000 }],
    [{ take: 'full' }, 0, undefined],
    [{ take: 'deposit', deposit: { percent: 30 } }, 10_000, { kind: 'deposit', amount: 3000 }],
    // Half-up to the minor unit: 33.5 % of 1001 is 335.335.
    [{ take: 'deposit', deposit: { percent: 33.5 } }, 1001, { kind: 'deposit', amount: 335 }],
    [{ take: 'deposit', deposit: { amount: 5000 } }, 10_000, { kind: 'deposit', amount: 5000 }],
    // Never more than the total: a deposit that would cover it all is the full amount.
    [{ take: 'deposit', deposit: { amount: 5000 } }, 4000, { kind: 'full', amount: 4000 }],
    [{ take: 'deposit', deposit: { percent: 100 } }, 4000, { kind: 'full', amount: 4000 }],
    // A percent of a tiny total still asks for at least one minor unit.
    [{ take: 'deposit', deposit: { percent: 1 } }, 10, { kind: 'deposit', amount: 1 }],
  ])('%j of %d is %j', (payment, outstanding, due) => {
    expect(dueNow(settings(payment), outstanding)).toEqual(due);
  });

  // Review of issue 43: never less than the provider's minimum charge (0.50 CAD at Stripe), so never an amount
  // the provider refuses; what is outstanding under the minimum is not asked at booking at all.
  it.each([
    [{ take: 'deposit', deposit: { percent: 1 } }, 4000, { kind: 'deposit', amount: 50 }],
    [{ take: 'deposit', deposit: { percent: 30 } }, 4000, { kind: 'deposit', amount: 1200 }],
    [{ take: 'deposit', deposit: { amount: 10 } }, 4000, { kind: 'deposit', amount: 50 }],
    [{ take: 'deposit', deposit: { percent: 1 } }, 60, { kind: 'deposit', amount: 50 }],
    [{ take: 'deposit', deposit: { percent: 1 } }, 50, { kind: 'full', amount: 50 }],
    [{ take: 'full' }, 50, { kind: 'full', amount: 50 }],
    [{ take: 'full' }, 49, undefined],
    [{ take: 'deposit', deposit: { percent: 30 } }, 49, undefined],
  ])('%j of %d with a minimum charge of 50 is %j', (payment, outstanding, due) => {
    expect(dueNow(settings(payment), outstanding, 50)).toEqual(due);
  });
});

describe('checkoutExpiresAt', () => {
  const now = 1_800_000_000;
  it.each([
    ['the deadline when it is within the provider bounds', now + 3600, now + 3600],
    ['31 minutes when the deadline is sooner (Stripe keeps a checkout 30 at least)', now + 600, now + 1860],
    ['just under 24 hours when the deadline is later', now + 90_000, now + 86_340],
  ])('is %s', (_, deadline, expected) => {
    expect(checkoutExpiresAt(now, deadline)).toBe(expected);
  });
});

describe('advanceAttempt', () => {
  const attempt = (overrides: Partial<StoredPaymentAttempt> = {}): StoredPaymentAttempt => ({
    payment_id: 'pay_1',
    booking_id: 1,
    provider: 'stripe',
    kind: 'full',
    amount: 4000,
    currency: 'CAD',
    capture: 'automatic',
    status: 'pending',
    version: 2,
    deadline: 100,
    checkout_expires_at: 100,
    captured: 0,
    refunded: 0,
    applied: 0,
    return_url: 'https://x.example/',
    cancel_url: 'https://x.example/',
    created: 1,
    updated: 1,
    ...overrides,
  });
  const payment = (overrides: Partial<Payment> = {}): Payment => ({
    providerPaymentId: 'pi_1',
    state: 'captured',
    capture: 'automatic',
    amount: 4000,
    capturable: 0,
    captured: 4000,
    refunded: 0,
    currency: 'CAD',
    created: 1,
    metadata: {},
    ...overrides,
  });

  it('moves forward: pending to captured, with the version taken', () => {
    expect(advanceAttempt(attempt(), payment(), { nowSeconds: 5 })).toMatchObject({
      status: 'captured',
      version: 3,
      captured: 4000,
      provider_payment_id: 'pi_1',
    });
  });

  it.each([
    ['captured, told pending', { status: 'captured', captured: 4000 }, { state: 'pending', captured: 0 }],
    ['captured, told captured again', { status: 'captured', captured: 4000 }, {}],
    ['authorised, told failed', { status: 'authorised' }, { state: 'failed', captured: 0 }],
    ['failed, told failed', { status: 'failed' }, { state: 'failed', captured: 0 }],
  ] as const)('never moves back or repeats (%s)', (_, from, told) => {
    expect(advanceAttempt(attempt(from), payment(told), { nowSeconds: 5 })).toBeUndefined();
  });

  it('records a decline of an open attempt, once, and never over a lapse', () => {
    const declined = payment({ state: 'failed', captured: 0, failure: { code: 'card_declined' } });
    expect(advanceAttempt(attempt(), declined, { nowSeconds: 5 })).toMatchObject({
      status: 'failed',
      failure: 'card_declined',
    });
    expect(advanceAttempt(attempt({ status: 'lapsed' }), declined, { nowSeconds: 5 })).toBeUndefined();
  });

  it('records a refund of a captured payment as a step forward', () => {
    const next = advanceAttempt(
      attempt({ status: 'captured', captured: 4000 }),
      payment({ refunded: 1000 }),
      {
        nowSeconds: 5,
      },
    );
    expect(next).toMatchObject({ status: 'captured', refunded: 1000 });
  });

  it('flags a payment of more than was asked', () => {
    expect(advanceAttempt(attempt(), payment({ captured: 4500 }), { nowSeconds: 5 })?.flag).toBe('overpaid');
  });

  it('keeps a lapse when the provider only says the guest is still at it', () => {
    expect(
      advanceAttempt(attempt({ status: 'lapsed' }), payment({ state: 'pending', captured: 0 }), {
        nowSeconds: 5,
      }),
    ).toBeUndefined();
    expect(advanceAttempt(attempt({ status: 'lapsed' }), payment(), { nowSeconds: 5 })?.status).toBe(
      'captured',
    );
  });
});
