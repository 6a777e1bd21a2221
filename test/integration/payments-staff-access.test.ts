import { describe, expect, it } from 'vitest';
import { accountBasic, formBody, invoke } from '#test/support/events.ts';
import { get, post, setPaid, unpaid } from '#test/support/payments-staff.ts';
import {
  checkoutIdOf,
  day,
  lapse,
  settled,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';
import { makeAccount } from '#test/support/tenant.ts';

// Issue 43, item 5: cancelling a booking lets its uncaptured authorisation go; partners see their own bookings'
// payments and act on none. Against the Stripe stand-in, through the real adapter and its signed webhooks.

const accounts = { accounts: [makeAccount('ada'), makeAccount('tours'), makeAccount('inn')] };
const none = await startPaymentsWorld('pay-staff-access-none', { take: 'none' }, {}, accounts);
const manual = await startPaymentsWorld('pay-staff-access-manual', { take: 'full', capture: 'manual' });

describe('cancelling a booking with an uncaptured authorisation', () => {
  it('lets the authorisation go at the provider at the next sweep: nobody is charged, nothing counted', async () => {
    const created = await unpaid(manual);
    manual.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(manual);
    const cancelled = await post(manual, `booking/${created.code}/update`, { status_id: 'CANCELLED' });
    expect(cancelled.status, JSON.stringify(cancelled.json.request)).toBe(200);
    const id = cancelled.json.booking.payments[0].id;
    // Staff may not capture it once the booking is cancelled.
    const capture = await post(manual, `booking/${created.code}/payment/${id}/capture`, {});
    expect(capture.status).toBe(409);
    await lapse(manual);
    await settled(manual);
    const record = await stored(manual, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: 0 });
    expect(record.attempts?.[0]).toMatchObject({ status: 'cancelled', captured: 0 });
    const intent = await manual.provider.readPayment(record.attempts?.[0]?.provider_payment_id as string);
    expect(intent).toMatchObject({ state: 'cancelled', captured: 0 });
    expect(record.events.map((one) => one.type)).toContain('payment.cancelled');
  });
});

describe('partners', () => {
  /** A booking made with a partner's credential, paid at the point of sale by that partner. */
  async function partnerBooking(authorization: string) {
    const rated = await invoke(none.handlers.items, {
      path: 'item/1',
      query: `date=${day(12)}`,
      headers: { authorization },
    });
    const created = await invoke(none.handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: formBody({ 'slip[]': rated.json.item.rate.slip, 'form[customer_name]': 'Agent guest' }),
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization },
    });
    expect(created.status, JSON.stringify(created.json.request)).toBe(200);
    const code = created.json.booking.code as string;
    expect((await setPaid(none, code, authorization)).status).toBe(200);
    return code;
  }

  it("see their own bookings' payments, not another's, and may neither refund nor capture", async () => {
    const tours = await accountBasic(none.db, 2);
    const inn = await accountBasic(none.db, 3);
    const code = await partnerBooking(tours);
    const own = await get(none, `booking/${code}`, tours);
    expect(own.json.booking.payments).toMatchObject([{ provider: 'pos', amount: '40.00' }]);
    const foreign = await get(none, `booking/${code}`, inn);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.json)).not.toContain('pos_');
    const id = own.json.booking.payments[0].id;
    for (const action of ['refund', 'capture']) {
      for (const as of [tours, inn]) {
        const refused = await post(none, `booking/${code}/payment/${id}/${action}`, {}, as);
        expect(refused.status).toBe(403);
        expect(refused.json.request.error.id).toBe('forbidden');
      }
    }
    const record = await get(none, `booking/${code}`);
    expect(record.json.booking.payments[0]).toMatchObject({ refunded: '0.00' });
  });
});
