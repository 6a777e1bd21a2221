import { describe, expect, it } from 'vitest';
import { invoke, staffBasic } from '#test/support/events.ts';
import { guestConfirm, guestQuote, paidBooking, TWO_TIERS } from '#test/support/guest-cancel.ts';
import {
  day,
  type PaymentsWorld,
  settled,
  startPaymentsWorld,
  stored,
  usedOf,
} from '#test/support/payments-world.ts';

// Issue 44, item 3: the guest cancels their own booking. First the quote, worked out by the server from the
// policy stored with the booking and what was paid; then the cancel, which holds to it: the booking is
// CANCELLED, its stock released, the refund goes back through the provider (booking.status_changed and
// payment.refunded sent), and a second confirm answers the same and changes nothing. Against the Stripe
// stand-in through the real adapter.

const POLICY = {
  cancellation: {
    refunds: TWO_TIERS,
    fee: 1000,
    cutoff: { hours: 48 },
    staff_override: true,
  },
};

const world = await startPaymentsWorld('guest-cancel', { take: 'full' }, {}, { policy: POLICY });
const noPolicy = await startPaymentsWorld('guest-cancel-none', { take: 'full' });
const strict = await startPaymentsWorld(
  'guest-cancel-strict',
  { take: 'full' },
  {},
  { policy: { cancellation: { ...POLICY.cancellation, staff_override: false } } },
);

const quote = guestQuote;
const confirm = guestConfirm;

const toCancelled = (event: { type: string; data: Record<string, unknown> }) =>
  event.type === 'booking.status_changed' && event.data.to === 'CANCELLED';

describe('the quote', () => {
  it('says what comes back under the stored policy, and changes nothing', async () => {
    const created = await paidBooking(world);
    const answer = await quote(world, created.code, created.token);
    expect(answer.status, JSON.stringify(answer.json.request)).toBe(200);
    expect(answer.json.cancellation).toMatchObject({
      refund: '110.00',
      paid: '120.00',
      fee: '10.00',
      deposit_kept: '0.00',
      quote: expect.any(String),
    });
    expect(answer.json.cancellation.text).toContain('110.00');
    const record = await stored(world, created.booking_id);
    expect(record.booking.status_id).not.toBe('CANCELLED');
  });

  it("is preceded by the policy's words on the guest's view, as staff see them but without their override", async () => {
    const created = await paidBooking(world);
    const view = await invoke(world.handlers.bookings, {
      path: `booking/${created.code}/manage`,
      query: `token=${encodeURIComponent(created.token)}`,
    });
    expect(view.status).toBe(200);
    const terms = view.json.booking.cancellation_policy;
    expect(terms).toMatchObject({ fee: '10.00', cutoff: { hours: 48 }, refunds: expect.any(Array) });
    expect(terms.text).toMatch(/\S/);
    expect(terms).not.toHaveProperty('staff_override');
    const none = await paidBooking(noPolicy);
    const plain = await invoke(noPolicy.handlers.bookings, {
      path: `booking/${none.code}/manage`,
      query: `token=${encodeURIComponent(none.token)}`,
    });
    expect(plain.json.booking).not.toHaveProperty('cancellation_policy');
  });

  it('refuses past the cutoff, in words, and the confirm too', async () => {
    const created = await paidBooking(world, { date: day(1) });
    const answer = await quote(world, created.code, created.token);
    expect(answer.status).toBe(409);
    expect(answer.json.request.error).toMatchObject({
      id: 'invalid_status',
      data: { reason: 'past_cutoff' },
    });
    expect(answer.json.request.error.details).toMatch(/closed/);
    const refused = await confirm(world, created.code, created.token, 'anything');
    expect(refused.status).toBe(409);
    expect((await stored(world, created.booking_id)).booking.status_id).toBe('PAID');
  });

  it('refuses a booking sold under no policy', async () => {
    const created = await paidBooking(noPolicy);
    const answer = await quote(noPolicy, created.code, created.token);
    expect(answer.status).toBe(409);
    expect(answer.json.request.error.data.reason).toBe('no_policy');
  });

  it('answers a wrong token as an unknown booking', async () => {
    const created = await paidBooking(world);
    // Its last character changed (to another one, whatever it was: a token may end in x).
    const last = created.token.endsWith('x') ? 'y' : 'x';
    const answer = await quote(world, created.code, `${created.token.slice(0, -1)}${last}`);
    expect(answer.status).toBe(404);
  });
});

