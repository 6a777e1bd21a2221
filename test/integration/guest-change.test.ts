import { describe, expect, it } from 'vitest';
import { invoke, staffBasic } from '#test/support/events.ts';
import { guestConfirm, guestQuote, paidBooking, TWO_TIERS } from '#test/support/guest-cancel.ts';
import { changeConfirm, changeQuote } from '#test/support/guest-change.ts';
import {
  book,
  checkoutIdOf,
  day,
  lapse,
  settled,
  startPaymentsWorld,
  stored,
  usedOf,
} from '#test/support/payments-world.ts';

// Issue 44, item 4: the guest changes the dates or the party of their own booking. Each line is rated anew;
// the new stock is taken and the old released in one transaction; a lower price gives back what the policy
// gives back of the money paid beyond the new total; a higher one, on a booking paid online, waits for the
// difference through a checkout, the new stock held meanwhile. Against the Stripe stand-in through the real
// adapter. Kayaks are 40.00 a day each; the tiers give everything back 14 days ahead, half 2 days ahead.

const POLICY = {
  cancellation: { refunds: TWO_TIERS, fee: 1000, cutoff: { hours: 48 }, staff_override: true },
};
const world = await startPaymentsWorld('guest-change', { take: 'full' }, {}, { policy: POLICY });
const desk = await startPaymentsWorld('guest-change-desk', { take: 'none' }, {}, { policy: POLICY });
const shared = await startPaymentsWorld(
  'guest-change-share',
  { take: 'full' },
  { limits: { client_hold_share: 0.1 } },
  { policy: POLICY },
);

const eventsOf = async (bookingId: number, type: string) =>
  (await stored(world, bookingId)).events.filter((event) => event.type === type);

describe('a change that costs the same', () => {
  it('moves the booking and its stock in one step, and the event says from what to what', async () => {
    const created = await paidBooking(world, { date: day(40) });
    const quote = await changeQuote(world, created, { date: day(41) });
    expect(quote.status, JSON.stringify(quote.json.request)).toBe(200);
    expect(quote.json.change).toMatchObject({
      mode: 'change',
      difference: '0.00',
      refund: '0.00',
      charge: '0.00',
    });
    expect(quote.json.change.text).toBe('The new dates cost the same.');
    // The quote changes nothing.
    expect(await usedOf(world, 1, day(41))).toBe(0);

    const done = await changeConfirm(world, created, { date: day(41) }, quote.json.change.quote);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    expect(done.json.change).toMatchObject({ made: true, refund: '0.00' });
    expect(await usedOf(world, 1, day(40))).toBe(0);
    expect(await usedOf(world, 1, day(41))).toBe(3);
    const record = await stored(world, created.booking_id);
    expect(record.booking.start_date).toBe(day(41));
    expect(Object.values(record.booking.lines)[0]?.start_date).toBe(day(41));
    const [event] = await eventsOf(created.booking_id, 'booking.changed');
    expect(event?.data.guest_change).toMatchObject({
      from: { start_date: day(40), total: 12000 },
      to: { start_date: day(41), total: 12000 },
      by: 0,
    });
  });

  it('refuses a confirm of another quote (409 quote_changed), and changes nothing', async () => {
    const created = await paidBooking(world, { date: day(40) });
    const quote = await changeQuote(world, created, { date: day(42) });
    // The quote of one change does not confirm another.
    const other = await changeConfirm(world, created, { date: day(43) }, quote.json.change.quote);
    expect(other.status).toBe(409);
    expect(other.json.request.error.data).toMatchObject({ reason: 'quote_changed' });
    expect((await stored(world, created.booking_id)).booking.start_date).toBe(day(40));
    expect(await usedOf(world, 1, day(43))).toBe(0);
  });
});

