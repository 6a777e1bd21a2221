import { describe, expect, it } from 'vitest';
import { type PaymentSnapshot, reconcilePayments } from '#lib/housekeeping/reconcile-payments.ts';
import type { Payment } from '#lib/payments/index.ts';

// The money audit's checks (issue 43 item 8), each seen clean and then seen to catch its defect.

const booking = (overrides: Partial<PaymentSnapshot['bookings'][number]> = {}) => ({
  booking_id: 1,
  code: 'PAY-1',
  status_id: 'PART',
  paid_total: 5_000,
  ...overrides,
});
const attempt = (overrides: Partial<PaymentSnapshot['attempts'][number]> = {}) => ({
  booking_id: 1,
  payment_id: 'pay_a',
  provider: 'stripe',
  status: 'captured',
  captured: 5_000,
  refunded: 0,
  applied: 5_000,
  created: 2_000,
  provider_payment_id: 'pi_1',
  ...overrides,
});
const row = (overrides: Partial<PaymentSnapshot['transactions'][number]> = {}) => ({
  booking_id: 1,
  transaction_id: 'pay_a-2',
  amount: 5_000,
  method: 'stripe',
  ...overrides,
});
const snapshot = (overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot => ({
  bookings: [booking()],
  attempts: [attempt()],
  transactions: [row()],
  ...overrides,
});
const payment = (overrides: Partial<Payment> = {}): Payment => ({
  providerPaymentId: 'pi_1',
  state: 'captured',
  capture: 'automatic',
  amount: 5_000,
  capturable: 0,
  captured: 5_000,
  refunded: 0,
  currency: 'CAD',
  created: 2_000,
  metadata: { tenantId: 't', bookingId: '1', paymentId: 'pay_a' },
  ...overrides,
});
const kinds = (report: ReturnType<typeof reconcilePayments>) => report.discrepancies.map((one) => one.kind);

describe('reconcilePayments', () => {
  it('finds nothing when rows, attempts and paid_total agree (a gift certificate and a pos payment beside)', () => {
    const report = reconcilePayments(
      snapshot({
        bookings: [booking({ paid_total: 9_000, giftcert: { amount: 1_000 } })],
        transactions: [row(), row({ transaction_id: 'uuid-pos', amount: 3_000, method: 'pos' })],
      }),
    );
    expect(report.discrepancies).toEqual([]);
    expect(report).toMatchObject({ bookings: 1, attempts: 1 });
  });

  it('names a paid_total that is not its rows', () => {
    expect(reconcilePayments(snapshot({ bookings: [booking({ paid_total: 6_000 })] })).discrepancies).toEqual(
      [{ kind: 'paid_total', booking: 'PAY-1', paidTotal: 6_000, expected: 5_000 }],
    );
  });

  it('counts a gift certificate only while the booking is active', () => {
    const voided = booking({ status_id: 'VOID', paid_total: 0, giftcert: { amount: 1_000 } });
    expect(
      kinds(reconcilePayments(snapshot({ bookings: [voided], attempts: [], transactions: [] }))),
    ).toEqual([]);
    expect(
      kinds(
        reconcilePayments(
          snapshot({ bookings: [{ ...voided, paid_total: 1_000 }], attempts: [], transactions: [] }),
        ),
      ),
    ).toEqual(['paid_total']);
  });

  it('names captured money an active booking does not count, and rows that disagree with the attempt', () => {
    const report = reconcilePayments(snapshot({ attempts: [attempt({ captured: 7_000 })] }));
    expect(report.discrepancies).toEqual([
      { kind: 'not_counted', booking: 'PAY-1', paymentId: 'pay_a', held: 7_000, applied: 5_000 },
    ]);
    expect(
      kinds(reconcilePayments(snapshot({ transactions: [row(), row({ transaction_id: 'pay_a-3' })] }))),
    ).toEqual(['rows', 'paid_total']);
  });

  it('names a lapsed or cancelled booking that keeps captured money, unless staff kept it', () => {
    const lapsed = booking({ status_id: 'VOID', paid_total: 0 });
    const taken = attempt({ status: 'lapsed', applied: 0 });
    expect(
      reconcilePayments(snapshot({ bookings: [lapsed], attempts: [taken], transactions: [] })).discrepancies,
    ).toEqual([{ kind: 'kept_inactive', booking: 'PAY-1', paymentId: 'pay_a', status: 'VOID', held: 5_000 }]);
    const givenBack = attempt({ status: 'captured', applied: 0, refunded: 5_000 });
    expect(
      kinds(reconcilePayments(snapshot({ bookings: [lapsed], attempts: [givenBack], transactions: [] }))),
    ).toEqual([]);
    const cancelled = booking({ status_id: 'CANCELLED' });
    expect(kinds(reconcilePayments(snapshot({ bookings: [cancelled] })))).toEqual(['kept_inactive']);
    // Given back but still counted: its paid_total says money the business no longer has.
    const stale = attempt({ refunded: 5_000 });
    expect(kinds(reconcilePayments(snapshot({ bookings: [cancelled], attempts: [stale] })))).toEqual([
      'not_counted',
    ]);
    const kept = attempt({ kept: { account_id: 1, at: 3_000 } });
    expect(kinds(reconcilePayments(snapshot({ bookings: [cancelled], attempts: [kept] })))).toEqual([]);
  });

  it('leaves a stray payment given back out of what its booking counts', () => {
    const stray = attempt({
      payment_id: 'stray_pi_9',
      flag: 'stray',
      applied: 0,
      provider_payment_id: 'pi_9',
    });
    expect(
      kinds(reconcilePayments(snapshot({ attempts: [attempt(), { ...stray, refunded: 5_000 }] }))),
    ).toEqual([]);
  });

  it('names attempts and rows whose booking does not exist', () => {
    const report = reconcilePayments(snapshot({ bookings: [] }));
    expect(kinds(report)).toEqual(['orphan_transaction', 'orphan_attempt']);
  });

  it('matches the provider payments to attempts both ways, within the listing window', () => {
    const listing = (payments: Payment[]) => ({ name: 'stripe', since: 1_000, payments });
    expect(reconcilePayments(snapshot(), listing([payment()])).discrepancies).toEqual([]);
    expect(
      reconcilePayments(snapshot(), listing([payment(), payment({ providerPaymentId: 'pi_x' })]))
        .discrepancies,
    ).toEqual([
      { kind: 'provider_unknown', providerPaymentId: 'pi_x', captured: 5_000, refunded: 0, bookingId: '1' },
    ]);
    // A guest still on the checkout page has nothing taken: not money astray.
    const open = payment({ providerPaymentId: 'pi_open', state: 'pending', captured: 0 });
    expect(kinds(reconcilePayments(snapshot(), listing([payment(), open])))).toEqual([]);
    expect(kinds(reconcilePayments(snapshot(), listing([])))).toEqual(['provider_missing']);
    expect(
      kinds(reconcilePayments(snapshot({ attempts: [attempt({ created: 500 })] }), listing([]))),
    ).toEqual([]);
    expect(reconcilePayments(snapshot(), listing([payment({ refunded: 2_000 })])).discrepancies).toEqual([
      expect.objectContaining({ kind: 'provider_differs', providerRefunded: 2_000, refunded: 0 }),
    ]);
  });
});
