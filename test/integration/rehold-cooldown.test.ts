import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import { addDays } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { readUsed } from '#test/support/dynamo.ts';
import { invoke, staffBasic, type TestResponse } from '#test/support/events.ts';
import { freshAddresses, freshDays } from '#test/support/fresh.ts';
import { scriptClient } from '#test/support/script-client.ts';
import { expectInvariant, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// The rotation attack (issue 27): a script re-adds the same SLIP the moment its cart expires, so the
// item-date is never free for more than the sweeper's gap. Each attack below held again at once before
// the re-hold cooldown; a client that let an item-date go unbooked now waits before it holds it again.
let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
let now = Date.now();
const clock = () => now;
const freshDay = freshDays();
const freshAddress = freshAddresses();

const KAYAK = 1; // stock 4: a client may hold 2
const FREE_TOUR = 2; // costs nothing: a gift certificate finds nothing to pay only after the hold
const HOLD_MINUTES = 15;
// The default cooldown: twice the hold time.
const COOLDOWN_SECONDS = 2 * HOLD_MINUTES * 60;

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'rehold-cooldown',
    makeTenantJson({
      // No rehold_cooldown_minutes: the default, twice the tenant's hold time.
      settings: { booking_code_prefix: 'TEST', hold_minutes: HOLD_MINUTES, max_session_minutes: 60 },
      items: [
        makeItem({ item_id: KAYAK, sku: 'kayak', stock: 4 }),
        makeItem({
          item_id: FREE_TOUR,
          sku: 'tour',
          name: 'Tour',
          stock: 4,
          params: { qty: { price: '0.00' } },
        }),
      ],
      giftcerts: [{ code: 'GIFT-LIVE', amount: '50.00' }],
    }),
    { clock },
  ));
  staff = await staffBasic(db, { now: 0 });
});

afterEach(async () => {
  await expectInvariant(db, now);
});

const usedOf = (slot: string): Promise<number> => readUsed(db, KAYAK, slot);

/** A client of the cart at one address, as the attack script drives it. */
const clientAt = (address: string, headers: Record<string, string> = {}) =>
  scriptClient(handlers, address, { headers });

const sweep = () => createSweeper({ db, clock })();

/** The attack's step: hold the whole share of the day in a new cart. */
const holdShare = async (client: ReturnType<typeof clientAt>, day: string) =>
  client.add([await client.slip(KAYAK, `date=${day}&param[qty]=2`)]);

const expectCooldown = (response: TestResponse, day: string, retryAfter: number) => {
  expect(response.status).toBe(409);
  expect(response.json.request.error).toMatchObject({
    id: 'hold_limit',
    data: { item_id: KAYAK, date: day, retry_after: retryAfter },
  });
  expect(response.headers['retry-after']).toBe(String(retryAfter));
};

describe('a client that let an item-date expire unbooked', () => {
  it('cannot hold it again the moment the sweeper released it, while another client can', async () => {
    const day = freshDay();
    const attacker = clientAt(freshAddress());
    const first = await holdShare(attacker, day);
    expect(first.status).toBe(200);
    const expires = sessionOf(first).expires as number;

    now = expires * 1000 + 1_000;
    expect((await sweep()).released).toBeGreaterThanOrEqual(1);
    expect(await usedOf(day)).toBe(0);
    // The attack: the same SLIP, the moment the cart is gone.
    expectCooldown(await holdShare(attacker, day), day, COOLDOWN_SECONDS - 1);
    expect(await usedOf(day)).toBe(0);

    // Anyone else holds it meanwhile.
    const guest = clientAt(freshAddress());
    expect((await holdShare(guest, day)).status).toBe(200);
    expect(await usedOf(day)).toBe(2);

    // Days no stay spans with it are not cooled down (the kayak's stays: up to a cart's 48 days; days within
    // that are, test/integration/rehold-stay.test.ts), and the day itself is free to the client once the
    // cooldown is over.
    expect((await holdShare(attacker, addDays(day, 2 * 47))).status).toBe(200);
    now = (expires + COOLDOWN_SECONDS) * 1000;
    expect((await attacker.add([await attacker.slip(KAYAK, `date=${day}`)])).status).toBe(200);
  });

  it('cannot hold it again the moment the cart expired, before any sweep: its expired cart goes first', async () => {
    const day = freshDay();
    const attacker = clientAt(freshAddress());
    const first = await holdShare(attacker, day);
    const expires = sessionOf(first).expires as number;
    now = expires * 1000;
    // Its own expired cart is released by this very call, the cooldown recorded, and the day left free.
    expectCooldown(await holdShare(attacker, day), day, COOLDOWN_SECONDS);
    expect(await usedOf(day)).toBe(0);
    expect((await holdShare(clientAt(freshAddress()), day)).status).toBe(200);
  });

  it('cannot hold it again after the early release of its expired carts either', async () => {
    const day = freshDay();
    const attacker = clientAt(freshAddress());
    const carts = [await holdShare(attacker, day)];
    for (let index = 0; index < 2; index += 1) carts.push(await holdShare(attacker, freshDay()));
    for (const cart of carts) expect(cart.status).toBe(200);
    now = Math.max(...carts.map((cart) => sessionOf(cart).expires as number)) * 1000 + 1_000;
    // Three expired carts fill its open-cart budget: this add releases them first, then is refused.
    const expires = sessionOf(carts[0] as TestResponse).expires as number;
    expectCooldown(await holdShare(attacker, day), day, expires + COOLDOWN_SECONDS - Math.floor(now / 1000));
    expect(await usedOf(day)).toBe(0);
  });

  it('is refused by every one of a race of parallel re-adds', async () => {
    const day = freshDay();
    const attacker = clientAt(freshAddress());
    const first = await holdShare(attacker, day);
    now = (sessionOf(first).expires as number) * 1000 + 1_000;
    await sweep();
    const slip = await attacker.slip(KAYAK, `date=${day}`);
    const responses = await Promise.all(Array.from({ length: 6 }, () => attacker.add([slip])));
    for (const response of responses) expect(response.json.request.error?.id).toMatch(/^(hold_limit|busy)$/);
    expect(await usedOf(day)).toBe(0);
  });
});