describe('the cancel', () => {
  it('cancels, releases the stock, refunds through the provider, and answers the same when sent again', async () => {
    const date = day(31);
    const before = await usedOf(world, 1, date);
    const created = await paidBooking(world, { date });
    expect(await usedOf(world, 1, date)).toBe(before + 3);
    const { quote: quoteId } = (await quote(world, created.code, created.token)).json.cancellation;

    const answer = await confirm(world, created.code, created.token, quoteId);
    expect(answer.status, JSON.stringify(answer.json.request)).toBe(200);
    expect(answer.json.cancellation).toMatchObject({
      refund: '110.00',
      through_provider: '110.00',
      owed: '0.00',
    });
    expect(answer.json.booking).toMatchObject({ status_id: 'CANCELLED' });
    expect(await usedOf(world, 1, date)).toBe(before);
    await settled(world);

    const record = await stored(world, created.booking_id);
    const [attempt] = record.attempts ?? [];
    expect(attempt).toMatchObject({ captured: 12000, refunded: 11000, kept: { account_id: 0 } });
    expect(record.booking.paid_total).toBe(1000);
    const intent = await world.provider.readPayment(attempt?.provider_payment_id as string);
    expect(intent.refunded).toBe(11000);
    const types = record.events.map((event) => event.type);
    expect(types.filter((type) => type === 'payment.refunded')).toHaveLength(1);
    expect(record.events.filter(toCancelled)).toHaveLength(1);
    const cancelled = record.events.find(toCancelled);
    expect(cancelled?.data).toMatchObject({
      to: 'CANCELLED',
      reason: 'guest_cancelled',
      guest_cancel: { refund: 11000, fee: 1000, paid: 12000 },
    });

    // The guest's view: cancelled, the fee kept, nothing due.
    const view = await invoke(world.handlers.bookings, {
      path: `booking/${created.code}/manage`,
      query: `token=${encodeURIComponent(created.token)}`,
    });
    expect(view.json.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: '10.00', due: '0.00' });

    // Sent again: the same answer, nothing more recorded or refunded.
    const again = await confirm(world, created.code, created.token, quoteId);
    expect(again.status).toBe(200);
    expect(again.json.cancellation).toEqual(answer.json.cancellation);
    await settled(world);
    const after = await stored(world, created.booking_id);
    expect(after.events).toHaveLength(record.events.length);
    expect((await world.provider.readPayment(attempt?.provider_payment_id as string)).refunded).toBe(11000);
  });

  it('refuses a quote that is not the one the server works out now, changing nothing', async () => {
    const created = await paidBooking(world);
    const answer = await confirm(world, created.code, created.token, 'not-the-quote');
    expect(answer.status).toBe(409);
    expect(answer.json.request.error.data).toMatchObject({
      reason: 'quote_changed',
      quote: { refund: '110.00' },
    });
    const record = await stored(world, created.booking_id);
    expect(record.booking.status_id).toBe('PAID');
    expect(record.attempts?.[0]?.refunded).toBe(0);
  });

  it('two confirms at once cancel once and refund once', async () => {
    const created = await paidBooking(world);
    const { quote: quoteId } = (await quote(world, created.code, created.token)).json.cancellation;
    const answers = await Promise.all([
      confirm(world, created.code, created.token, quoteId),
      confirm(world, created.code, created.token, quoteId),
    ]);
    expect(answers.map((one) => one.status)).toEqual([200, 200]);
    expect(answers[0]?.json.cancellation).toEqual(answers[1]?.json.cancellation);
    await settled(world);
    const record = await stored(world, created.booking_id);
    expect(record.events.filter(toCancelled)).toHaveLength(1);
    expect(record.attempts?.[0]?.refunded).toBe(11000);
  });

  it('with the provider down: 503, the booking cancelled; sent again, the refund is made once', async () => {
    const created = await paidBooking(world);
    const { quote: quoteId } = (await quote(world, created.code, created.token)).json.cancellation;
    world.standIn.controls.failApi({ mode: 'error', when: 'before', count: 5 });
    const down = await confirm(world, created.code, created.token, quoteId);
    world.standIn.controls.clearApiFaults();
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBeDefined();
    const between = await stored(world, created.booking_id);
    expect(between.booking.status_id).toBe('CANCELLED');
    expect(between.attempts?.[0]?.refunded).toBe(0);
    const again = await confirm(world, created.code, created.token, quoteId);
    expect(again.status, JSON.stringify(again.json.request)).toBe(200);
    await settled(world);
    const record = await stored(world, created.booking_id);
    expect(record.attempts?.[0]?.refunded).toBe(11000);
  });
});

