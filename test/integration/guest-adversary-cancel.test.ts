import { describe, expect, it } from 'vitest';
import { guestConfirm, guestQuote, paidBooking as paidOn, TWO_TIERS } from '#test/support/guest-cancel.ts';
import { post, setPaid } from '#test/support/payments-staff.ts';
import {
  book,
  checkoutIdOf,
  day,
  settled,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';

// Issue 44, the adversarial pass: the guest's cancel (item 3) against what a booking goes through after it.

const POLICY = {
  cancellation: {
    refunds: TWO_TIERS,
    fee: 1000,
    cutoff: { hours: 48 },
    staff_override: true,
  },
};

const world = await startPaymentsWorld('guest-adv-cancel', { take: 'full' }, {}, { policy: POLICY });

const quote = (code: string, token: string) => guestQuote(world, code, token);
const confirm = (code: string, token: string, quoteId: string) => guestConfirm(world, code, token, quoteId);

const paidBooking = (qty = 3) => paidOn(world, { qty });

describe('a booking its guest cancelled and staff revived', () => {
  it('is cancelled again by its guest, not answered with the first cancel', async () => {
    const created = await paidBooking();
    const first = (await quote(created.code, created.token)).json.cancellation;
    expect((await confirm(created.code, created.token, first.quote)).status).toBe(200);
    await settled(world);
    // Staff take it back (the guest changed their mind): 10.00 kept, so 110.00 is due again.
    const revived = await post(world, `booking/${created.code}/update`, { status_id: 'PART' });
    expect(revived.status, JSON.stringify(revived.json.request)).toBe(200);
    expect((await stored(world, created.booking_id)).booking.status_id).toBe('PART');

    const second = await quote(created.code, created.token);
    expect(second.status, JSON.stringify(second.json.request)).toBe(200);
    expect(second.json.cancellation).toMatchObject({ paid: '10.00', refund: '0.00' });
    const answer = await confirm(created.code, created.token, second.json.cancellation.quote);
    expect(answer.status, JSON.stringify(answer.json.request)).toBe(200);
    expect(answer.json.booking.status_id).toBe('CANCELLED');
    expect(answer.json.cancellation).toMatchObject({ paid: '10.00', refund: '0.00' });
    const record = await stored(world, created.booking_id);
    expect(record.booking.status_id).toBe('CANCELLED');
    expect(record.attempts?.[0]?.refunded).toBe(11000);
  });
});

describe('a booking its guest cancelled, staff revived and took the rest of at the desk', () => {
  it('gives back through the provider what it still holds when its guest cancels again', async () => {
    const created = await paidBooking();
    const first = (await quote(created.code, created.token)).json.cancellation;
    expect((await confirm(created.code, created.token, first.quote)).status).toBe(200);
    await settled(world);
    expect((await post(world, `booking/${created.code}/update`, { status_id: 'PART' })).status).toBe(200);
    expect((await setPaid(world, created.code)).status).toBe(200);

    // 120.00 paid again: 10.00 still at the provider, 110.00 at the desk; 110.00 comes back.
    const second = (await quote(created.code, created.token)).json.cancellation;
    expect(second).toMatchObject({ paid: '120.00', refund: '110.00' });
    const answer = await confirm(created.code, created.token, second.quote);
    expect(answer.status, JSON.stringify(answer.json.request)).toBe(200);
    expect(answer.json.cancellation).toMatchObject({ through_provider: '10.00', owed: '100.00' });
    await settled(world);
    const record = await stored(world, created.booking_id);
    const attempt = record.attempts?.find((one) => one.provider === 'stripe');
    expect(attempt?.refunded).toBe(12000);
    expect((await world.provider.readPayment(attempt?.provider_payment_id as string)).refunded).toBe(12000);
  });
});

describe('a stale quote', () => {
  it('is answered with the new quote as the quote route shows it: money as money, the cutoff in seconds', async () => {
    const created = await paidBooking();
    const shown = (await quote(created.code, created.token)).json.cancellation;
    const stale = await confirm(created.code, created.token, 'made-up');
    expect(stale.status).toBe(409);
    const { text: _text, ...rest } = shown;
    expect(stale.json.request.error.data).toMatchObject({ reason: 'quote_changed', quote: rest });
    expect((await stored(world, created.booking_id)).booking.status_id).toBe('PAID');
  });
});

describe('a tier boundary passing between the quote and the confirm', () => {
  it('makes the quote stale: 409 with the smaller refund, and nothing changes', async () => {
    const { created } = await book(world, { qty: 1, date: day(15) });
    world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(world);
    const before = (await quote(created.code, created.token)).json.cancellation;
    expect(before.refund).toBe('30.00');
    const twoDays = 2 * 86_400_000;
    world.shift(twoDays);
    try {
      const stale = await confirm(created.code, created.token, before.quote);
      expect(stale.status).toBe(409);
      expect(stale.json.request.error.data).toMatchObject({
        reason: 'quote_changed',
        quote: { refund: '10.00' },
      });
      const record = await stored(world, created.booking_id);
      expect(record.booking.status_id).toBe('PAID');
      expect(record.attempts?.[0]?.refunded).toBe(0);
    } finally {
      world.shift(-twoDays);
    }
  });
});
