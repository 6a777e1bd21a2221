import { describe, expect, it } from 'vitest';
import { runPaymentsReconcile } from '#lib/housekeeping/index.ts';
import { accountBasic, formBody, freshAddress, invoke } from '#test/support/events.ts';
import { setPaid } from '#test/support/payments-staff.ts';
import { day, startPaymentsWorld, stored } from '#test/support/payments-world.ts';
import { makeAccount } from '#test/support/tenant.ts';

// Issue 44, the adversarial pass: a partner's booking and the cancel under the policy (items 3 and 5). Its
// guest is sent to the partner; another partner does not find it; its partner may cancel it under the policy
// but never override it; and the money audit finds nothing amiss after.

const POLICY = {
  cancellation: {
    refunds: [{ before: { days: 7 }, percent: 100 }],
    fee: 500,
    staff_override: true,
  },
};
const world = await startPaymentsWorld(
  'guest-adv-partner',
  { take: 'none' },
  {},
  { policy: POLICY, accounts: [makeAccount('ada'), makeAccount('tours'), makeAccount('inn')] },
);

const cancelRoute = (method: string, code: string, query: string, authorization?: string) =>
  invoke(world.handlers.payments, {
    method,
    path: `booking/${code}/manage/cancel`,
    query,
    sourceIp: freshAddress(),
    ...(authorization ? { headers: { authorization } } : {}),
  });

/** A booking made with a partner's credential, paid at the point of sale by that partner. */
async function partnerBooking(authorization: string) {
  const rated = await invoke(world.handlers.items, {
    path: 'item/1',
    query: `date=${day(20)}`,
    headers: { authorization },
  });
  const created = await invoke(world.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({ 'slip[]': rated.json.item.rate.slip, 'form[customer_name]': 'Agent guest' }),
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization },
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  const { code, booking_id: bookingId } = created.json.booking as { code: string; booking_id: number };
  expect((await setPaid(world, code, authorization)).status).toBe(200);
  const { token } = (await stored(world, bookingId)).booking;
  return { code, bookingId, token };
}

describe("a partner's booking", () => {
  it("is its partner's to cancel under the policy, never to override, and no other's", async () => {
    const tours = await accountBasic(world.db, 2);
    const inn = await accountBasic(world.db, 3);
    const { code, bookingId, token } = await partnerBooking(tours);

    const guest = await cancelRoute('GET', code, `token=${encodeURIComponent(token)}`);
    expect(guest.status).toBe(409);
    expect(guest.json.request.error.data.reason).toBe('partner');
    expect((await cancelRoute('GET', code, '', inn)).status).toBe(404);
    const override = await cancelRoute('GET', code, 'override=1&refund=40.00', tours);
    expect(override.status).toBe(403);
    expect(override.json.request.error.id).toBe('forbidden');
    expect((await stored(world, bookingId)).booking.status_id).toBe('PAID');

    const quoted = await cancelRoute('GET', code, '', tours);
    expect(quoted.status, JSON.stringify(quoted.json.request)).toBe(200);
    expect(quoted.json.cancellation).toMatchObject({ paid: '40.00', refund: '35.00' });
    const overriding = await cancelRoute(
      'POST',
      code,
      `override=1&quote=${quoted.json.cancellation.quote}`,
      tours,
    );
    expect(overriding.status).toBe(403);
    expect((await stored(world, bookingId)).booking.status_id).toBe('PAID');
    const done = await cancelRoute('POST', code, `quote=${quoted.json.cancellation.quote}`, tours);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    // Taken at the desk: nothing goes through the provider, all of it is owed by hand.
    expect(done.json.cancellation).toMatchObject({
      refund: '35.00',
      through_provider: '0.00',
      owed: '35.00',
    });
    const record = await stored(world, bookingId);
    expect(record.booking.status_id).toBe('CANCELLED');

    const money = await runPaymentsReconcile(world.db);
    expect(money.discrepancies).toEqual([]);
  });
});
