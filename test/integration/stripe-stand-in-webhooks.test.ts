import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startStripeStandIn } from '#infra/local/stripe/index.ts';
import { expectStripeSchema } from '#test/support/stripe-schemas.ts';
import {
  depositSession,
  sdkFor,
  startStripeWorld,
  startWebhookReceiver,
  waitFor,
} from '#test/support/stripe-world.ts';

// The stand-in's webhooks: signed as Stripe signs them (the official SDK's constructEvent accepts them),
// retried on failures and timeouts, and the faults the soak turns on: duplicates, delays, reordering, late.

const { standIn, stripe, control, receiver } = await startStripeWorld({
  retry: { baseMs: 20, maxMs: 100, maxAttempts: 4, timeoutMs: 300 },
});
const hooks = receiver as NonNullable<typeof receiver>;

beforeEach(async () => {
  hooks.arrivals.length = 0;
  hooks.state.answer = () => 200;
  await control('faults/webhooks', {});
});

/** Creates a session and pays it: two events, payment_intent.succeeded then checkout.session.completed. */
const paidSession = async () => {
  const session = await stripe.checkout.sessions.create(depositSession());
  await control(`checkout/${session.id}/pay`, {});
  return session.id;
};

const typesOf = () => hooks.arrivals.map((arrival) => arrival.event.type);

