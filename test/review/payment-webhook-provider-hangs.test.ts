import { describe, expect, it } from 'vitest';
import { stripeProvider } from '#lib/payments/index.ts';
import {
  book,
  checkoutIdOf,
  postWebhook,
  signed,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// Review of issue 43 (the lead's, 28 November): the webhook route read the provider's object back with the
// adapter as deployed (8 s a try, two retries), so a provider that hung held a delivery about 25 s
// and more, past the 30 s lease of the event's claim, and answered 500 when it gave up. Now each call has
// WEBHOOK_PROVIDER_CALL_MS (here 500 ms) and all of them twice that: a hang is a 503 the provider retries,
// the event given back, and the next delivery applies it.

const world = await startPaymentsWorld(
  'rev-pay-hook-hang',
  { take: 'full' },
  {},
  {},
  { providerCallMs: 500 },
);
const stripe = sdkFor(world.standIn);

describe('the webhook route while the provider hangs', () => {
  it('answers 503 within its bound, gives the event back, and a later delivery applies it', async () => {
    const { created } = await book(world);
    const checkoutId = checkoutIdOf(created.payment_url as string);
    world.standIn.controls.setWebhookFaults({ hold: true });
    world.standIn.controls.pay(checkoutId);
    const [event] = (await stripe.events.list({ limit: 100 }).autoPagingToArray({ limit: 1000 })).filter(
      (one) =>
        one.type === 'checkout.session.completed' && (one.data.object as { id: string }).id === checkoutId,
    );
    const body = JSON.stringify(event);
    // The adapter as provider-from-env builds it in AWS: its own timeout and retries.
    world.swap(
      stripeProvider({
        secretKey: world.standIn.secretKey,
        webhookSecret: world.standIn.webhookSecret,
        apiBase: world.standIn.url,
      }),
    );
    world.standIn.controls.failApi({ mode: 'hang', when: 'before', count: 1000 });
    const cutOff = new Promise<'cut off'>((resolve) => setTimeout(() => resolve('cut off'), 5_000));
    const delivery = postWebhook(world.handlers, body, {
      'stripe-signature': signed(body, world.standIn.webhookSecret),
    });
    const answer = await Promise.race([delivery, cutOff]);
    expect(answer, 'the delivery still waits on the provider after 5 s').not.toBe('cut off');
    if (answer === 'cut off') return;
    expect(answer.status).toBe(503);
    expect(answer.json.request.error.id).toBe('busy');
    expect(answer.headers['retry-after']).toBe('30');
    expect((await stored(world, created.booking_id)).booking.paid_total).toBe(0);

    world.standIn.controls.clearApiFaults();
    const again = await postWebhook(world.handlers, body, {
      'stripe-signature': signed(body, world.standIn.webhookSecret),
    });
    expect(again.status).toBe(200);
    expect(again.json.outcome).toBe('applied');
    expect((await stored(world, created.booking_id)).booking.paid_total).toBeGreaterThan(0);
  });
});
