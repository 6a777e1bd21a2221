import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from '#test/support/dynamo.ts';
import { invoke, staffBasic, type TestResponse } from '#test/support/events.ts';
import { freshAddresses, freshDays } from '#test/support/fresh.ts';
import { scriptClient } from '#test/support/script-client.ts';
import { expectInvariant, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// The proof-of-work gate (issue 27): under pressure, a rotating script's every hold costs it a solved
// ALTCHA challenge, bound to its cart and client, spent once. Each refusal below was a plain 200 before.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
let now = Date.now();
const clock = () => now;
const freshDay = freshDays();
const freshAddress = freshAddresses();

const GATED = 1; // stock 4, pow below 0.5: the last 2 units need a solved challenge
const PLAIN = 2; // stock 4, no gate

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'pow-gate',
    makeTenantJson({
      settings: {
        booking_code_prefix: 'TEST',
        // The gate alone: no share or cooldown in the way, and a cheap challenge for quick tests.
        limits: { client_hold_share: 1, rehold_cooldown_minutes: 0 },
        pow: { cost: 10, max_counter: 20, expires_seconds: 300 },
      },
      items: [
        makeItem({ item_id: GATED, sku: 'gated', stock: 4, pow: { below_share: 0.5 } }),
        makeItem({ item_id: PLAIN, sku: 'plain', name: 'Plain', stock: 4 }),
      ],
    }),
    { clock },
  ));
  staff = await staffBasic(db, { now: 0 });
});

afterEach(async () => {
  await expectInvariant(db, now);
});

const usedOf = (itemId: number, slot: string): Promise<number> => readUsed(db, itemId, slot);

/** A client of the cart at one address. */
const clientAt = (address: string, headers: Record<string, string> = {}) =>
  scriptClient(handlers, address, { headers });

/** What the widget sends back: ALTCHA's payload of the challenge and its solution, base64 JSON. */
const solve = async (challenge: Challenge): Promise<string> => {
  const solution = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
};

const expectChallenge = (response: TestResponse, reason: string): Challenge => {
  expect(response.status).toBe(409);
  expect(response.json.request.error).toMatchObject({ id: 'challenge_required', data: { reason } });
  return response.json.request.error.data.challenge as Challenge;
};

/** Two of the four units held by someone else: what is left is the reserve. */
const underPressure = async () => {
  const day = freshDay();
  const first = clientAt(freshAddress());
  expect((await first.add([await first.slip(GATED, `date=${day}&param[qty]=2`)])).status).toBe(200);
  return day;
};

describe('a hold that would leave less than the share free', () => {
  it('needs a challenge bound to its cart and client, and holds with the solution', async () => {
    const day = await underPressure();
    const address = freshAddress();
    const guest = clientAt(address);
    const slip = await guest.slip(GATED, `date=${day}`);
    const challenge = expectChallenge(await guest.add([slip]), 'pressure');
    expect(challenge.parameters).toMatchObject({
      algorithm: 'PBKDF2/SHA-256',
      data: { session: '', client: address, counters: `${GATED}|${day}` },
    });
    expect(challenge.parameters.expiresAt).toBe(Math.floor(now / 1000) + 300);
    expect(await usedOf(GATED, day)).toBe(2);
    const held = await guest.add([slip], { altcha: await solve(challenge) });
    expect(held.status).toBe(200);
    expect(await usedOf(GATED, day)).toBe(3);
  });

  it('asks nothing while the hold leaves the share free, nor of an item without the gate', async () => {
    const day = freshDay();
    const guest = clientAt(freshAddress());
    expect((await guest.add([await guest.slip(GATED, `date=${day}&param[qty]=2`)])).status).toBe(200);
    expect((await guest.add([await guest.slip(PLAIN, `date=${day}&param[qty]=4`)])).status).toBe(200);
  });

  it('answers unavailable, not a challenge, when the units are not there at all', async () => {
    const day = await underPressure();
    const late = clientAt(freshAddress());
    const lateSlip = await late.slip(GATED, `date=${day}`);
    const guest = clientAt(freshAddress());
    const slip = await guest.slip(GATED, `date=${day}&param[qty]=2`);
    const challenge = expectChallenge(await guest.add([slip]), 'pressure');
    expect((await guest.add([slip], { altcha: await solve(challenge) })).status).toBe(200);
    const refused = await late.add([lateSlip]);
    expect(refused.status).toBe(409);
    expect(refused.json.request.error.id).toBe('unavailable');
  });

  it('exempts staff', async () => {
    const day = await underPressure();
    const desk = clientAt(freshAddress(), { authorization: staff });
    expect((await desk.add([await desk.slip(GATED, `date=${day}&param[qty]=2`)])).status).toBe(200);
  });
});

