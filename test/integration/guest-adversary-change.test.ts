import { describe, expect, it } from 'vitest';
import { runPaymentsReconcile, runReconcile } from '#lib/housekeeping/index.ts';
import { accountBasic, formBody, invoke } from '#test/support/events.ts';
import { guestConfirm, guestQuote, paidBooking, TWO_TIERS } from '#test/support/guest-cancel.ts';
import { changeConfirm, changeQuote } from '#test/support/guest-change.ts';
import { setPaid } from '#test/support/payments-staff.ts';
import {
  day,
  type PaymentsWorld,
  settled,
  startPaymentsWorld,
  stored,
  usedOf,
} from '#test/support/payments-world.ts';
import { makeAccount } from '#test/support/tenant.ts';

// Issue 44, the adversarial pass of the guest's change (item 4): what a quote binds, a confirm sent more than
// once, a change too large for one transaction, and a change racing a cancel. Kayaks are 40.00 a day each;
// the tiers give everything back 14 days ahead, half 2 days ahead.

const POLICY = {
  cancellation: { refunds: TWO_TIERS, fee: 1000, cutoff: { hours: 48 }, staff_override: true },
};
const world = await startPaymentsWorld('guest-adv-change', { take: 'full' }, {}, { policy: POLICY });
// Paid at the desk, with staff (Ada) and a partner (Lake Tours) making bookings of their own.
const desk = await startPaymentsWorld(
  'guest-adv-change-desk',
  { take: 'none' },
  {},
  { policy: POLICY, accounts: [makeAccount('ada'), makeAccount('tours')] },
);

/** A booking made with a credential (staff's or a partner's), rated with `query`, paid at the desk. */
async function bookingBy(on: PaymentsWorld, authorization: string, query: string) {
  const rated = await invoke(on.handlers.items, { path: 'item/1', query, headers: { authorization } });
  expect(rated.json.item.rate.slip, JSON.stringify(rated.json.item.rate)).toBeDefined();
  const created = await invoke(on.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({ 'slip[]': rated.json.item.rate.slip, 'form[customer_name]': 'Grace' }),
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization },
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  const { code, booking_id: bookingId } = created.json.booking as { code: string; booking_id: number };
  expect((await setPaid(on, code, authorization)).status).toBe(200);
  const { token } = (await stored(on, bookingId)).booking;
  return { code, booking_id: bookingId, token };
}

const changedEvents = async (bookingId: number) =>
  (await stored(world, bookingId)).events.filter((event) => event.type === 'booking.changed');

/** The quote of a change, then the change holding to it; both must answer 200. */
async function changeNow(booking: { code: string; token: string }, change: { date?: string; qty?: number }) {
  const quote = await changeQuote(world, booking, change);
  expect(quote.status, JSON.stringify(quote.json.request)).toBe(200);
  const done = await changeConfirm(world, booking, change, quote.json.change.quote);
  expect(done.status, JSON.stringify(done.json.request)).toBe(200);
  return { quote: quote.json.change, done: done.json };
}

describe('a guest who changes back and forth', () => {
  it('gets each change made, the third as the first though it costs the same', async () => {
    const created = await paidBooking(world, { date: day(40) });
    await changeNow(created, { date: day(41) });
    await changeNow(created, { date: day(40) });
    // Back to the dates of the first change: a change of its own, not the first one answered again.
    const third = await changeNow(created, { date: day(41) });
    expect(third.done.change.made).toBe(true);
    expect(third.done.booking.start_date).toBe(third.quote.to.start_date);
    expect((await stored(world, created.booking_id)).booking.start_date).toBe(day(41));
    expect(await usedOf(world, 1, day(40))).toBe(0);
    expect(await usedOf(world, 1, day(41))).toBe(3);
    expect(await changedEvents(created.booking_id)).toHaveLength(3);
  });
});

describe('a confirm sent three times at once', () => {
  it('makes the change once, gives back once, and answers the three the same', async () => {
    const created = await paidBooking(world, { date: day(44) });
    const quote = await changeQuote(world, created, { qty: 2 });
    const answers = await Promise.all(
      [1, 2, 3].map(() => changeConfirm(world, created, { qty: 2 }, quote.json.change.quote)),
    );
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.json.request)).toBe(200);
      expect(answer.json.change).toMatchObject({ made: true, difference: '-40.00', refund: '40.00' });
    }
    await settled(world);
    expect(await changedEvents(created.booking_id)).toHaveLength(1);
    const record = await stored(world, created.booking_id);
    expect(record.attempts?.[0]?.refunded).toBe(4000);
    expect(record.booking.paid_total).toBe(8000);
    expect(await usedOf(world, 1, day(44))).toBe(2);
  });
});

