import { describe, expect, it } from 'vitest';
import { runPaymentsReconcile } from '#lib/housekeeping/index.ts';
import { formBody, invoke } from '#test/support/events.ts';
import { guestConfirm, guestQuote, paidBooking, TWO_TIERS } from '#test/support/guest-cancel.ts';
import { changeConfirm, changeQuote } from '#test/support/guest-change.ts';
import { post } from '#test/support/payments-staff.ts';
import {
  book,
  checkoutIdOf,
  day,
  lapse,
  type PaymentsWorld,
  settled,
  startPaymentsWorld,
  stored,
  usedOf,
} from '#test/support/payments-world.ts';
import { expectInvariant } from '#test/support/session.ts';

// Issue 44, the adversarial pass of the guest's change (item 4) on the stock: a script moving unpaid bookings
// onto one date, a change waiting for its payment while the booking is cancelled, voided and revived, or
// lapsed by the sweeper, and a second guest racing a change for the last unit. The stock audit (counters
// against holders, clients' budgets against their carts and unpaid bookings) holds after each.

const POLICY = {
  cancellation: { refunds: TWO_TIERS, fee: 1000, cutoff: { hours: 48 }, staff_override: true },
};
const world = await startPaymentsWorld('guest-adv-change-stock', { take: 'full' }, {}, { policy: POLICY });
// Paid at the desk: a customer's booking stays unpaid, counted against the client that made it.
const desk = await startPaymentsWorld(
  'guest-adv-change-budget',
  { take: 'none' },
  { limits: { client_hold_share: 0.1 } },
  { policy: POLICY },
);

/** A customer's booking of `qty` kayaks on `date`, every call from one address (one client). */
async function bookFrom(on: PaymentsWorld, address: string, qty: number, date: string) {
  const rated = await invoke(on.handlers.items, {
    path: 'item/1',
    query: `date=${date}&param[qty]=${qty}`,
    sourceIp: address,
  });
  const added = await invoke(on.handlers.session, {
    method: 'POST',
    path: 'booking/session',
    body: formBody({ 'slip[]': [rated.json.item.rate.slip] }),
    contentType: 'application/x-www-form-urlencoded',
    sourceIp: address,
  });
  expect(added.status, JSON.stringify(added.json.request)).toBe(200);
  const created = await invoke(on.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      session_id: added.json.booking.session.id,
      'form[customer_name]': 'Eve',
      'form[customer_email]': 'eve@example.com',
    }),
    contentType: 'application/x-www-form-urlencoded',
    sourceIp: address,
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  return created.json.booking as { code: string; booking_id: number; token: string };
}

describe('a script moving unpaid bookings onto one date', () => {
  it('holds no more of the date than its share (409 hold_limit), and its budget follows each move', async () => {
    // 500 kayaks, a client's share a tenth: 50 of a date, unpaid. Two bookings of 50 on two dates fit.
    const address = '203.0.113.44';
    await bookFrom(desk, address, 50, day(40));
    const second = await bookFrom(desk, address, 50, day(41));
    // Moved onto the first's date, the client would hold 100 of it unpaid.
    const quote = await changeQuote(desk, second, { date: day(40) });
    expect(quote.status, JSON.stringify(quote.json.request)).toBe(409);
    expect(quote.json.request.error).toMatchObject({ id: 'hold_limit', data: { reason: 'hold_limit' } });
    expect(await usedOf(desk, 1, day(40))).toBe(50);
    // To a date of its own the move is made, and what the client holds moves with it: the date it left is
    // the client's to book again, the one it took is not.
    const moved = await changeQuote(desk, second, { date: day(42) });
    const done = await changeConfirm(desk, second, { date: day(42) }, moved.json.change.quote);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    expect(await usedOf(desk, 1, day(42))).toBe(50);
    await bookFrom(desk, address, 50, day(41));
    const over = await invoke(desk.handlers.items, {
      path: 'item/1',
      query: `date=${day(42)}&param[qty]=1`,
      sourceIp: address,
    });
    const refused = await invoke(desk.handlers.session, {
      method: 'POST',
      path: 'booking/session',
      body: formBody({ 'slip[]': [over.json.item.rate.slip] }),
      contentType: 'application/x-www-form-urlencoded',
      sourceIp: address,
    });
    expect(refused.status).toBe(409);
    expect(refused.json.request.error.id).toBe('hold_limit');
    await expectInvariant(desk.db);
  });
});

