import type Stripe from 'stripe';
import { describe, expectTypeOf, it } from 'vitest';
import type { EventObject, Ledger } from '#infra/local/stripe/ledger.ts';
import type { chargeObject, intentObject, refundObject, sessionObject } from '#infra/local/stripe/objects.ts';
import type { EventType } from '#infra/local/stripe/state.ts';

// Type-level checks (`npm run typecheck` fails when they do): the stand-in's objects are the SDK's own types,
// and each event it emits carries the object the SDK says that event type carries.

describe("the stand-in's objects against the SDK's types", () => {
  it('builds each object as the SDK types it', () => {
    expectTypeOf<ReturnType<typeof sessionObject>>().toEqualTypeOf<Stripe.Checkout.Session>();
    expectTypeOf<ReturnType<typeof intentObject>>().toEqualTypeOf<Stripe.PaymentIntent>();
    expectTypeOf<ReturnType<typeof chargeObject>>().toEqualTypeOf<Stripe.Charge>();
    expectTypeOf<ReturnType<typeof refundObject>>().toEqualTypeOf<Stripe.Refund>();
    expectTypeOf<ReturnType<Ledger['viewEvent']>>().toExtend<Stripe.EventBase>();
  });

  it('emits only event types the SDK knows, each with its own object', () => {
    expectTypeOf<EventType>().toExtend<Stripe.Event['type']>();
    expectTypeOf<EventObject<'checkout.session.completed'>>().toEqualTypeOf<Stripe.Checkout.Session>();
    expectTypeOf<EventObject<'checkout.session.expired'>>().toEqualTypeOf<Stripe.Checkout.Session>();
    expectTypeOf<EventObject<'payment_intent.succeeded'>>().toEqualTypeOf<Stripe.PaymentIntent>();
    expectTypeOf<
      EventObject<'payment_intent.amount_capturable_updated'>
    >().toEqualTypeOf<Stripe.PaymentIntent>();
    expectTypeOf<EventObject<'payment_intent.payment_failed'>>().toEqualTypeOf<Stripe.PaymentIntent>();
    expectTypeOf<EventObject<'payment_intent.canceled'>>().toEqualTypeOf<Stripe.PaymentIntent>();
    expectTypeOf<EventObject<'charge.refunded'>>().toEqualTypeOf<Stripe.Charge>();
    expectTypeOf<Ledger['emit']>().parameter(1).not.toBeAny();
  });
});