describe('a change that costs less', () => {
  it('gives back all that was paid beyond the new total while the full tier lasts, once', async () => {
    const created = await paidBooking(world, { date: day(44) });
    const quote = await changeQuote(world, created, { qty: 2 });
    expect(quote.json.change).toMatchObject({
      mode: 'change',
      difference: '-40.00',
      refund: '40.00',
      kept: '0.00',
    });
    const done = await changeConfirm(world, created, { qty: 2 }, quote.json.change.quote);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    expect(done.json.change).toMatchObject({ refund: '40.00', through_provider: '40.00', owed: '0.00' });
    expect(done.json.booking).toMatchObject({ total: '80.00', paid_total: '80.00' });
    expect(await usedOf(world, 1, day(44))).toBe(2);
    // Sent again: the same answer, no second refund.
    const again = await changeConfirm(world, created, { qty: 2 }, quote.json.change.quote);
    expect(again.status).toBe(200);
    expect(again.json.change.refund).toBe('40.00');
    const record = await stored(world, created.booking_id);
    expect(record.attempts?.[0]?.refunded).toBe(4000);
    await settled(world);
    expect(await eventsOf(created.booking_id, 'payment.refunded')).toHaveLength(1);
  });

  it('keeps what the policy keeps past the full tier, and a later cancel shares out only the rest', async () => {
    const created = await paidBooking(world, { date: day(5) });
    const quote = await changeQuote(world, created, { qty: 1 });
    // 80.00 paid beyond the new total of 40.00; the 50% tier gives back half.
    expect(quote.json.change).toMatchObject({ refund: '40.00', kept: '40.00' });
    const done = await changeConfirm(world, created, { qty: 1 }, quote.json.change.quote);
    expect(done.json.booking).toMatchObject({ total: '40.00', paid_total: '80.00' });
    const record = await stored(world, created.booking_id);
    expect(record.booking.change_kept).toBe(4000);
    const cancel = await guestQuote(world, created.code, created.token);
    // 40.00 of the 80.00 held counts: half of it back, less the fee.
    expect(cancel.json.cancellation).toMatchObject({ paid: '40.00', refund: '10.00' });
  });
});

