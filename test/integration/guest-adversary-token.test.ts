import { describe, expect, it } from 'vitest';
import { freshAddress, invoke } from '#test/support/events.ts';
import {
  book,
  checkoutIdOf,
  day,
  settled,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';

// Issue 44, the adversarial pass: the token on the cancel routes (items 2 and 3). One budget of wrong guesses
// per address for the guest's view and the cancel alike; a wrong token on the cancel is an unknown booking,
// word for word, and changes nothing; a token opens its own booking only, by code or numeric id.

const BUDGET = 4;
const world = await startPaymentsWorld(
  'guest-adv-token',
  { take: 'full' },
  { limits: { token_attempts_per_hour: BUDGET } },
  { policy: { cancellation: { refunds: [{ before: { days: 7 }, percent: 100 }] } } },
);

const call = (method: string, path: string, query: string, sourceIp: string) =>
  invoke(method === 'GET' && path.endsWith('/manage') ? world.handlers.bookings : world.handlers.payments, {
    method,
    path,
    query,
    sourceIp,
  });
const wrong = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
/** The envelope without what differs between two calls anyway (its time). */
const comparable = (json: Record<string, unknown>) => ({
  ...(json.request as Record<string, unknown>),
  time: 0,
});

async function paidBooking() {
  const { created } = await book(world, { qty: 1, date: day(30) });
  world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
  await settled(world);
  return created as { code: string; booking_id: number; token: string };
}

describe('the token on the cancel routes', () => {
  it('answers a wrong token as an unknown booking, word for word, and changes nothing', async () => {
    const one = await paidBooking();
    const other = await paidBooking();
    const address = freshAddress();
    const q = (token: string) => `token=${encodeURIComponent(token)}&quote=x`;
    const wrongToken = await call('POST', `booking/${one.code}/manage/cancel`, q(wrong(one.token)), address);
    const foreignToken = await call('POST', `booking/${one.code}/manage/cancel`, q(other.token), address);
    const unknown = await call('POST', 'booking/PAY-ZZZZZZ/manage/cancel', q(one.token), address);
    expect([wrongToken.status, foreignToken.status, unknown.status]).toEqual([404, 404, 404]);
    expect({ ...comparable(foreignToken.json), error: { ...foreignToken.json.request.error } }).toEqual({
      ...comparable(wrongToken.json),
      error: { ...wrongToken.json.request.error },
    });
    expect(unknown.json.request.error.id).toBe(wrongToken.json.request.error.id);
    expect(unknown.json.request.error.title).toBe(wrongToken.json.request.error.title);
    expect((await stored(world, one.booking_id)).booking.status_id).toBe('PAID');
    // By its numeric id too, and only with its own token.
    const byId = await call(
      'GET',
      `booking/${one.booking_id}/manage/cancel`,
      `token=${one.token}`,
      freshAddress(),
    );
    expect(byId.status, JSON.stringify(byId.json.request)).toBe(200);
    const crossed = await call(
      'GET',
      `booking/${other.booking_id}/manage/cancel`,
      `token=${one.token}`,
      freshAddress(),
    );
    expect(crossed.status).toBe(404);
  });

  it('spends one budget for the view and the cancel; right tokens cost nothing on either', async () => {
    const created = await paidBooking();
    const address = freshAddress();
    const right = `token=${encodeURIComponent(created.token)}`;
    for (let call_ = 0; call_ <= BUDGET; call_ += 1)
      expect((await call('GET', `booking/${created.code}/manage/cancel`, right, address)).status).toBe(200);
    const guesses = await Promise.all(
      Array.from({ length: BUDGET - 1 }, () =>
        call(
          'POST',
          `booking/${created.code}/manage/cancel`,
          `token=${wrong(created.token)}&quote=x`,
          address,
        ),
      ),
    );
    expect(guesses.map((one) => one.status)).toEqual(Array(BUDGET - 1).fill(404));
    expect(
      (await call('GET', `booking/${created.code}/manage`, `token=${wrong(created.token)}`, address)).status,
    ).toBe(404);
    const spent = await call('GET', `booking/${created.code}/manage/cancel`, right, address);
    expect(spent.status).toBe(429);
    expect(spent.headers['retry-after']).toBeDefined();
    const quoteId = (await call('GET', `booking/${created.code}/manage/cancel`, right, freshAddress())).json
      .cancellation.quote;
    const refused = await call(
      'POST',
      `booking/${created.code}/manage/cancel`,
      `${right}&quote=${quoteId}`,
      address,
    );
    expect(refused.status).toBe(429);
    expect((await stored(world, created.booking_id)).booking.status_id).toBe('PAID');
  });
});