describe('a change of a great many dates', () => {
  const span = (created: { code: string; token: string }, end: string, quote?: string) =>
    invoke(world.handlers.payments, {
      ...(quote ? { method: 'POST' } : {}),
      path: `booking/${created.code}/manage/change`,
      query: `token=${created.token}&start_date=${day(100)}&end_date=${end}${quote ? `&quote=${quote}` : ''}`,
    });

  it('is refused at the quote with 400 naming the dates, and nothing changes', async () => {
    const created = await paidBooking(world, { date: day(60) });
    // A day to 150: more item-dates than one transaction can take, beside the booking and its event.
    const quote = await span(created, day(249));
    expect(quote.status, JSON.stringify(quote.json.request)).toBe(400);
    expect(quote.json.request.error.id).toBe('validation_error');
    expect(quote.json.request.error.data).toHaveProperty('end_date');
    // It costs more, so it waits for its payment holding old and new: 69 new dates and the old one are 70,
    // the most one change touches (CHANGE_COUNTERS_AT_MOST); one more is refused.
    const most = await span(created, day(168));
    expect(most.status, JSON.stringify(most.json.request)).toBe(200);
    expect(most.json.change.mode).toBe('pay');
    expect((await span(created, day(169))).status).toBe(400);
    expect(await usedOf(world, 1, day(60))).toBe(3);
    expect(await usedOf(world, 1, day(100))).toBe(0);
  });

  it('is refused at the confirm with the same 400, never a 500, and nothing changes', async () => {
    const created = await paidBooking(world, { date: day(61) });
    // Sent with the quote the service would have given for it, had it quoted it (it used to: then a 500).
    const asked = await span(created, day(249));
    const refused = await span(created, day(249), asked.json.change?.quote ?? 'none');
    expect(refused.status, JSON.stringify(refused.json.request)).toBe(400);
    expect(refused.json.request.error.data).toHaveProperty('end_date');
    expect((await stored(world, created.booking_id)).booking.start_date).toBe(day(61));
    expect(await usedOf(world, 1, day(61))).toBe(3);
  });
});

describe('a change and a cancel sent at once', () => {
  it('leave the booking cancelled with nothing held, or changed and then cancelled, never both stocks', async () => {
    const created = await paidBooking(world, { date: day(70) });
    const change = await changeQuote(world, created, { date: day(71) });
    const cancel = await guestQuote(world, created.code, created.token);
    const [changed, cancelled] = await Promise.all([
      changeConfirm(world, created, { date: day(71) }, change.json.change.quote),
      guestConfirm(world, created.code, created.token, cancel.json.cancellation.quote),
    ]);
    expect([changed.status, cancelled.status]).toContain(200);
    await settled(world);
    const record = await stored(world, created.booking_id);
    if (cancelled.status === 200) expect(record.booking.status_id).toBe('CANCELLED');
    else expect(cancelled.json.request.error.data.reason).toBe('quote_changed');
    if (changed.status !== 200) expect(changed.json.request.error.data.reason).toBe('inactive');
    // Whatever the order, a cancelled booking holds nothing on either date.
    if (record.booking.status_id === 'CANCELLED') {
      expect(await usedOf(world, 1, day(70))).toBe(0);
      expect(await usedOf(world, 1, day(71))).toBe(0);
    }
  });

  it('refuses a change of a cancelled booking in the words of a change', async () => {
    const created = await paidBooking(world, { date: day(72) });
    const cancel = await guestQuote(world, created.code, created.token);
    await guestConfirm(world, created.code, created.token, cancel.json.cancellation.quote);
    const refused = await changeQuote(world, created, { date: day(73) });
    expect(refused.status).toBe(409);
    expect(refused.json.request.error.data.reason).toBe('inactive');
    expect(refused.json.request.error.details).toMatch(/nothing to change/);
  });
});

describe('a booking staff made outside the rules', () => {
  it("is moved by its guest under the guest's rules (not into the past), and by staff under the booking's", async () => {
    const ada = await accountBasic(desk.db, 1);
    // Staff booked it with the rules off (a stay the rules would not sell): the line keeps that.
    const created = await bookingBy(desk, ada, `date=${day(30)}&rules=off`);
    const past = await changeQuote(desk, created, { date: day(-3) });
    expect(past.status, JSON.stringify(past.json.request)).toBe(409);
    expect(past.json.request.error.id).toBe('unavailable');
    expect(past.json.request.error.details).toMatch(/past/);
    const later = await changeQuote(desk, created, { date: day(31) });
    expect(later.status, JSON.stringify(later.json.request)).toBe(200);
    const staff = await invoke(desk.handlers.payments, {
      path: `booking/${created.code}/manage/change`,
      query: `start_date=${day(-3)}`,
      headers: { authorization: ada },
    });
    expect(staff.status, JSON.stringify(staff.json.request)).toBe(200);
    expect((await stored(desk, created.booking_id)).booking.start_date).toBe(day(30));
  });
});

describe("a partner's booking", () => {
  it('is not changed by its guest, nor overridden by its partner', async () => {
    const tours = await accountBasic(desk.db, 2);
    const created = await bookingBy(desk, tours, `date=${day(20)}`);
    const guest = await changeQuote(desk, created, { date: day(21) });
    expect(guest.status).toBe(409);
    expect(guest.json.request.error.data.reason).toBe('partner');
    const override = await invoke(desk.handlers.payments, {
      path: `booking/${created.code}/manage/change`,
      query: `start_date=${day(21)}&override=1`,
      headers: { authorization: tours },
    });
    expect(override.status).toBe(403);
    expect((await stored(desk, created.booking_id)).booking.start_date).toBe(day(20));
  });
});

describe('the audits after all of it', () => {
  it.each([
    ['paid online', world],
    ['paid at the desk', desk],
  ])('find the stock and the money (%s) as they should be', async (_name, on) => {
    await settled(on);
    const money = await runPaymentsReconcile(on.db, { provider: on.provider });
    expect(money.discrepancies).toEqual([]);
    const stock = await runReconcile(on.db, { fix: false, now: Date.now() });
    expect(stock.discrepancies).toEqual([]);
  });
});