describe('a change that costs more', () => {
  it('waits for the difference with the new stock held, and is made when it is paid', async () => {
    const created = await paidBooking(world, { date: day(46) });
    const quote = await changeQuote(world, created, { date: day(47), qty: 4 });
    expect(quote.json.change).toMatchObject({ mode: 'pay', difference: '40.00', charge: '40.00' });
    const done = await changeConfirm(world, created, { date: day(47), qty: 4 }, quote.json.change.quote);
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    expect(done.json.change).toMatchObject({
      made: false,
      payment: { amount: '40.00', url: expect.any(String) },
    });
    // Both held meanwhile: the old dates until the change is made, the new ones so nobody takes them.
    expect(await usedOf(world, 1, day(46))).toBe(3);
    expect(await usedOf(world, 1, day(47))).toBe(4);
    expect((await stored(world, created.booking_id)).booking.totals.total).toBe(12000);
    // Its checkout sends the guest back to their page (which shows the change waiting or made), not to the
    // return page of the booking's first payment.
    const attempt = (await stored(world, created.booking_id)).attempts?.find((one) => one.kind === 'change');
    expect(attempt?.return_url).toMatch(
      new RegExp(`/manage\\?booking=${created.code}&token=${encodeURIComponent(created.token)}$`),
    );
    // Sent again: the same checkout.
    const again = await changeConfirm(world, created, { date: day(47), qty: 4 }, quote.json.change.quote);
    expect(again.json.change.payment.url).toBe(done.json.change.payment.url);

    world.standIn.controls.pay(checkoutIdOf(done.json.change.payment.url));
    await settled(world);
    const record = await stored(world, created.booking_id);
    expect(record.booking).toMatchObject({ start_date: day(47), paid_total: 16000 });
    expect(record.booking.totals.total).toBe(16000);
    expect(record.booking.change).toBeUndefined();
    expect(await usedOf(world, 1, day(46))).toBe(0);
    expect(await usedOf(world, 1, day(47))).toBe(4);
    const [changed] = await eventsOf(created.booking_id, 'booking.changed');
    expect(changed?.data.guest_change).toMatchObject({ charge: 4000, to: { total: 16000 } });
  });

  it('lets the new stock go when the difference is not paid by its deadline, the booking as it was', async () => {
    const created = await paidBooking(world, { date: day(48) });
    const quote = await changeQuote(world, created, { date: day(49), qty: 4 });
    await changeConfirm(world, created, { date: day(49), qty: 4 }, quote.json.change.quote);
    expect(await usedOf(world, 1, day(49))).toBe(4);
    await lapse(world);
    expect(await usedOf(world, 1, day(48))).toBe(3);
    expect(await usedOf(world, 1, day(49))).toBe(0);
    const record = await stored(world, created.booking_id);
    expect(record.booking).toMatchObject({ start_date: day(48), paid_total: 12000 });
    expect(record.booking.change).toBeUndefined();
    expect(await eventsOf(created.booking_id, 'booking.change_lapsed')).toHaveLength(1);
    // Free to change again.
    const next = await changeQuote(world, created, { date: day(50) });
    expect(next.status).toBe(200);
  });

  it('refuses another change while one waits, and a cancel lets go of both stocks', async () => {
    const created = await paidBooking(world, { date: day(51) });
    const quote = await changeQuote(world, created, { qty: 5 });
    await changeConfirm(world, created, { qty: 5 }, quote.json.change.quote);
    const second = await changeQuote(world, created, { date: day(52) });
    const refused = await changeConfirm(world, created, { date: day(52) }, second.json.change.quote);
    expect(refused.status).toBe(409);
    expect(refused.json.request.error.data).toMatchObject({ reason: 'change_pending' });
    expect(await usedOf(world, 1, day(51))).toBe(5);
    const cancelQuote = await guestQuote(world, created.code, created.token);
    const cancelled = await guestConfirm(
      world,
      created.code,
      created.token,
      cancelQuote.json.cancellation.quote,
    );
    expect(cancelled.status).toBe(200);
    expect(await usedOf(world, 1, day(51))).toBe(0);
  });

  it('adds to what is due, at once, on a booking not paid online; unpaid, it may move but not grow', async () => {
    const { created } = await book(desk, { qty: 2, date: day(40) });
    // Unpaid, it still counts against its client's hold budget: more units would stretch that budget.
    const grows = await changeQuote(desk, created, { qty: 3 });
    expect(grows.status).toBe(409);
    expect(grows.json.request.error.data).toMatchObject({ reason: 'grows_unpaid' });
    const paid = await invoke(desk.handlers.bookings, {
      method: 'POST',
      path: `booking/${created.code}/update`,
      body: 'status_id=PAID&set_paid=1',
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization: await staffBasic(desk.db) },
    });
    expect(paid.status).toBe(200);
    const quote = await changeQuote(desk, created, { qty: 3 });
    expect(quote.status, JSON.stringify(quote.json.request)).toBe(200);
    expect(quote.json.change).toMatchObject({ mode: 'change', difference: '40.00', charge: '0.00' });
    const done = await changeConfirm(desk, created, { qty: 3 }, quote.json.change.quote);
    expect(done.json.booking).toMatchObject({ total: '120.00', paid_total: '80.00' });
  });
});

