import { describe, expect, it } from 'vitest';
import { getGiftcert } from '#lib/bookings/giftcert-repository.ts';
import { runPaymentsReconcile, runReconcile } from '#lib/housekeeping/index.ts';
import { freshAddress, invoke } from '#test/support/events.ts';
import { guestConfirm, guestQuote, TWO_TIERS } from '#test/support/guest-cancel.ts';
import { setPaid } from '#test/support/payments-staff.ts';
import {
  book,
  checkoutIdOf,
  day,
  type PaymentsWorld,
  settled,
  startPaymentsWorld,
  stored,
  usedOf,
} from '#test/support/payments-world.ts';

// Issue 44, the adversarial pass: the guest's cancel (item 3) on the money a booking can hold (a gift
// certificate beside the provider, a kept deposit beside money taken at the desk, a checkout still open, a
// payment arriving between the quote and the confirm), then the money and stock audits of `npm run
// reconcile` on what it leaves.

const POLICY = {
  cancellation: {
    refunds: TWO_TIERS,
    fee: 1000,
    deposit_refundable: false,
  },
};

const full = await startPaymentsWorld(
  'guest-adv-money',
  { take: 'full' },
  {},
  { policy: POLICY, giftcerts: [{ code: 'GIFT-30', amount: '30.00' }] },
);
const deposit = await startPaymentsWorld(
  'guest-adv-deposit',
  { take: 'deposit', deposit: { percent: 30 } },
  {},
  { policy: POLICY },
);

const quote = guestQuote;
const confirm = guestConfirm;
const cancelNow = async (on: PaymentsWorld, code: string, token: string) => {
  const quoted = await quote(on, code, token);
  expect(quoted.status, JSON.stringify(quoted.json.request)).toBe(200);
  const done = await confirm(on, code, token, quoted.json.cancellation.quote);
  expect(done.status, JSON.stringify(done.json.request)).toBe(200);
  await settled(on);
  return done.json.cancellation;
};

type Created = { code: string; booking_id: number; token: string; payment_url: string };

describe('a gift certificate beside the provider', () => {
  it('comes back whole; the policy shares out what the provider took', async () => {
    const { created } = (await book(full, { qty: 3, fields: { giftcert_code: 'GIFT-30' } })) as {
      created: Created;
    };
    full.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(full);
    expect((await stored(full, created.booking_id)).booking.paid_total).toBe(12000);
    const done = await cancelNow(full, created.code, created.token);
    expect(done).toMatchObject({ paid: '90.00', refund: '80.00', through_provider: '80.00', owed: '0.00' });
    expect((await getGiftcert(full.db, 'GIFT-30'))?.balance).toBe(3000);
    const record = await stored(full, created.booking_id);
    expect(record.booking.paid_total).toBe(1000);
    expect(record.attempts?.[0]).toMatchObject({ captured: 9000, refunded: 8000 });
  });
});

describe('a checkout still open when the guest cancels', () => {
  it('gives back in full what the guest pays on it afterwards', async () => {
    const { created } = (await book(full, { qty: 2 })) as { created: Created };
    const done = await cancelNow(full, created.code, created.token);
    expect(done).toMatchObject({ paid: '0.00', refund: '0.00' });
    // The guest's view no longer offers the checkout as a way to pay a cancelled booking.
    const view = await invoke(full.handlers.bookings, {
      path: `booking/${created.code}/manage`,
      query: `token=${encodeURIComponent(created.token)}`,
      sourceIp: freshAddress(),
    });
    expect(view.status, JSON.stringify(view.json.request)).toBe(200);
    expect(view.json.booking.status_id).toBe('CANCELLED');
    expect(view.json.booking).not.toHaveProperty('payment');
    full.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(full);
    const record = await stored(full, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: 0 });
    expect(record.attempts?.[0]).toMatchObject({ captured: 8000, refunded: 8000 });
  });
});

describe('a payment between the quote and the confirm', () => {
  it('makes the quote stale (409 with the new one), and nothing changes', async () => {
    const { created } = (await book(full, { qty: 1 })) as { created: Created };
    const before = (await quote(full, created.code, created.token)).json.cancellation;
    expect(before.paid).toBe('0.00');
    full.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(full);
    const stale = await confirm(full, created.code, created.token, before.quote);
    expect(stale.status).toBe(409);
    expect(stale.json.request.error.data).toMatchObject({
      reason: 'quote_changed',
      quote: { refund: '30.00' },
    });
    const record = await stored(full, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'PAID', paid_total: 4000 });
    expect(record.attempts?.[0]?.refunded).toBe(0);
    expect((await cancelNow(full, created.code, created.token)).refund).toBe('30.00');
  });
});

describe('a kept deposit beside money taken at the desk', () => {
  it('keeps the deposit and the fee; what the provider does not hold is owed', async () => {
    const date = day(40);
    const before = await usedOf(deposit, 1, date);
    const { created } = (await book(deposit, { qty: 3, date })) as { created: Created };
    deposit.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(deposit);
    expect((await stored(deposit, created.booking_id)).booking.paid_total).toBe(3600);
    const paid = await setPaid(deposit, created.code);
    expect(paid.status, JSON.stringify(paid.json.request)).toBe(200);
    const done = await cancelNow(deposit, created.code, created.token);
    // 120.00 paid: the 36.00 deposit kept, the rest (84.00) back less the fee.
    expect(done).toMatchObject({ paid: '120.00', deposit_kept: '36.00', fee: '10.00', refund: '74.00' });
    expect(done.through_provider).toBe('36.00');
    expect(done.owed).toBe('38.00');
    expect(await usedOf(deposit, 1, date)).toBe(before);
  });
});

describe('the audits after all of it', () => {
  it.each([
    ['full', full],
    ['deposit', deposit],
  ])('find the money and the stock of %s as they should be', async (_name, on) => {
    const money = await runPaymentsReconcile(on.db, { provider: on.provider });
    expect(money.discrepancies).toEqual([]);
    const stock = await runReconcile(on.db, { fix: false, now: Date.now() });
    expect(stock.discrepancies).toEqual([]);
  });
});
