import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { auditChanges } from '#test/soak/audit-changes.ts';
import type { MoneyRecords } from '#test/soak/audit-money.ts';
import { auditAnswers, auditBookings } from '#test/soak/audits.ts';
import type { ProviderMoney } from '#test/soak/provider.ts';
import { soakTenant } from '#test/soak/tenant.ts';
import { emptyLedger } from '#test/soak/traffic.ts';

// Issue 44: the soak's audits of guests' changes, on records made by hand. A booking of 40.00 whose guest paid
// a 12.00 deposit (pay_d), grew the party to 80.00 and paid the 40.00 difference (pay_c, its change made when
// paid), then went back to 40.00: 12.00 paid beyond the total, all of it given back through the provider
// under the second change's refund id (pay_c_c2), taken from the newest payment.

const NOW = Date.UTC(2026, 5, 1);
const at = (seconds: number) => `EVENT#${String(NOW - seconds * 1000).padStart(15, '0')}#e${seconds}`;
const event = (seconds: number, type: string, data: Record<string, unknown>) => ({
  entity: 'event',
  booking_id: 1,
  account_id: 0,
  sk: at(seconds),
  type,
  data,
});
const change = (overrides: Record<string, unknown> = {}) => ({
  refund: 0,
  kept: 0,
  through_provider: 0,
  owed: 0,
  by: 0,
  ...overrides,
});

function world(): { records: MoneyRecords; provider: ProviderMoney } {
  const intent = (paymentId: string, captured: number, refunded: number) =>
    ({
      id: `pi_${paymentId}`,
      status: 'succeeded',
      amount_received: captured,
      metadata: { payment_id: paymentId, booking_id: '1' },
      latest_charge: { amount_refunded: refunded },
    }) as unknown as Stripe.PaymentIntent;
  return {
    records: {
      bookings: [
        { booking_id: 1, code: 'SOAK-1', status_id: 'PART', paid_total: 4000, totals: { total: 4000 } },
      ],
      attempts: [
        { payment_id: 'pay_d', booking_id: 1, kind: 'deposit', captured: 1200, refunded: 0, applied: 1200 },
        { payment_id: 'pay_c', booking_id: 1, kind: 'change', captured: 4000, refunded: 1200, applied: 2800 },
      ],
      payments: [],
      trail: [
        event(50, 'booking.change_pending', { guest_change: change({ payment_id: 'pay_c', charge: 4000 }) }),
        event(40, 'booking.changed', { guest_change: change({ payment_id: 'pay_c', charged: 4000 }) }),
        event(20, 'booking.changed', { guest_change: change({ refund: 1200, through_provider: 1200 }) }),
        event(19, 'payment.refunded', { payment_id: 'pay_c', refund_id: 'pay_c_c2', amount: 1200 }),
      ],
    },
    provider: {
      intents: [intent('pay_d', 1200, 0), intent('pay_c', 4000, 1200)],
      checkouts: [],
      refunds: [
        {
          id: 're_1',
          amount: 1200,
          status: 'succeeded',
          metadata: { payment_id: 'pay_c', refund_id: 'pay_c_c2' },
        } as unknown as Stripe.Refund,
      ],
    },
  };
}

const audit = (records: MoneyRecords, provider: ProviderMoney) =>
  auditChanges(records, provider, { now: NOW, slackSeconds: 60 });
const bookingOf = (records: MoneyRecords) => records.bookings[0] as Record<string, any>;