describe('a change that cannot be had', () => {
  it('is refused in words when the stock is gone, before and at the confirm, and nothing changes', async () => {
    const mine = await paidBooking(world, { date: day(60) });
    const quote = await changeQuote(world, mine, { qty: 1 });
    expect(quote.status).toBe(200);
    // Solo (1 in stock): mine on day 61, another guest's on day 62.
    const { created: solo } = await book(world, { itemId: 2, date: day(61) });
    world.standIn.controls.pay(checkoutIdOf(solo.payment_url as string));
    const { created: theirs } = await book(world, { itemId: 2, date: day(62) });
    world.standIn.controls.pay(checkoutIdOf(theirs.payment_url as string));
    await settled(world);
    const soloQuote = await changeQuote(world, solo, { date: day(62) });
    expect(soloQuote.status).toBe(409);
    expect(soloQuote.json.request.error.data).toMatchObject({ reason: 'sold_out' });
    expect(soloQuote.json.request.error.details).toMatch(/Solo is not available on/);
    // Quoted while free, taken before the confirm: the conditional write refuses it.
    const free = await changeQuote(world, solo, { date: day(63) });
    expect(free.status).toBe(200);
    const { created: racer } = await book(world, { itemId: 2, date: day(63) });
    expect(racer.code).toBeDefined();
    const late = await changeConfirm(world, solo, { date: day(63) }, free.json.change.quote);
    expect(late.status).toBe(409);
    expect(late.json.request.error.data).toMatchObject({ reason: 'sold_out' });
    expect((await stored(world, solo.booking_id)).booking.start_date).toBe(day(61));
    expect(await usedOf(world, 2, day(61))).toBe(1);
  });

  it('is refused past the cutoff, but staff may override where the policy lets them', async () => {
    const created = await paidBooking(world, { date: day(1) });
    const quote = await changeQuote(world, created, { date: day(3) });
    expect(quote.status).toBe(409);
    expect(quote.json.request.error.data).toMatchObject({ reason: 'past_cutoff' });
    const staff = await invoke(world.handlers.payments, {
      path: `booking/${created.code}/manage/change`,
      query: `start_date=${day(3)}&override=1`,
      headers: { authorization: await staffBasic(world.db) },
    });
    expect(staff.status, JSON.stringify(staff.json.request)).toBe(200);
    const made = await invoke(world.handlers.payments, {
      method: 'POST',
      path: `booking/${created.code}/manage/change`,
      query: `start_date=${day(3)}&override=1&quote=${staff.json.change.quote}`,
      headers: { authorization: await staffBasic(world.db) },
    });
    expect(made.status, JSON.stringify(made.json.request)).toBe(200);
    const [event] = await eventsOf(created.booking_id, 'booking.changed');
    expect(event?.data.guest_change).toMatchObject({ by: 1, override: true });
  });

  it('answers bad input with 400 naming the parameter, and a wrong token as an unknown booking', async () => {
    const created = await paidBooking(world, { date: day(40) });
    const nothing = await changeQuote(world, created, {});
    expect(nothing.status).toBe(400);
    expect(nothing.json.request.error.data).toHaveProperty('start_date');
    const backwards = await invoke(world.handlers.payments, {
      path: `booking/${created.code}/manage/change`,
      query: `token=${created.token}&start_date=${day(45)}&end_date=${day(44)}`,
    });
    expect(backwards.status).toBe(400);
    expect(backwards.json.request.error.data).toHaveProperty('end_date');
    const unknown = await invoke(world.handlers.payments, {
      path: `booking/${created.code}/manage/change`,
      query: `token=${created.token}&param[pets]=1`,
    });
    expect(unknown.status).toBe(400);
    const wrong = await changeQuote(world, { ...created, token: `${created.token}x` }, { date: day(41) });
    expect(wrong.status).toBe(404);
  });
});

describe('a hostile guest', () => {
  it('cannot hold more than one client may of a date with a change it never pays for (409 hold_limit)', async () => {
    // 500 kayaks, a client's share of a date a tenth (50): one paid booking of three growing to 60 would
    // hold more of the day, unpaid, than any cart may.
    const created = await paidBooking(shared, { date: day(70) });
    const quote = await changeQuote(shared, created, { qty: 60 });
    expect(quote.status).toBe(409);
    expect(quote.json.request.error).toMatchObject({ id: 'hold_limit', data: { reason: 'hold_limit' } });
    const allowed = await changeQuote(shared, created, { qty: 53 });
    expect(allowed.json.change).toMatchObject({ mode: 'pay' });
    expect(await usedOf(shared, 1, day(70))).toBe(3);
  });
});

describe('the same move made again', () => {
  it('is a change of its own: moved there, back, and there again, the booking ends where the guest asked', async () => {
    const created = await paidBooking(world, { date: day(80) });
    for (const date of [day(81), day(80), day(81)]) {
      const quote = await changeQuote(world, created, { date });
      const done = await changeConfirm(world, created, { date }, quote.json.change.quote);
      expect(done.status).toBe(200);
      expect((await stored(world, created.booking_id)).booking.start_date).toBe(date);
    }
    expect(await usedOf(world, 1, day(80))).toBe(0);
    expect(await usedOf(world, 1, day(81))).toBe(3);
  });
});
