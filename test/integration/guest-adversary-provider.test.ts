import { describe, expect, it } from 'vitest';
import { PaymentProviderError } from '#lib/payments/index.ts';
import { guestConfirm, guestQuote, TWO_TIERS } from '#test/support/guest-cancel.ts';
import { post } from '#test/support/payments-staff.ts';
import {
  book,
  checkoutIdOf,
  day,
  settled,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';

// Issue 44, the adversarial pass: the guest's cancel (item 3) and a provider that made the refund while its
// answer to us was lost. "Sent again, it answers the same", whatever the provider told us meanwhile.

const POLICY = {
  cancellation: {
    refunds: TWO_TIERS,
    fee: 1000,
  },
};

const world = await startPaymentsWorld('guest-adv-provider', { take: 'full' }, {}, { policy: POLICY });

const quote = (code: string, token: string) => guestQuote(world, code, token);
const confirm = (code: string, token: string, quoteId: string) => guestConfirm(world, code, token, quoteId);

describe('a refund the provider made while its answer was lost', () => {
  it('is recorded once when the guest sends the cancel again, after the provider told of it', async () => {
    const { created } = await book(world, { qty: 3, date: day(30) });
    world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(world);
    const { quote: quoteId } = (await quote(created.code, created.token)).json.cancellation;
    // The provider makes the refund, then the answer is lost (and reading it back fails too).
    world.swap({
      ...world.provider,
      refund: async (...args: Parameters<typeof world.provider.refund>) => {
        await world.provider.refund(...args);
        throw new PaymentProviderError('unavailable');
      },
    });
    const lost = await confirm(created.code, created.token, quoteId).finally(() =>
      world.swap(world.provider),
    );
    expect(lost.status).toBe(503);
    // The provider's charge.refunded arrives meanwhile and is recorded on the cancelled booking.
    await settled(world);
    expect((await stored(world, created.booking_id)).attempts?.[0]?.refunded).toBe(11000);

    const again = await confirm(created.code, created.token, quoteId);
    expect(again.status, JSON.stringify(again.json.request)).toBe(200);
    expect(again.json.cancellation).toMatchObject({ refund: '110.00', through_provider: '110.00' });
    await settled(world);
    const record = await stored(world, created.booking_id);
    const [attempt] = record.attempts ?? [];
    expect(attempt?.refunded).toBe(11000);
    expect(record.booking.paid_total).toBe(1000);
    expect((await world.provider.readPayment(attempt?.provider_payment_id as string)).refunded).toBe(11000);
  });
});

describe("staff touching a guest's cancel whose refund is still owed", () => {
  it('leaves the refund to be made when the guest sends the cancel again', async () => {
    const { created } = await book(world, { qty: 3, date: day(30) });
    world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(world);
    const { quote: quoteId } = (await quote(created.code, created.token)).json.cancellation;
    world.standIn.controls.failApi({ mode: 'error', when: 'before', count: 5 });
    const down = await confirm(created.code, created.token, quoteId);
    world.standIn.controls.clearApiFaults();
    expect(down.status).toBe(503);
    // Staff set it to VOID (from CANCELLED: nothing is released or kept again).
    const voided = await post(world, `booking/${created.code}/update`, { status_id: 'VOID' });
    expect(voided.status, JSON.stringify(voided.json.request)).toBe(200);

    const again = await confirm(created.code, created.token, quoteId);
    expect(again.status, JSON.stringify(again.json.request)).toBe(200);
    expect(again.json.cancellation).toMatchObject({ refund: '110.00', through_provider: '110.00' });
    await settled(world);
    const record = await stored(world, created.booking_id);
    expect(record.attempts?.[0]?.refunded).toBe(11000);
  });
});

describe('confirms sent at once', () => {
  it('all answer the same cancel, whichever of them records the refund first', async () => {
    const bookings = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const { created } = await book(world, { qty: 3, date: day(30) });
        world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
        return created as { code: string; booking_id: number; token: string };
      }),
    );
    await settled(world);
    const answers = await Promise.all(
      bookings.map(async (created) => {
        const { quote: quoteId } = (await quote(created.code, created.token)).json.cancellation;
        return Promise.all(Array.from({ length: 4 }, () => confirm(created.code, created.token, quoteId)));
      }),
    );
    const statuses = answers.flat().map((one) => `${one.status} ${one.json.request.error?.details ?? ''}`);
    expect(statuses).toEqual(Array(48).fill('200 '));
    await settled(world);
    for (const created of bookings)
      expect((await stored(world, created.booking_id)).attempts?.[0]?.refunded).toBe(11000);
  });
});

describe('a revived booking whose first cancel refunded while its answer was lost', () => {
  // Found by the soak (seed 51226806): the provider made the first cancel's refund and the answer was lost,
  // its webhook late; staff revived the booking and its guest cancelled again, sharing out what was paid as
  // if that refund were still there, so the guest got back more than the policy gives.
  it('shares out only what the first refund left, and records the first refund as made', async () => {
    const { created } = await book(world, { qty: 3, date: day(5) });
    world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(world);
    const first = (await quote(created.code, created.token)).json.cancellation;
    // Half back of 120.00, less the 10.00 fee: 50.00.
    expect(first).toMatchObject({ refund: '50.00', paid: '120.00' });
    world.standIn.controls.setWebhookFaults({ hold: true });
    world.swap({
      ...world.provider,
      refund: async (...args: Parameters<typeof world.provider.refund>) => {
        await world.provider.refund(...args);
        throw new PaymentProviderError('unavailable');
      },
    });
    const lost = await confirm(created.code, created.token, first.quote).finally(() =>
      world.swap(world.provider),
    );
    expect(lost.status).toBe(503);
    expect((await post(world, `booking/${created.code}/update`, { status_id: 'PAID' })).status).toBe(200);
    const second = (await quote(created.code, created.token)).json.cancellation;
    // 70.00 is what the first refund left: half of it back, less the fee.
    expect(second).toMatchObject({ paid: '70.00', refund: '25.00' });
    const done = await confirm(created.code, created.token, second.quote);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    world.standIn.controls.setWebhookFaults({});
    world.standIn.controls.releaseWebhooks();
    await settled(world);
    const record = await stored(world, created.booking_id);
    const attempt = record.attempts?.[0];
    const atProvider = await world.provider.readPayment(attempt?.provider_payment_id as string);
    expect(atProvider.refunded).toBe(7500);
    expect(attempt?.refunded).toBe(7500);
    expect(record.booking.paid_total).toBe(4500);
  });
});
