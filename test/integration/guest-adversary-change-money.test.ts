import { describe, expect, it } from 'vitest';
import { runPaymentsReconcile, runReconcile } from '#lib/housekeeping/index.ts';
import { invoke } from '#test/support/events.ts';
import { guestConfirm, guestQuote, paidBooking, TWO_TIERS } from '#test/support/guest-cancel.ts';
import { changeConfirm, changeQuote } from '#test/support/guest-change.ts';
import {
  book,
  checkoutIdOf,
  day,
  type PaymentsWorld,
  settled,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';

// Issue 44, the adversarial pass of the guest's change (item 4) on the money: a change is no way around the
// cancellation policy (its tiers, its non-refundable deposit), and a change whose refund the provider has not
// made yet is not shared out again by the next change or a cancel. Kayaks are 40.00 a day each; the tiers
// give everything back 14 days ahead, half 2 days ahead, with a fee of 10.00 on a cancel.

const POLICY = {
  cancellation: {
    refunds: TWO_TIERS,
    fee: 1000,
    cutoff: { hours: 48 },
    deposit_refundable: false,
  },
};
const world = await startPaymentsWorld('guest-adv-change-money', { take: 'full' }, {}, { policy: POLICY });
const deposit = await startPaymentsWorld(
  'guest-adv-change-deposit',
  { take: 'deposit', deposit: { percent: 30 } },
  {},
  { policy: POLICY },
);

/** The quote of a change, then the change holding to it; both must answer 200. */
async function changeNow(
  on: PaymentsWorld,
  booking: { code: string; token: string },
  change: { date?: string; qty?: number },
) {
  const quote = await changeQuote(on, booking, change);
  expect(quote.status, JSON.stringify(quote.json.request)).toBe(200);
  const done = await changeConfirm(on, booking, change, quote.json.change.quote);
  expect(done.status, JSON.stringify(done.json.request)).toBe(200);
  await settled(on);
  return { quote: quote.json.change, done: done.json.change };
}

const cancelQuote = async (on: PaymentsWorld, booking: { code: string; token: string }) => {
  const quoted = await guestQuote(on, booking.code, booking.token);
  expect(quoted.status, JSON.stringify(quoted.json.request)).toBe(200);
  return quoted.json.cancellation;
};

describe('a stay moved later, out of a tier that gives back less', () => {
  it('keeps the tier it was moved at: a cancel after gives back half, as before the move', async () => {
    // Five days ahead: the half tier. Cancelled now, 60.00 of 120.00 less the fee.
    const created = await paidBooking(world, { date: day(5) });
    expect(await cancelQuote(world, created)).toMatchObject({ refund: '50.00' });
    await changeNow(world, created, { date: day(40) });
    // Forty days ahead now, but moved from the half tier: still half back, not everything.
    expect(await cancelQuote(world, created)).toMatchObject({ paid: '120.00', refund: '50.00' });
    // And the guest reads it so: half back until two days before, once, and nothing of a full refund.
    const view = await invoke(world.handlers.bookings, {
      path: `booking/${created.code}/manage`,
      query: `token=${encodeURIComponent(created.token)}`,
    });
    const words: string = view.json.booking.cancellation_policy.text;
    expect(words.match(/50% back/g), words).toHaveLength(1);
    expect(words).not.toMatch(/full refund|free cancellation/);
    // A lower price after it gives back half of what was paid beyond the new total, too.
    const fewer = await changeNow(world, created, { qty: 2 });
    expect(fewer.quote).toMatchObject({ refund: '20.00', kept: '20.00' });
  });

  it('keeps the tier too when the move waits for its payment and is paid', async () => {
    const created = await paidBooking(world, { date: day(6) });
    const { done } = await changeNow(world, created, { date: day(40), qty: 4 });
    world.standIn.controls.pay(checkoutIdOf(done.payment.url));
    await settled(world);
    expect((await stored(world, created.booking_id)).booking.start_date).toBe(day(40));
    // 160.00 paid: half back less the fee.
    expect(await cancelQuote(world, created)).toMatchObject({ paid: '160.00', refund: '70.00' });
  });

  it('keeps everything back for a stay moved while everything comes back', async () => {
    const created = await paidBooking(world, { date: day(30) });
    await changeNow(world, created, { date: day(60) });
    expect(await cancelQuote(world, created)).toMatchObject({ refund: '110.00' });
  });
});

describe('a non-refundable deposit', () => {
  it('is not given back by a change that lowers the total below it, nor by a cancel after', async () => {
    // Ten kayaks, 400.00: a deposit of 120.00 paid, which a cancel keeps whole.
    const { created } = await book(deposit, { qty: 10, date: day(30) });
    deposit.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(deposit);
    expect(await cancelQuote(deposit, created)).toMatchObject({ refund: '0.00', deposit_kept: '120.00' });
    // One kayak, 40.00: 80.00 of the deposit is beyond the new total, and stays the business's.
    const { quote } = await changeNow(deposit, created, { qty: 1 });
    expect(quote).toMatchObject({ refund: '0.00', kept: '80.00' });
    expect(await cancelQuote(deposit, created)).toMatchObject({ refund: '0.00', deposit_kept: '40.00' });
    const record = await stored(deposit, created.booking_id);
    expect(record.booking.paid_total).toBe(12000);
    expect(record.attempts?.[0]?.refunded).toBe(0);
  });
});

describe('a change whose refund the provider has not made yet', () => {
  /** A booking of three kayaks paid in full, lowered to two while the provider is down: 503, 40.00 owed. */
  async function refundStuck() {
    const created = await paidBooking(world, { date: day(40) });
    const quote = await changeQuote(world, created, { qty: 2 });
    world.standIn.controls.failApi({ mode: 'error', when: 'before', count: 5 });
    const down = await changeConfirm(world, created, { qty: 2 }, quote.json.change.quote);
    world.standIn.controls.clearApiFaults();
    expect(down.status).toBe(503);
    return { created, first: quote.json.change.quote as string };
  }

  it('is not given back again by the next change, which makes it as well', async () => {
    const { created, first } = await refundStuck();
    // 80.00 left of the 120.00 once the first refund is made: one kayak gives back 40.00 more, not 80.00.
    const { quote, done } = await changeNow(world, created, { qty: 1 });
    expect(quote).toMatchObject({ refund: '40.00' });
    expect(done).toMatchObject({ refund: '40.00', through_provider: '40.00' });
    let record = await stored(world, created.booking_id);
    expect(record.attempts?.[0]?.refunded).toBe(8000);
    // The first change sent again answers as it did and gives back nothing more.
    const again = await changeConfirm(world, created, { qty: 2 }, first);
    expect(again.status, JSON.stringify(again.json.request)).toBe(200);
    await settled(world);
    record = await stored(world, created.booking_id);
    expect(record.attempts?.[0]?.refunded).toBe(8000);
    expect(record.booking).toMatchObject({ paid_total: 4000, totals: { total: 4000 } });
  });

  it('is not shared out again by a cancel, which keeps its fee and makes it as well', async () => {
    const { created, first } = await refundStuck();
    // 80.00 counts: all of it back less the fee, 70.00, beside the change's 40.00.
    expect(await cancelQuote(world, created)).toMatchObject({ paid: '80.00', refund: '70.00' });
    const cancel = await cancelQuote(world, created);
    const done = await guestConfirm(world, created.code, created.token, cancel.quote);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    await settled(world);
    const again = await changeConfirm(world, created, { qty: 2 }, first);
    expect(again.status, JSON.stringify(again.json.request)).toBe(200);
    await settled(world);
    const record = await stored(world, created.booking_id);
    // 110.00 back in all: the fee kept.
    expect(record.attempts?.[0]?.refunded).toBe(11000);
    expect(record.booking.paid_total).toBe(1000);
  });
});

describe('the audits after all of it', () => {
  it.each([
    ['full', world],
    ['deposit', deposit],
  ])('find the money and the stock of %s as they should be', async (_name, on) => {
    await settled(on);
    const money = await runPaymentsReconcile(on.db, { provider: on.provider });
    expect(money.discrepancies).toEqual([]);
    const stock = await runReconcile(on.db, { fix: false, now: Date.now() });
    expect(stock.discrepancies).toEqual([]);
  });
});
