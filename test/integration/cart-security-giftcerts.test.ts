import { describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import {
  bookWithCode,
  customerForm,
  db,
  freshDay,
  partner,
  post,
  setUpCartSecurityWorld,
  slipOf,
  staff,
} from '#test/support/cart-security-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { accountBasic, invoke, type TestRequest } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';

// Attack scripts for issue 9, points 5 to 8, on gift certificates: each got through before. The world:
// test/support/cart-security-world.ts.

setUpCartSecurityWorld();

/** Books a fresh day of item 1 with a gift certificate code, as a guest or with the given request fields. */
const bookFreshDay = async (code: string, extra: Partial<TestRequest> = {}) =>
  bookWithCode(await slipOf(1, `date=${freshDay()}`), code, extra);

describe('gift certificate errors', () => {
  it('tell customers nothing about why a code fails, and tell staff', async () => {
    const customerErrors = [];
    for (const code of ['GIFT-NONE', 'GIFT-OLD', 'GIFT-EMPTY']) {
      const response = await bookFreshDay(code);
      expect(response.status).toBe(400);
      customerErrors.push(response.json.request.error);
    }
    expect(new Set(customerErrors.map((error) => JSON.stringify(error))).size).toBe(1);
    const desk = await bookFreshDay('GIFT-OLD', { headers: { authorization: staff } });
    expect(desk.json.request.error.data).toEqual({ giftcert_code: 'has expired' });
  });
});

describe('the gift certificate oracle', () => {
  /** Sessions in every state that has nothing to book, each made afresh: none, unknown, empty, ended. */
  const nothingToBook = async (): Promise<Record<string, string>> => {
    const emptied = sessionOf(
      await post('session', 'booking/session', `slip[]=${await slipOf(1, `date=${freshDay()}`)}`),
    ).id;
    await post('session', 'booking/session/clear', `session_id=${emptied}`);
    const ended = sessionOf(
      await post('session', 'booking/session', `slip[]=${await slipOf(1, `date=${freshDay()}`)}`),
    ).id;
    await post('session', 'booking/session/end', `session_id=${ended}`);
    return {
      none: '',
      unknown: 'session_id=Zz0000000000000000000000&',
      empty: `session_id=${emptied}&`,
      ended: `session_id=${ended}&`,
    };
  };

  it('answers a real and a made-up code alike when there is nothing to book', async () => {
    const sessions = await nothingToBook();
    for (const [state, session] of Object.entries(sessions)) {
      const answers = [];
      for (const code of ['GIFT-LIVE', 'GIFT-MADE-UP']) {
        const response = await post(
          'bookings',
          'booking/create',
          `${session}${customerForm}&giftcert_code=${code}`,
        );
        answers.push(JSON.stringify({ status: response.status, error: response.json.request.error }));
      }
      expect(answers[0], state).toBe(answers[1]);
      expect(JSON.parse(answers[0] ?? '{}').status, state).not.toBe(400);
    }
  });

  it('gives a partner’s own credential the customer’s one answer, not staff’s', async () => {
    const answers = [];
    for (const code of ['GIFT-NONE', 'GIFT-OLD', 'GIFT-EMPTY']) {
      const response = await bookFreshDay(code, { headers: { authorization: partner } });
      expect(response.status).toBe(400);
      answers.push(JSON.stringify(response.json.request.error));
    }
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0] ?? '{}').data).toEqual({ giftcert_code: 'not valid' });
  });
});

describe('the gift certificate guessing budget', () => {
  // A clock at least ten minutes from the end of its hour, so the hour's budget cannot roll over mid-test,
  // and less than a hold time ahead, so the carts made at the real time are still open by it.
  const offset = new Date().getUTCMinutes() >= 50 ? 11 * 60_000 : 0;
  const timed = () => createAllHandlers(testDeps(db, { clock: () => Date.now() + offset }));
  const BUDGET = 10;

  const bookable = async (): Promise<string> => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    return sessionOf(await post('session', 'booking/session', `slip[]=${slip}`)).id;
  };
  const attempt = (
    handlers: ReturnType<typeof createAllHandlers>,
    options: { sessionId: string; code: string; sourceIp: string; headers?: Record<string, string> },
  ) =>
    invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `session_id=${options.sessionId}&${customerForm}&giftcert_code=${options.code}`,
      contentType: 'application/x-www-form-urlencoded',
      sourceIp: options.sourceIp,
      ...(options.headers ? { headers: options.headers } : {}),
    });

  it('stops a script guessing codes after the budget, even for a real code, and charges no real code', async () => {
    const service = timed();
    const attacker = '203.0.113.90';
    const real = await attempt(service, {
      sessionId: await bookable(),
      code: 'GIFT-SPARE',
      sourceIp: attacker,
    });
    expect(real.status).toBe(200);
    const sessionId = await bookable();
    const statuses: number[] = [];
    for (let index = 0; index < BUDGET; index += 1) {
      statuses.push(
        (await attempt(service, { sessionId, code: `GUESS-${index}`, sourceIp: attacker })).status,
      );
    }
    expect(statuses).toEqual(Array(BUDGET).fill(400));
    const stopped = await attempt(service, { sessionId, code: 'GUESS-X', sourceIp: attacker });
    expect(stopped.status).toBe(429);
    expect(stopped.json.request.error).toMatchObject({ id: 'rate_limited', data: { limit: BUDGET } });
    const retryAfter = Number(stopped.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Guessing stops: a correct code gets the same 429, so a hit cannot be told apart.
    const correct = await attempt(service, { sessionId, code: 'GIFT-SPARE', sourceIp: attacker });
    expect(correct.status).toBe(429);
    expect(correct.json.request.error.id).toBe('rate_limited');
    // Another client's budget is its own.
    expect((await attempt(service, { sessionId, code: 'GIFT-SPARE', sourceIp: '203.0.113.91' })).status).toBe(
      200,
    );
  });

  it('keeps to the budget under a concurrent burst of guesses', async () => {
    const service = timed();
    const sessionId = await bookable();
    const burst = await Promise.all(
      Array.from({ length: BUDGET + 5 }, (_, index) =>
        attempt(service, { sessionId, code: `BURST-${index}`, sourceIp: '203.0.113.95' }),
      ),
    );
    const statuses = burst.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(BUDGET).fill(400), ...Array(5).fill(429)]);
  });

  it('counts a partner’s own credential by the credential, whatever address it calls from', async () => {
    const service = timed();
    const agent = await accountBasic(db, 2, { label: 'desk', now: 0 });
    const sessionId = await bookable();
    for (let index = 0; index < BUDGET; index += 1) {
      const guess = await attempt(service, {
        sessionId,
        code: `PGUESS-${index}`,
        sourceIp: `203.0.113.${100 + index}`,
        headers: { authorization: agent },
      });
      expect(guess.status).toBe(400);
    }
    const stopped = await attempt(service, {
      sessionId,
      code: 'PGUESS-X',
      sourceIp: '203.0.113.200',
      headers: { authorization: agent },
    });
    expect(stopped.status).toBe(429);
  });
});