describe('a client that let go of an item-date itself', () => {
  it.each([
    ['end', (client: ReturnType<typeof clientAt>, id: string) => client.end(id)],
    ['clear', (client: ReturnType<typeof clientAt>, id: string) => client.clear(id)],
    ['remove', (client: ReturnType<typeof clientAt>, id: string) => client.alter(id, '1', 'remove')],
  ])('by %s cannot hold it again at once in a new cart', async (_, letGo) => {
    const day = freshDay();
    const attacker = clientAt(freshAddress());
    const held = await holdShare(attacker, day);
    expect((await letGo(attacker, sessionOf(held).id)).status).toBe(200);
    expectCooldown(await holdShare(attacker, day), day, COOLDOWN_SECONDS);
    expect(await usedOf(day)).toBe(0);
  });

  it.each([
    ['clear', (client: ReturnType<typeof clientAt>, id: string) => client.clear(id)],
    ['remove', (client: ReturnType<typeof clientAt>, id: string) => client.alter(id, '1', 'remove')],
  ])(
    'by %s may add it back to the same cart, whose lifetime still runs from its first hold',
    async (_, letGo) => {
      const day = freshDay();
      const guest = clientAt(freshAddress());
      const held = sessionOf(await holdShare(guest, day));
      expect((await letGo(guest, held.id)).status).toBe(200);
      const back = await guest.add([await guest.slip(KAYAK, `date=${day}&param[qty]=2`)], {
        sessionId: held.id,
      });
      expect(back.status).toBe(200);
      expect(await usedOf(day)).toBe(2);
      await guest.end(held.id);
    },
  );

  it('keeps what it still holds, and may hold less of it again by alter', async () => {
    const day = freshDay();
    const guest = clientAt(freshAddress());
    const cart = sessionOf(await guest.add([await guest.slip(KAYAK, `date=${day}`)])).id;
    expect((await guest.alter(cart, '1', '2')).status).toBe(200);
    // Fewer units is not letting go: the cart still holds the day and may grow back within its share.
    expect((await guest.alter(cart, '1', '1')).status).toBe(200);
    expect((await guest.alter(cart, '1', '2')).status).toBe(200);
    expect(await usedOf(day)).toBe(2);
    await guest.end(cart);
  });

  it('is not cooled down by a create that failed after holding and let go of its own cart', async () => {
    const day = freshDay();
    const address = freshAddress();
    const create = (body: string) =>
      invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `${body}&form[customer_name]=Ada&form[customer_email]=ada@example.com`,
        contentType: 'application/x-www-form-urlencoded',
        sourceIp: address,
      });
    const { json } = await invoke(handlers.items, {
      path: `item/${FREE_TOUR}`,
      query: `date=${day}&param[qty]=1`,
      sourceIp: address,
    });
    const slip = json.item.rate.slip as string;
    // Found only once the SLIP is held: the certificate has nothing to pay, and the call ends its cart.
    expect((await create(`slip[]=${slip}&giftcert_code=GIFT-LIVE`)).status).toBe(400);
    expect((await create(`slip[]=${slip}`)).status).toBe(200);
  });

  it('books it again at once after a booking: only carts let go unbooked count', async () => {
    const day = freshDay();
    const guest = clientAt(freshAddress());
    const booked = await guest.book(sessionOf(await guest.add([await guest.slip(KAYAK, `date=${day}`)])).id);
    expect(booked.status).toBe(200);
    expect((await guest.add([await guest.slip(KAYAK, `date=${day}`)])).status).toBe(200);
  });
});

describe('staff', () => {
  it('are never cooled down', async () => {
    const day = freshDay();
    const desk = clientAt(freshAddress(), { authorization: staff });
    const held = await desk.add([await desk.slip(KAYAK, `date=${day}&param[qty]=4`)]);
    await desk.end(sessionOf(held).id);
    const again = await desk.add([await desk.slip(KAYAK, `date=${day}&param[qty]=4`)]);
    expect(again.status).toBe(200);
    await desk.end(sessionOf(again).id);
  });
});

describe('rehold_cooldown_minutes 0', () => {
  it('lets the attack re-hold at once, as before', async () => {
    const off = await loadTenant(
      'rehold-cooldown-off',
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', hold_minutes: 15, limits: { rehold_cooldown_minutes: 0 } },
        items: [makeItem({ item_id: KAYAK, sku: 'kayak', stock: 4 })],
      }),
      { clock },
    );
    const saved = handlers;
    handlers = off.handlers;
    try {
      const day = freshDay();
      const attacker = clientAt(freshAddress());
      const first = await holdShare(attacker, day);
      now = (sessionOf(first).expires as number) * 1000 + 1_000;
      await createSweeper({ db: off.db, clock })();
      expect((await holdShare(attacker, day)).status).toBe(200);
    } finally {
      handlers = saved;
    }
  });
});