describe('a change waiting for its payment', () => {
  /** A paid booking of three kayaks on `date`, its change to four on `to` waiting for 40.00. */
  async function waiting(date: string, to: string) {
    const created = await paidBooking(world, { date });
    const quote = await changeQuote(world, created, { date: to, qty: 4 });
    const done = await changeConfirm(world, created, { date: to, qty: 4 }, quote.json.change.quote);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    expect(done.json.change.made).toBe(false);
    return { created, url: done.json.change.payment.url as string };
  }

  it('whose checkout the provider could not open holds the new dates, and opens it when sent again', async () => {
    const created = await paidBooking(world, { date: day(48) });
    const quote = await changeQuote(world, created, { date: day(49), qty: 4 });
    world.standIn.controls.failApi({ mode: 'error', when: 'before', count: 5 });
    const down = await changeConfirm(world, created, { date: day(49), qty: 4 }, quote.json.change.quote);
    world.standIn.controls.clearApiFaults();
    expect(down.status, JSON.stringify(down.json.request)).toBe(200);
    expect(down.json.change.made).toBe(false);
    expect(down.json.change.payment.url).toBeUndefined();
    expect(await usedOf(world, 1, day(49))).toBe(4);
    const again = await changeConfirm(world, created, { date: day(49), qty: 4 }, quote.json.change.quote);
    expect(again.json.change.payment.url).toEqual(expect.any(String));
    world.standIn.controls.pay(checkoutIdOf(again.json.change.payment.url));
    await settled(world);
    expect((await stored(world, created.booking_id)).booking).toMatchObject({
      start_date: day(49),
      paid_total: 16000,
    });
    expect(await usedOf(world, 1, day(48))).toBe(0);
  });

  it('paid after the guest cancelled: the money goes back in full, and neither date is held', async () => {
    const { created, url } = await waiting(day(50), day(51));
    const cancel = await guestQuote(world, created.code, created.token);
    await guestConfirm(world, created.code, created.token, cancel.json.cancellation.quote);
    world.standIn.controls.pay(checkoutIdOf(url));
    await settled(world);
    const record = await stored(world, created.booking_id);
    const change = record.attempts?.find((one) => one.kind === 'change');
    expect(change).toMatchObject({ captured: 4000, refunded: 4000 });
    expect(record.booking).toMatchObject({ status_id: 'CANCELLED', start_date: day(50) });
    expect(await usedOf(world, 1, day(50))).toBe(0);
    expect(await usedOf(world, 1, day(51))).toBe(0);
  });

  it('lapsed while the provider could not be reached, then paid: given back, the booking as it was', async () => {
    const { created, url } = await waiting(day(52), day(53));
    await lapse(world, { provider: null });
    expect(await usedOf(world, 1, day(53))).toBe(0);
    world.standIn.controls.pay(checkoutIdOf(url));
    await settled(world);
    const record = await stored(world, created.booking_id);
    expect(record.attempts?.find((one) => one.kind === 'change')).toMatchObject({ refunded: 4000 });
    expect(record.booking).toMatchObject({ start_date: day(52), paid_total: 12000 });
    expect(record.booking.change).toBeUndefined();
    expect(await usedOf(world, 1, day(52))).toBe(3);
    expect(await usedOf(world, 1, day(53))).toBe(0);
  });

  it('voided and revived by staff: the booking takes back its own dates only, and the payment goes back', async () => {
    const { created, url } = await waiting(day(54), day(55));
    expect((await post(world, `booking/${created.code}/update`, { status_id: 'VOID' })).status).toBe(200);
    expect(await usedOf(world, 1, day(55))).toBe(0);
    const revived = await post(world, `booking/${created.code}/update`, { status_id: 'PAID' });
    expect(revived.status, JSON.stringify(revived.json.request)).toBe(200);
    expect(await usedOf(world, 1, day(54))).toBe(3);
    expect(await usedOf(world, 1, day(55))).toBe(0);
    world.standIn.controls.pay(checkoutIdOf(url));
    await settled(world);
    const record = await stored(world, created.booking_id);
    expect(record.booking).toMatchObject({ start_date: day(54), paid_total: 12000 });
    expect(record.attempts?.find((one) => one.kind === 'change')).toMatchObject({ refunded: 4000 });
    // Free to change again.
    expect((await changeQuote(world, created, { date: day(56) })).status).toBe(200);
  });

  it('paid as the sweeper lapses it: made with the money, or given back, never the money kept for nothing', async () => {
    const { created, url } = await waiting(day(57), day(58));
    world.standIn.controls.pay(checkoutIdOf(url));
    await lapse(world);
    await settled(world);
    const record = await stored(world, created.booking_id);
    const change = record.attempts?.find((one) => one.kind === 'change');
    expect(record.booking.change).toBeUndefined();
    if (record.booking.start_date === day(58)) {
      expect(record.booking).toMatchObject({ paid_total: 16000, totals: { total: 16000 } });
      expect(await usedOf(world, 1, day(57))).toBe(0);
      expect(await usedOf(world, 1, day(58))).toBe(4);
    } else {
      expect(change).toMatchObject({ captured: 4000, refunded: 4000 });
      expect(record.booking).toMatchObject({ start_date: day(57), paid_total: 12000 });
      expect(await usedOf(world, 1, day(58))).toBe(0);
    }
  });
});

describe('a change racing another guest for the last unit', () => {
  it('leaves the unit to one of them, never both', async () => {
    // Solo (1 in stock): mine on day 60; the change to day 61 and another guest's cart race for it.
    const { created } = await book(world, { itemId: 2, date: day(60) });
    world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(world);
    const quote = await changeQuote(world, created, { date: day(61) });
    expect(quote.status, JSON.stringify(quote.json.request)).toBe(200);
    const [changed, theirs] = await Promise.all([
      changeConfirm(world, created, { date: day(61) }, quote.json.change.quote),
      book(world, { itemId: 2, date: day(61) }).catch(() => undefined),
    ]);
    expect(await usedOf(world, 2, day(61))).toBe(1);
    if (changed.status === 200) expect(await usedOf(world, 2, day(60))).toBe(0);
    else {
      expect(changed.json.request.error.data.reason).toBe('sold_out');
      expect(theirs?.created.code).toBeDefined();
      expect(await usedOf(world, 2, day(60))).toBe(1);
    }
  });
});

describe('the audits after all of it', () => {
  it.each([
    ['paid online', world],
    ['paid at the desk', desk],
  ])('find the stock, the budgets and the money (%s) as they should be', async (_name, on) => {
    await settled(on);
    await expectInvariant(on.db);
    const money = await runPaymentsReconcile(on.db, { provider: on.provider });
    expect(money.discrepancies).toEqual([]);
  });
});
