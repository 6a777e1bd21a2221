import { afterEach, describe, expect, it } from 'vitest';
import { runPaymentsReconcile } from '#lib/housekeeping/index.ts';
import { post } from '#test/support/payments-staff.ts';
import {
  book,
  checkoutIdOf,
  postWebhook,
  settled,
  signed,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// An adversarial pass on issue 43's "staff keeping money": a staff cancel of a booking holding captured money
// marks it kept; what races that cancel (the guest's payment landing at the same moment) and what follows it (a
// refund, the provider's own refund event) must leave the money counted once and reconcile clean.

const world = await startPaymentsWorld('pay-adv-keep', { take: 'full' });
const stripe = sdkFor(world.standIn);
const secret = world.standIn.webhookSecret;

afterEach(async () => {
  world.standIn.controls.setWebhookFaults({});
  world.standIn.controls.releaseWebhooks();
  await settled(world);
});

/** A booking of three kayaks (120.00) whose guest has paid at the provider, its events held back. */
async function paidUndelivered() {
  const { created } = await book(world, { qty: 3 });
  const checkoutId = checkoutIdOf(created.payment_url as string);
  world.standIn.controls.setWebhookFaults({ hold: true });
  world.standIn.controls.pay(checkoutId);
  const events = (await stripe.events.list({ limit: 100 })).data.filter(
    (one) =>
      (one.data.object as { id?: string }).id === checkoutId && one.type === 'checkout.session.completed',
  );
  expect(events).toHaveLength(1);
  return {
    code: created.code as string,
    bookingId: created.booking_id as number,
    body: JSON.stringify(events[0]),
  };
}

const cancel = (code: string) => post(world, `booking/${code}/update`, { status_id: 'CANCELLED' });

/** The booking's money: the table's, the provider's, and what reconcile says of it. */
async function money(bookingId: number, code: string) {
  const record = await stored(world, bookingId);
  const attempt = record.attempts?.[0];
  const payment = await world.provider.readPayment(attempt?.provider_payment_id as string);
  const report = await runPaymentsReconcile(world.db, { provider: world.provider });
  const named = report.discrepancies.filter(
    (one) =>
      ('booking' in one && one.booking === code) || JSON.stringify(one).includes(payment.providerPaymentId),
  );
  return { record, attempt, payment, named };
}

describe('a staff cancel racing the guest’s payment', () => {
  it('at the same instant: either kept (counted, marked) or given back in full, never half of each', async () => {
    for (let round = 0; round < 3; round += 1) {
      const booking = await paidUndelivered();
      const [cancelled, delivered] = await Promise.all([
        cancel(booking.code),
        postWebhook(world.handlers, booking.body, { 'stripe-signature': signed(booking.body, secret) }),
      ]);
      expect(cancelled.status, JSON.stringify(cancelled.json.request)).toBe(200);
      expect(delivered.status, JSON.stringify(delivered.json)).toBe(200);
      world.standIn.controls.setWebhookFaults({});
      world.standIn.controls.releaseWebhooks();
      await settled(world);
      const { record, attempt, payment, named } = await money(booking.bookingId, booking.code);
      expect(record.booking.status_id).toBe('CANCELLED');
      if (attempt?.kept) {
        // The payment was counted before the cancel: staff kept it.
        expect(record.booking.paid_total).toBe(12000);
        expect(payment).toMatchObject({ captured: 12000, refunded: 0 });
      } else {
        // The cancel came first: the payment arrived for a cancelled booking and went back in full.
        expect(record.booking.paid_total).toBe(0);
        expect(payment).toMatchObject({ captured: 12000, refunded: 12000 });
      }
      expect(attempt).toMatchObject({ captured: payment.captured, refunded: payment.refunded });
      expect(named).toEqual([]);
    }
  });
});

describe('money kept, then given back', () => {
  it('a refund through the route, then the provider’s own refund event: counted once, reconcile clean', async () => {
    const booking = await paidUndelivered();
    world.standIn.controls.setWebhookFaults({});
    world.standIn.controls.releaseWebhooks();
    await settled(world);
    expect((await cancel(booking.code)).status).toBe(200);
    const kept = await stored(world, booking.bookingId);
    expect(kept.attempts?.[0]?.kept).toBeDefined();
    const paymentId = kept.attempts?.[0]?.payment_id as string;
    const part = await post(world, `booking/${booking.code}/payment/${paymentId}/refund`, {
      amount: '20.00',
    });
    expect(part.status, JSON.stringify(part.json.request)).toBe(200);
    await settled(world);
    const rest = await post(world, `booking/${booking.code}/payment/${paymentId}/refund`, {});
    expect(rest.status, JSON.stringify(rest.json.request)).toBe(200);
    await settled(world);
    const { record, payment, named } = await money(booking.bookingId, booking.code);
    expect(record.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: 0 });
    expect(payment).toMatchObject({ captured: 12000, refunded: 12000 });
    expect(record.payments.reduce((sum, one) => sum + one.amount, 0)).toBe(0);
    expect(
      record.events.filter((one) => one.type === 'payment.refunded').map((one) => one.data.amount),
    ).toEqual([2000, 10000]);
    expect(named).toEqual([]);
  });
});

describe('a staff cancel of a booking nobody has paid yet', () => {
  it('the guest paying on the checkout still open after it: the money goes back in full, nothing kept', async () => {
    const { created } = await book(world, { qty: 3 });
    expect((await cancel(created.code)).status).toBe(200);
    // The bookings function makes no provider call: the checkout stays open until its own expiry.
    world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(world);
    const { record, attempt, payment, named } = await money(created.booking_id, created.code);
    expect(record.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: 0 });
    expect(attempt?.kept).toBeUndefined();
    expect(payment).toMatchObject({ captured: 12000, refunded: 12000 });
    expect(named).toEqual([]);
    // Given back because staff cancelled it, not because its deadline passed: the event says so.
    const refunded = record.events.filter((one) => one.type === 'payment.refunded');
    expect(refunded.map((one) => one.data.reason)).toEqual(['booking_cancelled']);
  });
});
