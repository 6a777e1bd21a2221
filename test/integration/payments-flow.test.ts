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

// Issue 43, the booking flow: a customer's create that takes payment holds its stock awaiting payment and
// answers the provider's checkout; paid, the booking is PART or PAID; unpaid at its deadline, it lapses and
// lets go of its stock; paid late, it keeps the money only if it can take its stock back. All against the
// Stripe stand-in, through the real adapter and the stand-in's signed webhooks.

const none = await startPaymentsWorld('pay-none', { take: 'none' });
const deposit = await startPaymentsWorld(
  'pay-deposit',
  { take: 'deposit', deposit: { percent: 30 } },
  {
    cors_origins: ['https://shop.example.com'],
  },
);
const manual = await startPaymentsWorld('pay-manual', { take: 'full', capture: 'manual' });
const short = await startPaymentsWorld('pay-short', { take: 'full', pay_within_minutes: 10 });
const stripe = sdkFor(deposit.standIn);

const typesOf = (events: { type: string; data: Record<string, unknown> }[]) =>
  events.map((event) => event.type);

describe('a tenant that takes no payment', () => {
  it('books as before: no deposit, no payment address, no attempt', async () => {
    const { created, response } = await book(none);
    expect(created.status_id).toBe('PEND');
    expect(created).not.toHaveProperty('payment_url');
    expect(created).not.toHaveProperty('deposit');
    expect(response.json.request.data.url).toBe(created.invoice_url);
    expect((await stored(none, created.booking_id)).attempts).toEqual([]);
  });
});