describe('booking/create with slip[]', () => {
  it('asks for a challenge under pressure and books with the solution', async () => {
    const day = await underPressure();
    const address = freshAddress();
    const guest = clientAt(address);
    const slip = await guest.slip(GATED, `date=${day}`);
    const create = (extra = '') =>
      invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `slip[]=${slip}&form[customer_name]=Ada&form[customer_email]=ada@example.com${extra}`,
        contentType: 'application/x-www-form-urlencoded',
        sourceIp: address,
      });
    const altcha = await solve(expectChallenge(await create(), 'pressure'));
    expect(await usedOf(GATED, day)).toBe(2);
    expect((await create(`&altcha=${encodeURIComponent(altcha)}`)).status).toBe(200);
    expect(await usedOf(GATED, day)).toBe(3);
  });
});

describe('a solution', () => {
  it('is spent once: the same payload again is refused', async () => {
    const day = await underPressure();
    const guest = clientAt(freshAddress());
    const slip = await guest.slip(GATED, `date=${day}`);
    const altcha = await solve(expectChallenge(await guest.add([slip]), 'pressure'));
    expect((await guest.add([slip], { altcha })).status).toBe(200);
    expectChallenge(await guest.add([slip], { altcha }), 'spent');
    expect(await usedOf(GATED, day)).toBe(3);
  });

  it('wins one hold of a race of parallel calls', async () => {
    const day = await underPressure();
    const guest = clientAt(freshAddress());
    const slip = await guest.slip(GATED, `date=${day}`);
    const altcha = await solve(expectChallenge(await guest.add([slip]), 'pressure'));
    const responses = await Promise.all(Array.from({ length: 4 }, () => guest.add([slip], { altcha })));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(await usedOf(GATED, day)).toBe(3);
  });

  it('is refused from another client, in another cart, for another date, tampered or expired', async () => {
    const day = await underPressure();
    const address = freshAddress();
    const guest = clientAt(address);
    const slip = await guest.slip(GATED, `date=${day}`);
    const challenge = expectChallenge(await guest.add([slip]), 'pressure');
    const altcha = await solve(challenge);

    const other = clientAt(freshAddress());
    expectChallenge(await other.add([await other.slip(GATED, `date=${day}`)], { altcha }), 'foreign');

    const cart = sessionOf(await guest.add([await guest.slip(PLAIN, `date=${day}`)])).id;
    expectChallenge(await guest.add([slip], { sessionId: cart, altcha }), 'foreign');

    const otherDay = await underPressure();
    expectChallenge(
      await guest.add([await guest.slip(GATED, `date=${otherDay}`)], { altcha }),
      'other_dates',
    );

    const forged = JSON.parse(Buffer.from(altcha, 'base64').toString('utf8'));
    forged.challenge.parameters.data.counters = `${GATED}|${otherDay}`;
    const tampered = Buffer.from(JSON.stringify(forged)).toString('base64');
    expectChallenge(
      await guest.add([await guest.slip(GATED, `date=${otherDay}`)], { altcha: tampered }),
      'invalid',
    );

    const saved = now;
    now += 301_000;
    try {
      expectChallenge(await guest.add([await guest.slip(GATED, `date=${day}`)], { altcha }), 'expired');
    } finally {
      now = saved;
    }
    expect(await usedOf(GATED, day)).toBe(2);
  });
});