describe('signed deliveries', () => {
  it("posts each event signed so that the SDK's constructEvent accepts it, and a wrong secret does not", async () => {
    const id = await paidSession();
    await waitFor(() => hooks.arrivals.length >= 2, 'two deliveries');
    for (const arrival of hooks.arrivals) {
      const event = stripe.webhooks.constructEvent(
        arrival.body,
        arrival.headers['stripe-signature'] ?? '',
        standIn.webhookSecret,
      );
      expectStripeSchema(event);
      expect(arrival.headers['stripe-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(arrival.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(() =>
        stripe.webhooks.constructEvent(
          arrival.body,
          arrival.headers['stripe-signature'] ?? '',
          'whsec_other',
        ),
      ).toThrow(Stripe.errors.StripeSignatureVerificationError);
      if (event.type === 'checkout.session.completed') {
        const session: Stripe.Checkout.Session = event.data.object;
        expect([session.id, session.status]).toEqual([id, 'complete']);
      }
    }
    expect(typesOf().sort()).toEqual(['checkout.session.completed', 'payment_intent.succeeded']);
  });

  it('retries an endpoint that answers 500 or does not answer in time, then counts the event delivered', async () => {
    const tries = new Map<string, number>();
    hooks.state.answer = (arrival) => {
      const attempt = (tries.get(arrival.event.id) ?? 0) + 1;
      tries.set(arrival.event.id, attempt);
      if (attempt === 1) return arrival.event.type === 'payment_intent.succeeded' ? 500 : 'hang';
      return 200;
    };
    await paidSession();
    await waitFor(
      () => hooks.arrivals.filter((a) => a.status === 200).length >= 2,
      'two successful deliveries',
    );
    expect([...tries.values()].sort()).toEqual([2, 2]);
    for (const arrival of hooks.arrivals.filter((a) => a.status === 200))
      expect((await stripe.events.retrieve(arrival.event.id)).pending_webhooks).toBe(0);
  });

  it('gives a delivery up after the last attempt and leaves the event pending', async () => {
    hooks.state.answer = () => 503;
    const session = await stripe.checkout.sessions.create(depositSession());
    await stripe.checkout.sessions.expire(session.id);
    const delivery = await waitForDelivery((d) => d.state === 'failed');
    expect(delivery.attempts).toBe(4);
    expect((await stripe.events.retrieve(delivery.eventId)).pending_webhooks).toBe(1);
  });

  it('sends checkout.session.expired when the deadline passes on the stand-in clock', async () => {
    // Five seconds over Stripe's 30-minute least: the stand-in's clock may tick between the read and the create.
    const now = (await control('clock')).json.now as number;
    const session = await stripe.checkout.sessions.create(depositSession({ expires_at: now + 1805 }));
    await control('clock/advance', { seconds: 1805 });
    const arrival = await waitFor(
      () => hooks.arrivals.find((a) => a.event.type === 'checkout.session.expired'),
      'expiry',
    );
    expect((JSON.parse(arrival.body) as Stripe.CheckoutSessionExpiredEvent).data.object.id).toBe(session.id);
  });
});

/** Polls the stand-in's delivery log until a delivery matches. */
async function waitForDelivery(match: (delivery: Record<string, any>) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { json } = await control('deliveries');
    const found = (json.data as Record<string, any>[]).find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting for a delivery');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhook faults', () => {
  it('duplicates every event when asked, counting it once in pending_webhooks', async () => {
    await control('faults/webhooks', { duplicate: true });
    await paidSession();
    await waitFor(() => hooks.arrivals.length >= 4, 'four deliveries');
    const ids = hooks.arrivals.map((a) => a.event.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of new Set(ids)) expect(ids.filter((seen) => seen === id)).toHaveLength(2);
    await waitFor(() => hooks.arrivals.length === 4, 'exactly four');
  });

  it('holds deliveries until released ("late"), then sends them newest first when asked', async () => {
    await control('faults/webhooks', { hold: true });
    await paidSession();
    await waitForDelivery((d) => d.state === 'held');
    expect(hooks.arrivals).toHaveLength(0);
    const { json } = await control('webhooks/release', { order: 'reverse' });
    expect(json.released).toBe(2);
    await waitFor(() => hooks.arrivals.length >= 2, 'the released deliveries');
    expect(typesOf()).toEqual(['checkout.session.completed', 'payment_intent.succeeded']);
  });

  it('reorders deliveries within a window', async () => {
    await control('faults/webhooks', { reorder_window: 2 });
    await paidSession();
    await waitFor(() => hooks.arrivals.length >= 2, 'two deliveries');
    expect(typesOf()).toEqual(['checkout.session.completed', 'payment_intent.succeeded']);
  });

  it('delays deliveries, and resends an event later on request', async () => {
    await control('faults/webhooks', { delay_ms: 100 });
    await paidSession();
    await waitFor(() => hooks.arrivals.length >= 2, 'the delayed deliveries');
    const first = hooks.arrivals[0]?.event.id ?? '';
    expect((await control(`events/${first}/resend`, {})).status).toBe(200);
    await waitFor(() => hooks.arrivals.length >= 3, 'the late copy');
    expect(hooks.arrivals[2]?.event.id).toBe(first);
  });

  it('refuses a control with bad values, and the controls without the key', async () => {
    expect((await control('faults/webhooks', { delay_ms: -1 })).status).toBe(400);
    expect((await control('faults/api', { mode: 'explode' })).status).toBe(400);
    const anonymous = await fetch(`${standIn.url}/_standin/clock`);
    expect(anonymous.status).toBe(401);
  });
});

describe('deliveries across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stripe-stand-in-hooks-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps held deliveries and sends them after the restart', async () => {
    const late = await startWebhookReceiver();
    try {
      const first = await startStripeStandIn({ dataDir, webhookUrls: [late.url] });
      first.controls.setWebhookFaults({ hold: true });
      const session = await sdkFor(first).checkout.sessions.create(depositSession());
      first.controls.pay(session.id);
      await first.stop();
      const second = await startStripeStandIn({ dataDir, webhookUrls: [late.url] });
      try {
        expect(second.controls.releaseWebhooks()).toBe(2);
        await waitFor(() => late.arrivals.length >= 2, 'deliveries after the restart');
        for (const arrival of late.arrivals)
          expect(
            sdkFor(second).webhooks.constructEvent(
              arrival.body,
              arrival.headers['stripe-signature'] ?? '',
              second.webhookSecret,
            ).type,
          ).toBe(arrival.event.type);
      } finally {
        await second.stop();
      }
    } finally {
      await late.stop();
    }
  });
});
