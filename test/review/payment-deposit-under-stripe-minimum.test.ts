import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { book, startPaymentsWorld } from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// Review of issue 43 (item 2: a deposit "a percent or a fixed amount"; item 6: the stand-in's answers are
// checked "so the stand-in cannot drift into a dialect of its own"; house rule: "Bad input gets a clear error").
// Found: a percent deposit is rounded to as little as 1 minor unit (`dueNow`: max(deposit, 1)), and the
// stand-in opens a Checkout Session for any amount. Stripe refuses a Checkout Session whose total is under the
// currency's minimum charge (0.50 CAD; docs.stripe.com "Minimum and maximum charge amounts"). With a real key,
// a 1 % deposit of a 40.00 booking (0.40) fails at every create: the booking holds its stock as `opening` with
// no payment_url until it lapses, and the guest can never pay. The stand-in hides it (docs/payments-stand-in.md
// lists minimum amounts as "a rule the service does not exercise"; this flow does exercise it).

const world = await startPaymentsWorld('rev-pay-minimum', { take: 'deposit', deposit: { percent: 1 } });
const stripe = sdkFor(world.standIn);

describe('a deposit under the provider’s minimum charge', () => {
  it('is not asked of the guest as a 0.40 CAD checkout that Stripe would refuse', async () => {
    const { created } = await book(world);
    expect(created.due).toBe('40.00');
    // What the guest is asked now must be an amount Stripe can charge in CAD.
    expect(Number(created.deposit)).toBeGreaterThanOrEqual(0.5);
  });

  it('is refused by the stand-in as Stripe refuses a Checkout Session under 0.50 CAD', async () => {
    const attempt = stripe.checkout.sessions.create({
      mode: 'payment',
      currency: 'cad',
      line_items: [
        { price_data: { currency: 'cad', product_data: { name: 'Deposit' }, unit_amount: 40 }, quantity: 1 },
      ],
      expires_at: world.standIn.controls.now() + 3600,
      success_url: 'https://shop.example.com/done',
      cancel_url: 'https://shop.example.com/',
    });
    await expect(attempt).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  });
});
