import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from '#test/support/dynamo.ts';
import type { TestResponse } from '#test/support/events.ts';
import { freshAddresses, freshDays } from '#test/support/fresh.ts';
import { type ScriptClient, scriptClient } from '#test/support/script-client.ts';
import { expectInvariant, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Issue 41: the re-hold cooldown counted how a cart ended, not what its client held. Altering a line and
// back moved the cart's expiry on, so one address held an item-date for `max_session_minutes` (60) and
// then waited the same 30 minutes as after a 15-minute hold; two carts of one address, the second added
// before the first expired, held it longer still. The cooldown now grows with the time the client held
// the item-date without a break, in one cart or several: twice that time with the defaults.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let now = Date.now();
const clock = () => now;
const freshDay = freshDays(60);
const freshAddress = freshAddresses();

const KAYAK = 1; // stock 4: a client may hold 2
const MINUTE = 60_000;

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'rehold-held-time',
    makeTenantJson({
      // The defaults: holds of 15 minutes, a cart for at most 60, a cooldown of twice the hold time.
      settings: { booking_code_prefix: 'TEST', hold_minutes: 15, max_session_minutes: 60 },
      items: [makeItem({ item_id: KAYAK, sku: 'kayak', stock: 4 })],
    }),
    { clock },
  ));
});

afterEach(async () => {
  await expectInvariant(db, now);
});

const sweep = () => createSweeper({ db, clock })();
const seconds = (ms: number) => Math.floor(ms / 1000);

/** Adds one kayak on `day` (a new cart without `sessionId`); the call must succeed. */
const holdOne = async (client: ScriptClient, day: string, sessionId?: string) => {
  const added = await client.add([await client.slip(KAYAK, `date=${day}&param[qty]=1`)], {
    ...(sessionId ? { sessionId } : {}),
  });
  expect(added.status).toBe(200);
  return sessionOf(added);
};

/** The keep-alive of the issue: a line one unit up and back down, each change moving the expiry on. */
const keepAlive = async (client: ScriptClient, sessionId: string, line: string) => {
  expect((await client.alter(sessionId, line, '2')).status).toBe(200);
  const back = await client.alter(sessionId, line, '1');
  expect(back.status).toBe(200);
  return sessionOf(back).expires as number;
};

const expectCooldown = (response: TestResponse, day: string, retryAfter: number) => {
  expect(response.status).toBe(409);
  expect(response.json.request.error).toMatchObject({
    id: 'hold_limit',
    data: { item_id: KAYAK, date: day, retry_after: retryAfter },
  });
  expect(response.headers['retry-after']).toBe(String(retryAfter));
};

const tryOne = async (client: ScriptClient, day: string, sessionId?: string) =>
  client.add([await client.slip(KAYAK, `date=${day}&param[qty]=1`)], { ...(sessionId ? { sessionId } : {}) });

