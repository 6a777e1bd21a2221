import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createSweeper } from '#functions/sweeper/job.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { clientHoldKey } from '#lib/kernel/storage/keys.ts';
import { invoke } from '#test/support/events.ts';
import {
  CABIN,
  clientAt,
  db,
  expectHoldLimit,
  FREE,
  handlers,
  KAYAK,
  LAST,
  setUpHoardingWorld,
  staff,
  usedOf,
} from '#test/support/hoarding-world.ts';
import { sessionOf } from '#test/support/session.ts';

// Attack scripts against hoarding (issue 9, points 3 and 4): one client tries to freeze the stock. Each
// would have held everything it asked for, for as long as it liked, before hold budgets. The world: test/support/hoarding-world.ts.

let now = Date.now();
const clock = () => now;
const start = addDays(todayIn('America/Toronto', Date.now()), 30);
let nextDay = 0;
/** A date no earlier test touched. */
const freshDay = () => {
  nextDay += 1;
  return addDays(start, nextDay);
};

setUpHoardingWorld(clock);

describe('the hold share of one client', () => {
  it('refuses more than half of an item-date across all its sessions, changing nothing, and serves others', async () => {
    const day = freshDay();
    const attacker = clientAt('203.0.113.10');
    const slip = await attacker.slip(KAYAK, `date=${day}&param[qty]=3`);
    const first = sessionOf(await attacker.add([slip]));
    expect(await usedOf(KAYAK, day)).toBe(3);

    // A second cart of the same client for 3 more: over its 5.
    const over = await attacker.add([slip]);
    expectHoldLimit(over, { line: '1', item_id: KAYAK, date: day, allowed: 5 });
    expect(await usedOf(KAYAK, day)).toBe(3);
    // Growing the first cart past the share is refused the same way.
    expectHoldLimit(await attacker.alter(first.id, '1', '2'), { line: '1', item_id: KAYAK, date: day });
    expect(await usedOf(KAYAK, day)).toBe(3);
    // Up to the share is fine.
    const two = await attacker.add([await attacker.slip(KAYAK, `date=${day}&param[qty]=2`)]);
    expect(two.status).toBe(200);
    expect(await usedOf(KAYAK, day)).toBe(5);

    // Another client can still take every unit the attacker could not.
    const guest = clientAt('198.18.1.1');
    const guestSlip = await guest.slip(KAYAK, `date=${day}&param[qty]=5`);
    const booked = await guest.book(sessionOf(await guest.add([guestSlip])).id);
    expect(booked.status).toBe(200);
    expect(await usedOf(KAYAK, day)).toBe(10);
  });

  it('lets a client hold at least one unit, and the last one', async () => {
    const day = freshDay();
    const guest = clientAt('203.0.113.11');
    const held = await guest.add([await guest.slip(LAST, `date=${day}`)]);
    expect(held.status).toBe(200);
    expect(await usedOf(LAST, day)).toBe(1);
  });

  it('holds a multi-night stay only while every night is within the share', async () => {
    const first = freshDay();
    nextDay += 3;
    const attacker = clientAt('203.0.113.12');
    const stay = await attacker.slip(CABIN, `start_date=${first}&end_date=${addDays(first, 3)}&param[qty]=2`);
    expect((await attacker.add([stay])).status).toBe(200);
    const oneNight = await attacker.slip(CABIN, `date=${addDays(first, 2)}`);
    expectHoldLimit(await attacker.add([oneNight]), { item_id: CABIN, date: addDays(first, 2), allowed: 2 });
  });

  it('keeps the share under a race of one client’s parallel carts', async () => {
    const day = freshDay();
    const attacker = clientAt('203.0.113.13');
    const slip = await attacker.slip(KAYAK, `date=${day}`);
    const responses = await Promise.all(Array.from({ length: 12 }, () => attacker.add([slip])));
    const held = responses.filter((response) => response.status === 200);
    // At most three carts, and never more than five units, whatever the interleaving.
    expect(held.length).toBeLessThanOrEqual(3);
    expect(await usedOf(KAYAK, day)).toBe(held.length);
    for (const response of responses.filter((entry) => entry.status !== 200)) {
      expect(response.json.request.error.id).toMatch(/^(hold_limit|busy)$/);
    }
    for (const response of held) await attacker.end(sessionOf(response).id);
  });

  it('keeps the share under parallel alters of one client’s carts', async () => {
    const day = freshDay();
    const attacker = clientAt('203.0.113.14');
    const slip = await attacker.slip(KAYAK, `date=${day}`);
    const carts = [];
    for (let index = 0; index < 3; index += 1) carts.push(sessionOf(await attacker.add([slip])).id);
    const responses = await Promise.all(carts.map((id) => attacker.alter(id, '1', '4')));
    expect(await usedOf(KAYAK, day)).toBeLessThanOrEqual(5);
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
    for (const id of carts) await attacker.end(id);
  });

  it('exempts unlimited items and staff', async () => {
    const day = freshDay();
    const guest = clientAt('203.0.113.15');
    const free = await guest.slip(FREE, `date=${day}&param[qty]=5`);
    expect((await guest.add([free])).status).toBe(200);
    const desk = clientAt('203.0.113.15', { authorization: staff });
    const all = await desk.slip(KAYAK, `date=${day}&param[qty]=10`);
    const held = await desk.add([all]);
    expect(held.status).toBe(200);
    expect(await usedOf(KAYAK, day)).toBe(10);
    await desk.end(sessionOf(held).id);
  });
});

