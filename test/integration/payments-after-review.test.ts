import { describe, expect, it } from 'vitest';
import {
  book,
  checkoutIdOf,
  createFor,
  day,
  lapse,
  settled,
  startPaymentsWorld,
  stored,
  usedOf,
} from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// The decisions taken on the review of issue 43 (docs/decisions.md, "After the review of payments"), beyond
// what the reviewer's own tests (test/review/payment-*.test.ts) hold: what becomes of a stray payment, of an
// attempt the provider closed early, of a refund made at the provider, and of an event for no booking.

const world = await startPaymentsWorld('pay-after-review', { take: 'full' });
const manual = await startPaymentsWorld('pay-after-review-manual', { take: 'full', capture: 'manual' });
const gift = await startPaymentsWorld(
  'pay-after-review-gift',
  { take: 'deposit', deposit: { percent: 30 } },
  {},
  { giftcerts: [{ code: 'GIFT-10', amount: '10.00' }] },
);
const stripe = sdkFor(world.standIn);

/** A second checkout on the same account carrying a booking's metadata (a Payment Link, a copied request). */
const strayCheckout = async (metadata: Record<string, string>, currency: string, amount: number) =>
  stripe.checkout.sessions.create({
    mode: 'payment',
    currency,
    line_items: [
      { price_data: { currency, product_data: { name: 'Kayak' }, unit_amount: amount }, quantity: 1 },
    ],
    metadata,
    payment_intent_data: { metadata },
    expires_at: world.standIn.controls.now() + 3600,
    success_url: 'https://shop.example.com/done',
    cancel_url: 'https://shop.example.com/',
  });

const metadataOf = async (created: { booking_id: number; code: string }) => {
  const attempt = (await stored(world, created.booking_id)).attempts?.[0];
  return {
    tenant_id: 'test',
    booking_id: String(created.booking_id),
    booking_code: created.code,
    payment_id: attempt?.payment_id as string,
  };
};

describe('a stray payment (one that names an attempt but is not its own)', () => {
  it('is recorded as an attempt of its own, flagged, refunded in full, and the booking can still be paid', async () => {
    const { created } = await book(world);
    const usd = await strayCheckout(await metadataOf(created), 'usd', 4000);
    world.standIn.controls.pay(usd.id);
    await settled(world);
    const intent = (await stripe.checkout.sessions.retrieve(usd.id)).payment_intent as string;
    const refunds = await stripe.refunds.list({ payment_intent: intent });
    expect(refunds.data.map((one) => [one.amount, one.currency])).toEqual([[4000, 'usd']]);
    const after = await stored(world, created.booking_id);
    expect(after.booking).toMatchObject({ status_id: 'PEND', paid_total: 0 });
    expect(after.payments).toEqual([]);
    const stray = after.attempts?.find((one) => one.flag === 'stray');
    expect(stray).toMatchObject({
      payment_id: `stray_${intent}`,
      currency: 'USD',
      amount: 4000,
      captured: 4000,
      refunded: 4000,
      applied: 0,
    });
    const given = after.events.filter((event) => event.type === 'payment.refunded');
    expect(given.map((event) => event.data)).toEqual([
      expect.objectContaining({
        payment_id: stray?.payment_id,
        reason: 'stray',
        amount: 4000,
        flag: 'stray',
      }),
    ]);
    // The booking's own checkout is untouched: the guest pays it, and it counts.
    world.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(world);
    expect((await stored(world, created.booking_id)).booking).toMatchObject({
      status_id: 'PAID',
      paid_total: 4000,
    });
  });
});

describe('an attempt the provider closed before the deadline', () => {
  it('is cancelled, a new checkout is opened in its place, and the same create answers it', async () => {
    const date = day(95);
    const first = await book(world, { date });
    const closed = checkoutIdOf(first.created.payment_url);
    await stripe.checkout.sessions.expire(closed);
    await settled(world);
    const record = await stored(world, first.created.booking_id);
    const old = record.attempts?.find((one) => one.checkout_id === closed);
    const fresh = record.attempts?.find((one) => one.payment_id === record.booking.payment?.payment_id);
    expect(old?.status).toBe('cancelled');
    expect(fresh).toMatchObject({ status: 'pending', deadline: old?.deadline, amount: 4000, captured: 0 });
    expect(fresh?.checkout_url).toMatch(/\/c\/pay\/cs_/);
    expect(record.events.at(-1)).toMatchObject({
      type: 'payment.cancelled',
      data: expect.objectContaining({ payment_id: old?.payment_id, reason: 'checkout_expired' }),
    });
    expect(record.booking.status_id).toBe('PEND');
    expect(await usedOf(world, 1, date)).toBe(1);
    const again = (await createFor(world, first.sessionId)).json.booking;
    expect(again).toMatchObject({
      payment_status: 'pending',
      payment_url: fresh?.checkout_url,
      payment_deadline: first.created.payment_deadline,
    });
    world.standIn.controls.pay(checkoutIdOf(again.payment_url));
    await settled(world);
    const paid = await stored(world, first.created.booking_id);
    expect(paid.booking).toMatchObject({ status_id: 'PAID', paid_total: 4000 });
    expect(paid.attempts?.map((one) => one.status).sort()).toEqual(['cancelled', 'captured']);
  });

  it('after an authorisation let go: a new checkout before the deadline, and the lapse at it', async () => {
    const first = await book(manual);
    manual.standIn.controls.pay(checkoutIdOf(first.created.payment_url));
    await settled(manual);
    const attempt = (await stored(manual, first.created.booking_id)).attempts?.[0];
    await manual.provider.cancel(attempt?.provider_payment_id as string, { paymentId: 'outside-our-flow' });
    await settled(manual);
    const again = (await createFor(manual, first.sessionId)).json.booking;
    expect(again.payment_status).toBe('pending');
    expect(again.payment_url).toMatch(/\/c\/pay\/cs_/);
    expect(again.payment_url).not.toBe(first.created.payment_url);
    // Before its deadline the sweeper leaves it be; at the deadline it lapses as unpaid.
    expect(await lapse(manual, { now: Date.now() })).toBe(0);
    expect(await lapse(manual)).toBe(1);
    expect((await stored(manual, first.created.booking_id)).booking.status_id).toBe('VOID');
  });
});