describe('staff, under the policy or overriding it where it allows (item 5)', () => {
  const asStaff = async (on: PaymentsWorld, method: string, code: string, query: string) =>
    invoke(on.handlers.payments, {
      method,
      path: `booking/${code}/manage/cancel`,
      query,
      headers: { authorization: await staffBasic(on.db) },
    });

  it('quotes as the guest would, without the token', async () => {
    const created = await paidBooking(world);
    const answer = await asStaff(world, 'GET', created.code, '');
    expect(answer.status, JSON.stringify(answer.json.request)).toBe(200);
    expect(answer.json.cancellation.refund).toBe('110.00');
  });

  it('past the cutoff, overrides with a refund of their own, and the history names them', async () => {
    const created = await paidBooking(world, { date: day(1) });
    expect((await quote(world, created.code, created.token)).status).toBe(409);
    const quoted = await asStaff(world, 'GET', created.code, 'override=1&refund=120.00');
    expect(quoted.status, JSON.stringify(quoted.json.request)).toBe(200);
    expect(quoted.json.cancellation).toMatchObject({ refund: '120.00', fee: '0.00' });
    const done = await asStaff(
      world,
      'POST',
      created.code,
      `override=1&refund=120.00&quote=${quoted.json.cancellation.quote}`,
    );
    expect(done.status, JSON.stringify(done.json.request)).toBe(200);
    expect(done.json.cancellation).toMatchObject({ refund: '120.00', override: true });
    await settled(world);
    const record = await stored(world, created.booking_id);
    expect(record.attempts?.[0]?.refunded).toBe(12000);
    const event = record.events.find(toCancelled);
    expect(event?.account_id).toBeGreaterThan(0);
    expect(event?.data.guest_cancel).toMatchObject({ refund: 12000, override: true, by: event?.account_id });
  });

  it('refuses the override where the policy does not allow it, and a refund over what was paid', async () => {
    const created = await paidBooking(strict);
    const refused = await asStaff(strict, 'GET', created.code, 'override=1');
    expect(refused.status).toBe(409);
    expect(refused.json.request.error.data.reason).toBe('override_not_allowed');
    const other = await paidBooking(world);
    const over = await asStaff(world, 'GET', other.code, 'override=1&refund=500.00');
    expect(over.status).toBe(400);
  });

  it('never lets a guest ask for the override', async () => {
    const created = await paidBooking(world, { date: day(1) });
    const answer = await invoke(world.handlers.payments, {
      path: `booking/${created.code}/manage/cancel`,
      query: `token=${encodeURIComponent(created.token)}&override=1`,
    });
    expect(answer.status).toBe(400);
  });
});

describe('a booking that has begun (adversarial pass: with no cutoff it was all given back)', () => {
  it('is not cancelled online once checked in', async () => {
    const created = await paidBooking(world);
    const checkedIn = await invoke(world.handlers.bookings, {
      method: 'POST',
      path: `booking/${created.code}/checkin`,
      headers: { authorization: await staffBasic(world.db) },
    });
    expect(checkedIn.status).toBe(200);
    const answer = await quote(world, created.code, created.token);
    expect(answer.status).toBe(409);
    expect(answer.json.request.error.data.reason).toBe('started');
  });

  it('is not cancelled online once its start has passed', async () => {
    const created = await paidBooking(strict);
    strict.shift(31 * 86_400_000);
    try {
      const answer = await quote(strict, created.code, created.token);
      expect(answer.status).toBe(409);
      expect(answer.json.request.error.data.reason).toBe('started');
    } finally {
      strict.shift(-31 * 86_400_000);
    }
  });
});