describe('open carts of one client', () => {
  it('refuses a fourth holding cart, and frees a slot when one ends or expires', async () => {
    const attacker = clientAt('203.0.113.20');
    const carts: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await attacker.add([await attacker.slip(KAYAK, `date=${freshDay()}`)]);
      expect(response.status).toBe(200);
      carts.push(sessionOf(response).id);
    }
    const day = freshDay();
    const fourth = await attacker.add([await attacker.slip(KAYAK, `date=${day}`)]);
    expectHoldLimit(fourth, { item_id: KAYAK, date: day, open_sessions: 3 });
    expect(await usedOf(KAYAK, day)).toBe(0);

    // An empty cart holds nothing, so it does not count; ending one frees a slot.
    await attacker.end(carts[0] as string);
    const fifth = await attacker.add([await attacker.slip(KAYAK, `date=${day}`)]);
    expect(fifth.status).toBe(200);

    // Past their hold time the others free their slots at once, before any sweep.
    now += 16 * 60_000;
    const later = await attacker.add([await attacker.slip(KAYAK, `date=${freshDay()}`)]);
    expect(later.status).toBe(200);
    await attacker.end(sessionOf(later).id);
  });
});

describe('a budget is given back by every path that lets go of a hold', () => {
  const fullShare = async (address: string, day: string) => {
    const guest = clientAt(address);
    const response = await guest.add([await guest.slip(KAYAK, `date=${day}&param[qty]=5`)]);
    expect(response.status).toBe(200);
    return { guest, id: sessionOf(response).id as string };
  };
  const canHoldAgain = async (address: string, day: string) => {
    const again = await fullShare(address, day);
    await again.guest.end(again.id);
  };

  it.each([
    ['remove', (guest: ReturnType<typeof clientAt>, id: string) => guest.alter(id, '1', 'remove')],
    ['clear', (guest: ReturnType<typeof clientAt>, id: string) => guest.clear(id)],
    ['end', (guest: ReturnType<typeof clientAt>, id: string) => guest.end(id)],
  ])('by %s', async (_, letGo) => {
    const day = freshDay();
    const address = `203.0.113.${30 + nextDay}`;
    const { guest, id } = await fullShare(address, day);
    expectHoldLimit(await guest.add([await guest.slip(KAYAK, `date=${day}`)]), { item_id: KAYAK });
    expect((await letGo(guest, id)).status).toBe(200);
    await canHoldAgain(address, day);
  });

  it('by expiry and the sweeper', async () => {
    const day = freshDay();
    const address = '203.0.113.60';
    await fullShare(address, day);
    now += 16 * 60_000;
    expect((await createSweeper({ db, clock })()).released).toBeGreaterThanOrEqual(1);
    await canHoldAgain(address, day);
  });

  it('by VOID of an unpaid booking, which kept counting against the budget until then', async () => {
    const day = freshDay();
    const address = '203.0.113.61';
    const { guest, id } = await fullShare(address, day);
    const booked = await guest.book(id);
    expect(booked.status).toBe(200);
    const code = booked.json.booking.id;
    expectHoldLimit(await guest.add([await guest.slip(KAYAK, `date=${day}`)]), { item_id: KAYAK });
    const voided = await invoke(handlers.bookings, {
      method: 'POST',
      path: `booking/${code}/update`,
      query: 'status_id=VOID',
      headers: { authorization: staff },
    });
    expect(voided.status).toBe(200);
    await canHoldAgain(address, day);
  });
});

