import { describe, expect, it } from 'vitest';
import { stripeProvider } from '#lib/payments/index.ts';
import { book, day, lapse, startPaymentsWorld, stored } from '#test/support/payments-world.ts';

// Review of issue 43 (item 3: not paid by the deadline, "its stock is released"; item 9: "the provider answering
// 500 or hanging"; docs/payments.md: "A provider that cannot be reached does not keep the stock: the booking
// lapses anyway").
// Found: `lapseUnpaidPayments` closes each due booking's checkout at the provider one after the other, with no
// time budget. With the production adapter's defaults (8 s timeout, 2 retries, up to 3 tries a booking) and the
// provider hanging, four due bookings are not done in 60 s (measured), past the sweeper Lambda's 60 s timeout (infra/constructs/
// functions.ts; the lapse starts only after up to 40 s of SWEEP_BUDGET_MS). A timed-out run lapses at most the
// first one or two, in deadline order, every minute: while the provider hangs, bookings past their deadline keep
// their stock for many minutes, and a backlog of due bookings never drains if more arrive than that.
// The limits are scaled down so the test takes seconds (fix of the review): the adapter's timeout to 1 s (its
// default 2 retries kept: about 4.5 s a call, 18 s for the four without a budget), the lapse's provider call to
// 1 s and its budget (the sweep's time left) to 5 s; the bound is the budget with room, far under the 18 s.

const world = await startPaymentsWorld('rev-pay-hang', { take: 'full' });

describe('the sweeper while the provider hangs', () => {
  it('lets four unpaid bookings lapse within the sweep’s budget', async () => {
    const created = [];
    for (let n = 0; n < 4; n += 1) created.push((await book(world, { date: day(60 + n) })).created);
    // The adapter as provider-from-env builds it in AWS (its own retries), with a shorter timeout.
    const production = await stripeProvider({
      secretKey: world.standIn.secretKey,
      webhookSecret: world.standIn.webhookSecret,
      apiBase: world.standIn.url,
      timeoutMs: 1000,
    });
    world.standIn.controls.failApi({ mode: 'hang', when: 'before', count: 1000 });
    const sweep = lapse(world, { provider: production, endBy: Date.now() + 5000, providerCallMs: 1000 }).then(
      () => 'done' as const,
    );
    const bound = new Promise<'cut off'>((resolve) => setTimeout(() => resolve('cut off'), 8000));
    expect(await Promise.race([sweep, bound])).toBe('done');
    for (const one of created) expect((await stored(world, one.booking_id)).booking.status_id).toBe('VOID');
  });
});