describe('a deposit', () => {
  it('holds the stock awaiting payment and answers the checkout, its deposit and its deadline', async () => {
    const date = day(31);
    const before = await usedOf(deposit, 1, date);
    const started = Math.floor(Date.now() / 1000);
    const { created, response } = await book(deposit, { date });
    expect(created).toMatchObject({ status_id: 'PEND', total: '40.00', due: '40.00', deposit: '12.00' });
    expect(created.payment_url).toMatch(new RegExp(`^${deposit.standIn.url}/c/pay/cs_`));
    expect(created.customer_payment_url).toBe(created.payment_url);
    expect(response.json.request.data.url).toBe(created.payment_url);
    expect(created.payment_deadline).toBeGreaterThanOrEqual(started + 30 * 60);
    expect(await usedOf(deposit, 1, date)).toBe(before + 1);
    const session = await stripe.checkout.sessions.retrieve(checkoutIdOf(created.payment_url));
    const { attempts } = await stored(deposit, created.booking_id);
    expect(session.metadata).toEqual({
      tenant_id: 'test',
      booking_id: String(created.booking_id),
      booking_code: created.code,
      payment_id: attempts?.[0]?.payment_id,
    });
    expect(session.amount_total).toBe(1200);
    // Stripe keeps a checkout open at least 30 minutes: here the deadline, give or take the margin.
    expect(session.expires_at).toBeGreaterThanOrEqual(created.payment_deadline);
    expect(session.expires_at - created.payment_deadline).toBeLessThanOrEqual(120);
    // Both addresses carry one random return key (the booking page shows the booking to it alone), kept on
    // the attempt with them.
    const key = /[?&]return_key=([0-9a-f-]{36})&/.exec(session.success_url ?? '')?.[1];
    expect(key).toBeDefined();
    expect(session.success_url).toBe(
      `http://api.test/book?booking=${created.code}&return_key=${key}&checkout={CHECKOUT_SESSION_ID}`,
    );
    expect(session.cancel_url).toBe(
      `http://api.test/book?booking=${created.code}&return_key=${key}&payment=cancelled`,
    );
    expect(attempts?.[0]?.cancel_url).toBe(session.cancel_url);
  });

  it('paid, goes to PART with paid_total, a status change and a payment event, and never lapses', async () => {
    const { created } = await book(deposit);
    deposit.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(deposit);
    const record = await stored(deposit, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'PART', paid_total: 1200 });
    expect(record.booking).not.toHaveProperty('budget');
    expect(record.attempts?.[0]).toMatchObject({ status: 'captured', captured: 1200, applied: 1200 });
    expect(record.payments.map((row) => row.amount)).toEqual([1200]);
    const types = typesOf(record.events.sort((a, b) => a.at - b.at));
    expect(types.slice(-2)).toEqual(['booking.status_changed', 'payment.created']);
    await lapse(deposit);
    expect((await stored(deposit, created.booking_id)).booking.status_id).toBe('PART');
  });

  it('declined, records the decline and keeps the booking awaiting payment; paid on a second try, PART', async () => {
    const { created } = await book(deposit);
    const checkoutId = checkoutIdOf(created.payment_url);
    deposit.standIn.controls.decline(checkoutId);
    await settled(deposit);
    let record = await stored(deposit, created.booking_id);
    expect(record.attempts?.[0]).toMatchObject({ status: 'failed', failure: expect.any(String) });
    expect(record.booking).toMatchObject({ status_id: 'PEND', paid_total: 0 });
    expect(typesOf(record.events)).toContain('payment.failed');
    deposit.standIn.controls.pay(checkoutId);
    await settled(deposit);
    record = await stored(deposit, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'PART', paid_total: 1200 });
  });

  it('unpaid at its deadline, lapses: VOID, its stock released, its checkout expired, with the event', async () => {
    const date = day(33);
    const { created } = await book(deposit, { date });
    const held = await usedOf(deposit, 1, date);
    expect(await lapse(deposit, { now: Date.now() + 29 * 60_000 })).toBe(0);
    expect(await lapse(deposit)).toBeGreaterThanOrEqual(1);
    const record = await stored(deposit, created.booking_id);
    expect(record.booking.status_id).toBe('VOID');
    expect(await usedOf(deposit, 1, date)).toBe(held - 1);
    expect(record.attempts?.[0]?.status).toBe('lapsed');
    const lapsed = record.events.find((event) => event.type === 'booking.status_changed');
    expect(lapsed?.data).toMatchObject({ from: 'PEND', to: 'VOID', reason: 'payment_lapsed' });
    const session = await stripe.checkout.sessions.retrieve(checkoutIdOf(created.payment_url));
    expect(session.status).toBe('expired');
    // A second run finds nothing to do.
    expect(await lapse(deposit)).toBe(0);
    expect(await usedOf(deposit, 1, date)).toBe(held - 1);
  });

  it('paid after it lapsed, takes its stock back in one step and keeps the money', async () => {
    const date = day(34);
    const { created } = await book(deposit, { date });
    const held = await usedOf(deposit, 1, date);
    // The provider could not be reached at the deadline: the stock goes anyway, the checkout stays open.
    await lapse(deposit, { provider: null });
    expect(await usedOf(deposit, 1, date)).toBe(held - 1);
    deposit.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(deposit);
    const record = await stored(deposit, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'PART', paid_total: 1200 });
    expect(await usedOf(deposit, 1, date)).toBe(held);
  });

  it('paid after it lapsed when its stock is gone: refunded in full at once, and the booking stays lapsed', async () => {
    const date = day(35);
    const { created } = await book(deposit, { itemId: 2, date });
    await lapse(deposit, { provider: null });
    await book(deposit, { itemId: 2, date, fields: { 'form[customer_email]': 'bob@example.com' } });
    deposit.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(deposit);
    const record = await stored(deposit, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'VOID', paid_total: 0 });
    const attempt = record.attempts?.[0];
    expect(attempt).toMatchObject({ captured: 1200, refunded: 1200, applied: 0 });
    const intent = await deposit.provider.readPayment(attempt?.provider_payment_id as string);
    expect(intent.refunded).toBe(1200);
    expect(typesOf(record.events)).toContain('payment.refunded');
    expect(await usedOf(deposit, 2, date)).toBe(1);
  });

  it('keeps the booking awaiting payment when the provider fails, and the same create opens the checkout', async () => {
    const date = day(36);
    deposit.standIn.controls.failApi({ mode: 'error', when: 'before', count: 1 });
    const first = await book(deposit, { date });
    expect(first.created).toMatchObject({ status_id: 'PEND', payment_status: 'opening', deposit: '12.00' });
    expect(first.created).not.toHaveProperty('payment_url');
    expect(first.response.json.request.data.url).toBe(first.created.invoice_url);
    expect(await usedOf(deposit, 1, date)).toBe(1);
    const again = await createFor(deposit, first.sessionId);
    expect(again.json.booking).toMatchObject({
      booking_id: first.created.booking_id,
      payment_status: 'pending',
    });
    expect(again.json.booking.payment_url).toMatch(/\/c\/pay\/cs_/);
  });

  it('opens the checkout under a new attempt when the first request can no longer be repeated', async () => {
    deposit.standIn.controls.failApi({ mode: 'error', when: 'before', count: 1 });
    const first = await book(deposit, { date: day(40) });
    expect(first.created.payment_status).toBe('opening');
    deposit.shift(60_000);
    try {
      const again = await createFor(deposit, first.sessionId);
      expect(again.json.booking.payment_url).toMatch(/\/c\/pay\/cs_/);
      const record = await stored(deposit, first.created.booking_id);
      expect(record.attempts).toHaveLength(2);
      const opened = record.attempts?.find((one) => one.status === 'pending');
      expect(record.booking.payment?.payment_id).toBe(opened?.payment_id);
      expect(record.booking.payment?.deadline).toBe(first.created.payment_deadline);
    } finally {
      deposit.shift(-60_000);
    }
  });

  it('returns the guest to a page on one of the tenant origins, and refuses any other, changing nothing', async () => {
    const { created } = await book(deposit, { fields: { return_url: 'https://shop.example.com/stay?x=1' } });
    const session = await stripe.checkout.sessions.retrieve(checkoutIdOf(created.payment_url));
    expect(session.success_url).toMatch(
      new RegExp(
        `^https://shop\\.example\\.com/stay\\?x=1&booking=${created.code}&return_key=[\\da-f-]{36}&checkout=\\{CHECKOUT_SESSION_ID\\}$`,
      ),
    );
    const date = day(37);
    const refused = await book(deposit, { date, fields: { return_url: 'https://evil.example.net/' } });
    expect(refused.response.status).toBe(400);
    expect(refused.response.json.request.error).toMatchObject({ id: 'validation_error' });
    expect(refused.response.json.request.error.data).toHaveProperty('return_url');
  });
});

