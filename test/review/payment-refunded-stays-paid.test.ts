import { describe, expect, it } from 'vitest';
import { book, checkoutIdOf, settled, startPaymentsWorld, stored } from '#test/support/payments-world.ts';

// Review of issue 43 (item 3: "Paid: a deposit moves it to PART, the full amount to PAID; `paid_total`
// follows"; item 4 handles `charge.refunded`).
// Found: a payment refunded in full at the provider (Stripe's dashboard, or a dispute's refund) reaches the
// booking through `charge.refunded`: `paid_total` goes back to 0, but the status stays PAID (`statusAfter`
// only ever moves a status on a positive delta). The booking says PAID with nothing paid and the whole total
// due; a part refund likewise leaves PAID with less than the total paid.

const world = await startPaymentsWorld('rev-pay-refunded', { take: 'full' });

describe('a payment refunded at the provider', () => {
  it('does not leave the booking PAID with nothing paid', async () => {
    const { created } = await book(world);
    world.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(world);
    const paid = await stored(world, created.booking_id);
    expect(paid.booking).toMatchObject({ status_id: 'PAID', paid_total: 4000 });
    const attempt = paid.attempts?.[0];
    await world.provider.refund(attempt?.provider_payment_id as string, {
      paymentId: attempt?.payment_id as string,
      refundId: 'dashboard',
      amount: 4000,
    });
    await settled(world);
    const after = await stored(world, created.booking_id);
    expect(after.booking.paid_total).toBe(0);
    expect(after.booking.status_id).not.toBe('PAID');
  });
});
