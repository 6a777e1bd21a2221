import { describe, expect, it } from 'vitest';
import { runPaymentsReconcile } from '#lib/housekeeping/index.ts';
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

describe('cancelling a paid booking', () => {
  it('keeps its money, marked as staff kept it; part given back later leaves the rest kept', async () => {
    const created = await unpaid(manual);
    manual.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(manual);
    const id = (await get(manual, `booking/${created.code}`)).json.booking.payments[0].id;
    expect((await post(manual, `booking/${created.code}/payment/${id}/capture`, {})).status).toBe(200);
    await settled(manual);
    const cancelled = await post(manual, `booking/${created.code}/update`, { status_id: 'CANCELLED' });
    expect(cancelled.status, JSON.stringify(cancelled.json.request)).toBe(200);
    let record = await stored(manual, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: 12000 });
    expect(record.attempts?.[0]).toMatchObject({
      status: 'captured',
      captured: 12000,
      kept: { account_id: 1, at: expect.any(Number) },
    });
    const audit = await runPaymentsReconcile(manual.db, {});
    expect(audit.discrepancies.filter((one) => JSON.stringify(one).includes(created.code))).toEqual([]);

    // Staff give 20.00 back: the provider's refund event that follows gives back nothing more.
    const refund = await post(manual, `booking/${created.code}/payment/${id}/refund`, { amount: '20.00' });
    expect(refund.status, JSON.stringify(refund.json.request)).toBe(200);
    await settled(manual);
    record = await stored(manual, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: 10000 });
    expect(record.attempts?.[0]).toMatchObject({ captured: 12000, refunded: 2000, applied: 10000 });
    const intent = await manual.provider.readPayment(record.attempts?.[0]?.provider_payment_id as string);
    expect(intent).toMatchObject({ captured: 12000, refunded: 2000 });
  });

  it("is not kept when the service lets a booking go: an unpaid booking's lapse marks nothing", async () => {
    const created = await unpaid(manual);
    await lapse(manual);
    const record = await stored(manual, created.booking_id);
    expect(record.booking.status_id).toBe('VOID');
    expect(record.attempts?.some((one) => one.kept)).toBe(false);
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