describe('the soak audit of guests’ changes', () => {
  it('finds nothing wrong with a booking grown, paid for and made smaller again', () => {
    const { records, provider } = world();
    const result = audit(records, provider);
    expect(result.problems).toEqual([]);
    expect(result.checked).toMatchObject({ changesMade: 2, changesPaidFor: 1, changeRefunds: 1 });
  });

  it('names a change_kept that is not what the changes kept', () => {
    const { records, provider } = world();
    bookingOf(records).change_kept = 1;
    expect(audit(records, provider).problems).toContainEqual(
      expect.stringContaining('booking SOAK-1: change_kept 1, its changes kept 0'),
    );
  });

  it('keeps exactly the total after a change that kept part of the excess, and names a minor unit more', () => {
    const { records, provider } = world();
    // The 50% tier: 600 back, 600 kept beyond the total.
    const shrink = records.trail[2] as { data: { guest_change: Record<string, number> } };
    Object.assign(shrink.data.guest_change, { refund: 600, kept: 600, through_provider: 600 });
    (provider.refunds[0] as { amount: number }).amount = 600;
    Object.assign(bookingOf(records), { paid_total: 4600, change_kept: 600 });
    expect(audit(records, provider).problems).toEqual([]);
    bookingOf(records).paid_total = 4601;
    expect(audit(records, provider).problems).toContainEqual(
      expect.stringContaining('is 1 beyond its total 4000, after a change that gave back 600'),
    );
  });

  it('names a change refund the provider never made, and money kept beyond the total', () => {
    const { records, provider } = world();
    provider.refunds = [];
    bookingOf(records).paid_total = 5200;
    const { problems } = audit(records, provider);
    expect(problems).toContainEqual(
      expect.stringContaining('its change 2 sent 1200 back through the provider, which refunded 0 under _c2'),
    );
    expect(problems).toContainEqual(expect.stringContaining('is 1200 beyond its total 4000'));
  });

  it('leaves a booking whose money moved since its last change (cancelled, then revived) to the money audit', () => {
    const { records, provider } = world();
    records.trail.push(event(10, 'booking.status_changed', { from: 'PART', to: 'CANCELLED' }));
    records.trail.push(event(5, 'booking.status_changed', { from: 'CANCELLED', to: 'HOLD' }));
    Object.assign(bookingOf(records), { status_id: 'HOLD', paid_total: 500 });
    expect(audit(records, provider).problems).toEqual([]);
  });

  it('names a made change whose payment is not applied in full', () => {
    const { records, provider } = world();
    (records.attempts[1] as { applied: number }).applied = 0;
    expect(audit(records, provider).problems).toContainEqual(
      expect.stringContaining('change attempt pay_c made its change, its money succeeded at the provider'),
    );
  });

  it('names the payment of a change that lapsed when the provider still keeps it', () => {
    const { records, provider } = world();
    records.attempts.push({ payment_id: 'pay_l', booking_id: 1, kind: 'change', captured: 2000, applied: 0 });
    records.trail.push(event(3, 'booking.change_lapsed', { payment_id: 'pay_l' }));
    provider.intents.push({
      id: 'pi_l',
      status: 'succeeded',
      amount_received: 2000,
      metadata: { payment_id: 'pay_l', booking_id: '1' },
      latest_charge: { amount_refunded: 0 },
    } as unknown as Stripe.PaymentIntent);
    expect(audit(records, provider).problems).toContainEqual(
      'booking SOAK-1: change attempt pay_l: its change lapsed, yet the provider keeps 2000 of it and 0 was applied',
    );
    (
      provider.intents.at(-1) as { latest_charge: { amount_refunded: number } }
    ).latest_charge.amount_refunded = 2000;
    expect(audit(records, provider).problems).toEqual([]);
  });

  it('names a change still waiting a minute past its deadline, not one within it', () => {
    const { records, provider } = world();
    const nowSeconds = NOW / 1000;
    bookingOf(records).change = { payment_id: 'pay_w', deadline: nowSeconds - 59 };
    expect(audit(records, provider).problems).toEqual([]);
    bookingOf(records).change.deadline = nowSeconds - 61;
    expect(audit(records, provider).problems).toContainEqual(
      'booking SOAK-1: its change waits 61 s past its deadline',
    );
  });
});

describe('the soak audit of answers, with the provider failing', () => {
  const window = { name: 'provider answers 500', startedAt: 1_000, recoveredAt: 2_000, excuses: false };
  const failed = (providerBusy: boolean, failedAt = 1_500) => {
    const ledger = emptyLedger();
    ledger.calls.push({
      route: 'booking.manage.change',
      startedAt: failedAt,
      endedAt: failedAt + 1,
      statuses: [503, 200],
      failedAt: [failedAt],
      ...(providerBusy ? { providerBusyAt: [failedAt] } : {}),
      ok: true,
    });
    return ledger;
  };

  it('takes a 503 busy naming the provider inside its fault for an answer, when the retry succeeded', () => {
    expect(auditAnswers(failed(true), [{ ...window, provider: true }], 0).problems).toEqual([]);
  });

  it('names any other 503 inside it, and one naming the provider outside it', () => {
    expect(auditAnswers(failed(false), [{ ...window, provider: true }], 0).problems).toHaveLength(1);
    expect(auditAnswers(failed(true), [window], 0).problems).toHaveLength(1);
    expect(auditAnswers(failed(true, 2_500), [{ ...window, provider: true }], 0).problems).toHaveLength(1);
  });
});

describe('the soak audit of bookings, with guests’ changes', () => {
  const tenant = soakTenant('http://127.0.0.1:9/hook', 'http://127.0.0.1:9');
  const stored = (total: number, start: string) => [
    {
      code: 'SOAK-1',
      booking_id: 1,
      session_id: 's1',
      status_id: 'PART',
      start_date: start,
      totals: { total },
      lines: { 1: { item_id: 2, qty: 1 } },
    },
  ];
  const ledger = () => {
    const told = emptyLedger();
    told.attempted.add('s1');
    told.acknowledged.push({
      key: 'k1',
      session: 's1',
      code: 'SOAK-1',
      bookingId: 1,
      total: '40.00',
      statusId: 'PART',
      lines: [{ itemId: 2, qty: 1 }],
      at: 0,
    });
    told.changed.set('SOAK-1', [
      { total: '40.00', start: '20260610' },
      { total: '80.00', start: '20260612' },
    ]);
    return told;
  };

  it('expects the last change the guest was told of, dates and total', () => {
    expect(auditBookings(stored(8000, '20260612'), ledger(), tenant).problems).toEqual([]);
    expect(auditBookings(stored(4000, '20260610'), ledger(), tenant).problems).toEqual([
      'booking SOAK-1: changed by its guest to 80.00 from 20260612, stored 40.00 from 20260610',
    ]);
  });

  it('takes any state the guest was told of once staff or a cancel moved the booking since', () => {
    const told = ledger();
    told.restatused.add('SOAK-1');
    expect(auditBookings(stored(4000, '20260610'), told, tenant).problems).toEqual([]);
    expect(auditBookings(stored(4000, '20260612'), told, tenant).problems).toHaveLength(1);
  });
});