describe('hold lifetime', () => {
  it('extends a hold only by a change that changes something', async () => {
    const day = freshDay();
    const guest = clientAt('203.0.113.70');
    const slip = await guest.slip(KAYAK, `date=${day}&param[qty]=2`);
    const first = sessionOf(await guest.add([slip]));
    const expires = first.expires;
    for (const attempt of [
      () => guest.alter(first.id, '1', '1'),
      () => guest.add([slip], { sessionId: first.id }),
      () => guest.read(first.id),
    ]) {
      now += 4 * 60_000;
      const response = await attempt();
      expect(response.status).toBe(200);
      expect(sessionOf(response).expires).toBe(expires);
    }
    now += 4 * 60_000;
    // Sixteen minutes after the last real change: the no-ops above kept nothing alive.
    expect((await guest.read(first.id)).json.request.error.id).toBe('session_expired');
  });

  it('does not extend an empty cart by clearing it again', async () => {
    const guest = clientAt('203.0.113.71');
    const session = sessionOf(await guest.add([await guest.slip(KAYAK, `date=${freshDay()}`)]));
    const cleared = sessionOf(await guest.clear(session.id));
    now += 5 * 60_000;
    expect(sessionOf(await guest.clear(session.id)).expires).toBe(cleared.expires);
    await guest.end(session.id);
  });

  it('holds for at most max_session_minutes after the first hold, however often it changes', async () => {
    const day = freshDay();
    const guest = clientAt('203.0.113.72');
    const session = sessionOf(await guest.add([await guest.slip(KAYAK, `date=${day}`)]));
    const deadline = Math.floor(now / 1000) + 60 * 60;
    let last = session.expires;
    for (let step = 0; step < 6; step += 1) {
      now += 10 * 60_000 - 1_000;
      const changed = sessionOf(await guest.alter(session.id, '1', String((step % 2) + 2)));
      expect(changed.expires).toBeLessThanOrEqual(deadline);
      last = changed.expires;
    }
    expect(last).toBe(deadline);
    now = deadline * 1000 + 1;
    const late = await guest.alter(session.id, '1', '1');
    expect(late.status).toBe(409);
    expect(late.json.request.error.id).toBe('session_expired');
    await createSweeper({ db, clock })();
    expect(await usedOf(KAYAK, day)).toBe(0);
  });
});

describe('reconcile of hold budgets', () => {
  it('reports a client budget that disagrees with its sessions and fixes it', async () => {
    const day = freshDay();
    const guest = clientAt('203.0.113.80');
    await guest.add([await guest.slip(KAYAK, `date=${day}&param[qty]=2`)]);
    await db.documents.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: clientHoldKey('203.0.113.80', `${KAYAK}|${day}`),
        UpdateExpression: 'SET held = :wrong',
        ExpressionAttributeValues: { ':wrong': 5 },
      }),
    );
    const report = await runReconcile(db, { fix: false, now });
    expect(report.clientDiscrepancies).toEqual([
      { kind: 'client_hold', client: '203.0.113.80', counterId: `${KAYAK}|${day}`, held: 5, expected: 2 },
    ]);
    const fixed = await runReconcile(db, { fix: true, now });
    expect(fixed.fixed).toBe(1);
    expect((await runReconcile(db, { fix: false, now })).clientDiscrepancies).toEqual([]);
  });
});
