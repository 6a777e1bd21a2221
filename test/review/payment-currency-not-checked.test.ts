import { describe, expect, it } from 'vitest';
import { book, settled, startPaymentsWorld, stored } from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// Review of issue 43 (item 4 and "Bad input and hostile callers": "an amount that does not match what is due
// ... each a clear answer, nothing counted twice"; pretix: "each payment attempt is its own record").
// Found: the webhook applies any payment of this tenant whose metadata names a booking and attempt, without
// checking that it is the attempt's own checkout or in the attempt's currency. A payment of 40.00 USD (here a
// second checkout on the same account, e.g. a Payment Link or a copy of the metadata) is counted as 40.00 CAD:
// the booking goes to PAID with paid_total 4000 although no CAD was taken, and the attempt's own checkout
// stays open, so the guest can pay again (paid twice, counted once). And a second 40.00 CAD payment naming an
// attempt already paid is dropped as `unchanged` (captured = max of the two): kept at the provider, never
// recorded, never refunded ("nothing lost").

const world = await startPaymentsWorld('rev-pay-currency', { take: 'full' });
const stripe = sdkFor(world.standIn);

const otherCheckout = async (metadata: Record<string, string>, currency: string, amount: number) =>
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

describe('a payment that is not the attempt’s own', () => {
  it('does not count 40.00 USD as 40.00 CAD against a CAD booking', async () => {
    const { created } = await book(world);
    const attempt = (await stored(world, created.booking_id)).attempts?.[0];
    expect(attempt?.currency).toBe('CAD');
    const metadata = {
      tenant_id: 'test',
      booking_id: String(created.booking_id),
      booking_code: created.code,
      payment_id: attempt?.payment_id as string,
    };
    const usd = await otherCheckout(metadata, 'usd', 4000);
    world.standIn.controls.pay(usd.id);
    await settled(world);
    const after = await stored(world, created.booking_id);
    // No Canadian dollar was taken: the booking is not paid in CAD.
    expect(after.booking.paid_total).toBe(0);
    expect(after.booking.status_id).toBe('PEND');
  });

  it('does not lose a second payment of 40.00 CAD naming an attempt already paid (neither counted nor given back)', async () => {
    const { created } = await book(world);
    const attempt = (await stored(world, created.booking_id)).attempts?.[0];
    world.standIn.controls.pay(created.payment_url.slice(created.payment_url.lastIndexOf('/') + 1));
    await settled(world);
    expect((await stored(world, created.booking_id)).booking.paid_total).toBe(4000);
    const metadata = {
      tenant_id: 'test',
      booking_id: String(created.booking_id),
      booking_code: created.code,
      payment_id: attempt?.payment_id as string,
    };
    const second = await otherCheckout(metadata, 'cad', 4000);
    world.standIn.controls.pay(second.id);
    await settled(world);
    const intent = await stripe.paymentIntents.retrieve(
      (await stripe.checkout.sessions.retrieve(second.id)).payment_intent as string,
    );
    const after = await stored(world, created.booking_id);
    // 80.00 taken in all: either the booking records it (flagged overpaid) or the second 40.00 went back.
    const refunds = await stripe.refunds.list({ payment_intent: intent.id });
    const givenBack = refunds.data.reduce((sum, one) => sum + one.amount, 0);
    expect(intent.amount_received).toBe(4000);
    expect({ paid_total: after.booking.paid_total, givenBack }).not.toEqual({
      paid_total: 4000,
      givenBack: 0,
    });
  });
});
