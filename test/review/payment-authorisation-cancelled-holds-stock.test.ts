import { describe, expect, it } from 'vitest';
import {
  book,
  checkoutIdOf,
  day,
  lapse,
  settled,
  startPaymentsWorld,
  stored,
  usedOf,
} from '#test/support/payments-world.ts';

// Review of issue 43 (title: "a booking is paid, or it lets go of its stock"; item 3: "Not paid by the
// deadline: the booking lapses ... its stock is released"; item 4 handles `payment_intent.canceled`).
// Found: with `capture: manual`, the authorisation takes the booking's PAYMENT_DUE mark away. When the
// authorisation is then cancelled at the provider (Stripe cancels an uncaptured PaymentIntent after 7 days,
// or someone cancels it in the dashboard), `payment_intent.canceled` only marks the attempt `cancelled`: the
// booking stays PEND, paid_total 0, holding its stock with no deadline left; no sweep ever lets it go.

const world = await startPaymentsWorld('rev-pay-auth-cancel', { take: 'full', capture: 'manual' });

describe('an authorisation cancelled at the provider before anyone captured it', () => {
  it('does not leave the booking holding its stock with nothing paid and no deadline', async () => {
    const date = day(42);
    const { created } = await book(world, { itemId: 2, date });
    world.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(world);
    const authorised = await stored(world, created.booking_id);
    const attempt = authorised.attempts?.[0];
    expect(attempt).toMatchObject({ status: 'authorised', captured: 0 });

    // The provider lets the authorisation go (as Stripe does when it is not captured within 7 days).
    await world.provider.cancel(attempt?.provider_payment_id as string, { paymentId: 'outside-our-flow' });
    await settled(world);
    expect(world.answered.some((one) => one.type === 'payment_intent.canceled')).toBe(true);
    // (Found by its id: a new attempt, with a new checkout, now stands beside it; fix of the review.)
    const cancelled = (await stored(world, created.booking_id)).attempts?.find(
      (one) => one.payment_id === attempt?.payment_id,
    );
    expect(cancelled?.status).toBe('cancelled');

    // Long past the deadline, nothing is paid or authorised: the stock must not stay held.
    await lapse(world, { now: Date.now() + 10 * 86_400_000 });
    const after = await stored(world, created.booking_id);
    expect(after.booking.paid_total).toBe(0);
    expect(await usedOf(world, 2, date)).toBe(0);
  });
});