describe('a percent deposit with a gift certificate', () => {
  it('is the percent of what the gift certificate leaves owing (docs/payments.md)', async () => {
    const { created } = await book(gift, { fields: { giftcert_code: 'GIFT-10' } });
    expect(created).toMatchObject({ total: '40.00', paid_total: '10.00', due: '30.00', deposit: '9.00' });
  });
});

describe('a refund made at the provider', () => {
  it('moves a PAID booking to PART with what is left paid, and with nothing left to its awaiting status', async () => {
    const { created } = await book(world);
    world.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(world);
    const attempt = (await stored(world, created.booking_id)).attempts?.[0];
    const refund = (refundId: string, amount: number) =>
      world.provider.refund(attempt?.provider_payment_id as string, {
        paymentId: attempt?.payment_id as string,
        refundId,
        amount,
      });
    await refund('dashboard-1', 1500);
    await settled(world);
    expect((await stored(world, created.booking_id)).booking).toMatchObject({
      status_id: 'PART',
      paid_total: 2500,
    });
    await refund('dashboard-2', 2500);
    await settled(world);
    const after = await stored(world, created.booking_id);
    expect(after.booking).toMatchObject({ status_id: 'PEND', paid_total: 0 });
    expect(after.payments.map((row) => row.amount)).toEqual([4000, -1500, -2500]);
    const moves = after.events
      .filter((event) => event.type === 'booking.status_changed')
      .map((event) => event.data);
    expect(moves).toEqual([
      expect.objectContaining({ from: 'PEND', to: 'PAID', reason: 'payment' }),
      expect.objectContaining({ from: 'PAID', to: 'PART', reason: 'payment_refunded' }),
      expect.objectContaining({ from: 'PART', to: 'PEND', reason: 'payment_refunded' }),
    ]);
  });
});

describe('a lapse out of time (the sweep’s budget spent)', () => {
  it('begins no booking past its end and leaves the rest, still marked, to the next sweep', async () => {
    const date = day(90);
    const { created } = await book(world, { date });
    expect(await lapse(world, { endBy: Date.now() })).toBe(0);
    expect((await stored(world, created.booking_id)).booking.status_id).toBe('PEND');
    expect(await usedOf(world, 1, date)).toBe(1);
    // The next sweep, with time: it lapses.
    expect(await lapse(world)).toBeGreaterThanOrEqual(1);
    expect((await stored(world, created.booking_id)).booking.status_id).toBe('VOID');
    expect(await usedOf(world, 1, date)).toBe(0);
  });
});

describe('the minimum charge', () => {
  // Stripe's published minimums (docs.stripe.com/currencies); the stand-in keeps its own copy of them.
  const minimums: [string, number][] = [
    ['USD', 50],
    ['AED', 200],
    ['AUD', 50],
    ['BGN', 100],
    ['BRL', 50],
    ['CAD', 50],
    ['CHF', 50],
    ['CZK', 1500],
    ['DKK', 250],
    ['EUR', 50],
    ['GBP', 30],
    ['HKD', 400],
    ['HUF', 17_500],
    ['INR', 50],
    ['JPY', 50],
    ['MXN', 1000],
    ['MYR', 200],
    ['NOK', 300],
    ['NZD', 50],
    ['PLN', 200],
    ['RON', 200],
    ['SEK', 300],
    ['SGD', 50],
    ['THB', 1000],
  ];
  const checkout = (currency: string, amount: number) =>
    world.provider.startCheckout({
      paymentId: `pay_min_${currency}_${amount}`,
      bookingId: '1',
      bookingCode: 'PAY-MIN',
      tenantId: 'test',
      amount,
      currency,
      description: 'Deposit',
      expiresAt: world.standIn.controls.now() + 3600,
      capture: 'automatic',
      returnUrl: 'https://shop.example.com/done',
      cancelUrl: 'https://shop.example.com/',
    });

  it.each(minimums)(
    'of the adapter in %s is %d, what the provider opens a checkout for and no less',
    async (currency, least) => {
      expect(world.provider.minimumCharge(currency)).toBe(least);
      await expect(checkout(currency, least)).resolves.toMatchObject({
        checkoutId: expect.stringMatching(/^cs_/),
      });
      const under = await checkout(currency, least - 1).catch((error: unknown) => error);
      expect(under).toMatchObject({ code: 'refused', reason: 'invalid_request' });
    },
  );

  it('is one minor unit in a currency Stripe publishes none for (it converts those itself)', () => {
    expect(world.provider.minimumCharge('ISK')).toBe(1);
  });
});