describe('manual capture', () => {
  it('authorised, keeps the booking awaiting capture past its deadline; captured in part, PART with what was paid', async () => {
    const { created } = await book(manual);
    expect(created.deposit).toBe('40.00');
    manual.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(manual);
    let record = await stored(manual, created.booking_id);
    expect(record.attempts?.[0]).toMatchObject({ status: 'authorised', captured: 0 });
    expect(record.booking).toMatchObject({ status_id: 'PEND', paid_total: 0 });
    await lapse(manual);
    expect((await stored(manual, created.booking_id)).booking.status_id).toBe('PEND');
    const attempt = record.attempts?.[0];
    await manual.provider.capture(attempt?.provider_payment_id as string, {
      paymentId: attempt?.payment_id as string,
      amount: 3000,
    });
    await settled(manual);
    record = await stored(manual, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'PART', paid_total: 3000 });
  });

  it('authorised after it lapsed when its stock is gone: the authorisation is cancelled, nobody is charged', async () => {
    const date = day(38);
    const { created } = await book(manual, { itemId: 2, date });
    await lapse(manual, { provider: null });
    await book(manual, { itemId: 2, date, fields: { 'form[customer_email]': 'bob@example.com' } });
    manual.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(manual);
    const record = await stored(manual, created.booking_id);
    expect(record.booking.status_id).toBe('VOID');
    const intent = await manual.provider.readPayment(record.attempts?.[0]?.provider_payment_id as string);
    expect(intent).toMatchObject({ state: 'cancelled', captured: 0 });
  });
});

describe('a deadline under the 30 minutes Stripe keeps a checkout open', () => {
  it('opens the checkout for 30 minutes and lets the booking lapse at its own deadline, closing the checkout', async () => {
    const date = day(39);
    const { created } = await book(short, { date });
    const started = Math.floor(Date.now() / 1000);
    expect(created.payment_deadline - started).toBeLessThanOrEqual(10 * 60);
    const session = await sdkFor(short.standIn).checkout.sessions.retrieve(checkoutIdOf(created.payment_url));
    expect(session.expires_at - started).toBeGreaterThanOrEqual(30 * 60);
    expect(await lapse(short, { now: Date.now() + 11 * 60_000 })).toBe(1);
    expect((await stored(short, created.booking_id)).booking.status_id).toBe('VOID');
    expect((await sdkFor(short.standIn).checkout.sessions.retrieve(session.id)).status).toBe('expired');
    expect(await usedOf(short, 1, date)).toBe(0);
  });
});