describe('a cart kept alive by altering a line and back', () => {
  it('holds its item-date at most max_session_minutes, then its client waits twice that', async () => {
    const start = now;
    const day = freshDay();
    const attacker = scriptClient(handlers, freshAddress());
    const cart = (await holdOne(attacker, day)).id;
    let expires = 0;
    for (const minute of [14, 28, 42, 56]) {
      now = start + minute * MINUTE;
      expires = await keepAlive(attacker, cart, '1');
    }
    // The keep-alive works as it did: the cart lives its whole lifetime, and no longer.
    expect(expires).toBe(seconds(start) + 60 * 60);

    now = expires * 1000 + 1_000;
    await sweep();
    expect(await readUsed(db, KAYAK, day)).toBe(0);
    // Held for 60 minutes: 120 minutes of cooldown from the expiry, not the 30 after a 15-minute hold.
    expectCooldown(await tryOne(attacker, day), day, 120 * 60 - 1);
    now = (expires + 30 * 60) * 1000;
    expectCooldown(await tryOne(attacker, day), day, 90 * 60);
    now = (expires + 120 * 60) * 1000;
    expect((await tryOne(attacker, day)).status).toBe(200);
  });

  it('ended by its client after 42 minutes, cools down for 84', async () => {
    const start = now;
    const day = freshDay();
    const attacker = scriptClient(handlers, freshAddress());
    const cart = (await holdOne(attacker, day)).id;
    for (const minute of [14, 28, 42]) {
      now = start + minute * MINUTE;
      await keepAlive(attacker, cart, '1');
    }
    expect((await attacker.end(cart)).status).toBe(200);
    expectCooldown(await tryOne(attacker, day), day, 84 * 60);
  });

  it('let go and taken back by the same cart, cools down from its first hold, never for less than before', async () => {
    const start = now;
    const day = freshDay();
    const guest = scriptClient(handlers, freshAddress());
    const cart = (await holdOne(guest, day)).id;
    for (const minute of [14, 28]) {
      now = start + minute * MINUTE;
      await keepAlive(guest, cart, '1');
    }
    now = start + 40 * MINUTE;
    expect((await guest.alter(cart, '1', 'remove')).status).toBe(200);
    expectCooldown(await tryOne(guest, day), day, 80 * 60);
    // The cart that let go may take it back; it has held the day since its first hold all the same.
    now = start + 41 * MINUTE;
    await holdOne(guest, day, cart);
    now = start + 45 * MINUTE;
    expect((await guest.end(cart)).status).toBe(200);
    expectCooldown(await tryOne(guest, day), day, 90 * 60);
  });
});

describe('carts of one address that overlap', () => {
  it('count as one hold: the cooldown grows with the time from the first cart to the last', async () => {
    const start = now;
    const day = freshDay();
    const other = freshDay();
    const later = freshDay();
    const attacker = scriptClient(handlers, freshAddress());
    // The first cart holds the day, and another day whose line keeps the cart alive.
    const first = (await holdOne(attacker, day)).id;
    await holdOne(attacker, other, first);
    for (const minute of [14, 28, 42]) {
      now = start + minute * MINUTE;
      await keepAlive(attacker, first, '2');
    }
    // Before the first cart runs out, a second holds the day too (within the client's share of 2).
    now = start + 50 * MINUTE;
    const second = (await holdOne(attacker, day)).id;
    await holdOne(attacker, later, second);
    now = start + 56 * MINUTE;
    const firstExpires = await keepAlive(attacker, first, '2');
    expect(firstExpires).toBe(seconds(start) + 60 * 60);
    let secondExpires = 0;
    for (const minute of [64, 78, 92, 106]) {
      now = start + minute * MINUTE;
      if (minute > 60) await sweep();
      secondExpires = await keepAlive(attacker, second, '2');
    }
    expect(secondExpires).toBe(seconds(start) + 110 * 60);
    expect(await readUsed(db, KAYAK, day)).toBe(1);

    now = secondExpires * 1000;
    await sweep();
    expect(await readUsed(db, KAYAK, day)).toBe(0);
    // The address held the day for 110 minutes without a break: 220 minutes of cooldown from the last
    // expiry (before, 30 minutes from it: it could hold the day again at minute 140).
    now = (secondExpires + 31 * 60) * 1000;
    expectCooldown(await tryOne(attacker, day), day, 220 * 60 - 31 * 60);
    // Another client holds it meanwhile.
    expect((await tryOne(scriptClient(handlers, freshAddress()), day)).status).toBe(200);
  });

  it('do not count a booking: a cart holding the day an hour after a booking of it cools down as usual', async () => {
    const start = now;
    const day = freshDay();
    const guest = scriptClient(handlers, freshAddress());
    const booked = await guest.book((await holdOne(guest, day)).id);
    expect(booked.status).toBe(200);
    now = start + 65 * MINUTE;
    const cart = (await holdOne(guest, day)).id;
    now = start + 66 * MINUTE;
    expect((await guest.alter(cart, '1', 'remove')).status).toBe(200);
    expectCooldown(await tryOne(guest, day), day, 30 * 60);
  });
});
