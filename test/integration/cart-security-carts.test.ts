import { describe, expect, it } from 'vitest';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import {
  bookWithCode,
  customerForm,
  db,
  freshDay,
  handlers,
  post,
  setUpCartSecurityWorld,
  slipOf,
  staff,
  tenantJson,
  usedOf,
} from '#test/support/cart-security-world.ts';
import { invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';
import { makeTenant } from '#test/support/tenant.ts';

// Attack scripts for issue 9, points 5 to 8, on carts and bookings: each got through before. The world:
// test/support/cart-security-world.ts.

setUpCartSecurityWorld();

describe('booking/create validates before it holds', () => {
  /** Books a fresh day of an item with a gift certificate code it refuses, holding nothing; returns the day. */
  const expectRefusedHoldingNothing = async (itemId: number, code: string) => {
    const day = freshDay();
    const refused = await bookWithCode(await slipOf(itemId, `date=${day}`), code);
    expect(refused.status).toBe(400);
    expect(await usedOf(itemId, day)).toBe(0);
    return day;
  };

  it('refuses a bad gift certificate before holding the SLIPs', async () => {
    await expectRefusedHoldingNothing(1, 'NOPE');
  });

  it('releases what it held when booking fails after holding', async () => {
    // A free tour leaves nothing for the gift certificate to pay: found only after the SLIP is held.
    const day = await expectRefusedHoldingNothing(2, 'GIFT-LIVE');
    const rated = await invoke(handlers.items, { path: 'item/2', query: `date=${day}` });
    expect(rated.json.item.rate.available).toBe(10);
  });
});

describe('a session id is not a key to someone else’s booking', () => {
  it('never sets the cookie from a session_id parameter', async () => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    const made = await post('session', 'booking/session', `slip[]=${slip}`);
    expect(made.cookies).toHaveLength(1);
    const id = sessionOf(made).id;
    const byLink = await invoke(handlers.session, { path: 'booking/session', query: `session_id=${id}` });
    expect(byLink.status).toBe(200);
    expect(byLink.cookies).toEqual([]);
    const added = await post('session', 'booking/session', `session_id=${id}&alter[1]=2`);
    expect(added.cookies).toEqual([]);
    const byCookie = await invoke(handlers.session, {
      path: 'booking/session',
      cookies: [`session_id=${id}`],
    });
    expect(byCookie.cookies[0]).toContain(`session_id=${id}`);
    await post('session', 'booking/session/end', `session_id=${id}`);
  });

  it('tells a repeat create by session id alone only the id, code and status', async () => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    const id = sessionOf(await post('session', 'booking/session', `slip[]=${slip}`)).id;
    const first = await post('bookings', 'booking/create', `session_id=${id}&${customerForm}`, {
      headers: { 'idempotency-key': 'k-1' },
    });
    expect(first.status).toBe(200);
    expect(first.json.booking.token).toBeTruthy();

    const stranger = await post(
      'bookings',
      'booking/create',
      `session_id=${id}&form[customer_name]=Eve&form[customer_email]=eve@example.com`,
    );
    expect(stranger.status).toBe(200);
    expect(stranger.json.booking).toEqual({
      id: first.json.booking.code,
      booking_id: first.json.booking.booking_id,
      code: first.json.booking.code,
      status_id: 'PEND',
      status: 'PEND',
      status_name: 'Pending',
    });
    expect(JSON.stringify(stranger.json)).not.toContain(first.json.booking.token);
    expect(stranger.json.request.data).toEqual({ existing: 1 });

    const sameEmail = await post(
      'bookings',
      'booking/create',
      `session_id=${id}&form[customer_name]=Ada&form[customer_email]=ADA@example.com`,
    );
    expect(sameEmail.json.booking.token).toBe(first.json.booking.token);
    const sameKey = await post('bookings', 'booking/create', `session_id=${id}&${customerForm}`, {
      headers: { 'idempotency-key': 'k-1' },
    });
    expect(sameKey.json.booking.token).toBe(first.json.booking.token);
  });

  it('never tells a customer its customer id, and tells staff', async () => {
    const slip = await slipOf(1, `date=${freshDay()}`);
    const customer = await post('bookings', 'booking/create', `slip[]=${slip}&${customerForm}`);
    expect(customer.json.booking).not.toHaveProperty('customer_id');
    const desk = await post(
      'bookings',
      'booking/create',
      `slip[]=${await slipOf(1, `date=${freshDay()}`)}&${customerForm}`,
      {
        headers: { authorization: staff },
      },
    );
    expect(desk.json.booking.customer_id).toEqual(expect.any(Number));
  });
});

describe('cross-site cart changes', () => {
  const cart = async () => {
    const day = freshDay();
    const id = sessionOf(
      await post('session', 'booking/session', `slip[]=${await slipOf(1, `date=${day}`)}`),
    ).id;
    return { id, day, cookies: [`session_id=${id}`] };
  };

  it('refuses a cookie-only change from another site, and changes nothing', async () => {
    const { id, day, cookies } = await cart();
    // Without Origin, a same-site page (another subdomain of the site) is not the service's own origin,
    // and a value the Fetch Metadata spec does not define is not trusted either.
    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example.net' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'Same-Site' },
      { 'sec-fetch-site': 'bogus' },
    ];
    for (const headers of crossSite) {
      for (const [path, body] of [
        ['booking/session', 'alter[1]=5'],
        ['booking/session/clear', ''],
        ['booking/session/end', ''],
      ] as const) {
        const refused = await post('session', path, body, { cookies, headers });
        expect(refused.status).toBe(403);
        expect(refused.json.request.error.id).toBe('forbidden');
      }
      const create = await post('bookings', 'booking/create', customerForm, { cookies, headers });
      expect(create.status).toBe(403);
    }
    expect(await usedOf(1, day)).toBe(1);
    const read = await invoke(handlers.session, {
      path: 'booking/session',
      cookies,
      headers: { origin: 'https://evil.example.net' },
    });
    expect(read.status).toBe(200);
    await post('session', 'booking/session/end', `session_id=${id}`);
  });

  it('serves the tenant’s origins, its own origin, same-origin or user-typed requests and server-side clients', async () => {
    const { day, cookies } = await cart();
    const allowed: Record<string, string>[] = [
      { origin: 'https://shop.example.com' },
      { origin: 'http://localhost' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      { 'sec-fetch-site': 'SAME-ORIGIN' },
      { origin: 'https://shop.example.com', 'sec-fetch-site': 'cross-site' },
      {},
    ];
    for (const [index, headers] of allowed.entries()) {
      // Each change moves the line between 2 and 3, within the client's share of the item-date.
      const response = await post('session', 'booking/session', `alter[1]=${(index % 2) + 2}`, {
        cookies,
        headers,
      });
      expect(response.status, JSON.stringify(headers)).toBe(200);
    }
    expect(await usedOf(1, day)).toBe(((allowed.length - 1) % 2) + 2);
    await post('session', 'booking/session/end', '', { cookies });
  });
});

describe('staff SLIPs and items', () => {
  it('refuses a SLIP rated with rules=soft by staff in a customer’s cart', async () => {
    const slip = await slipOf(1, `date=${freshDay()}&rules=soft`, { authorization: staff });
    const refused = await post('session', 'booking/session', `slip[]=${slip}`);
    expect(refused.status).toBe(400);
    expect(refused.json.request.error).toMatchObject({ id: 'invalid_slip', data: { reason: 'staff_only' } });
    expect(
      (await post('session', 'booking/session', `slip[]=${slip}`, { headers: { authorization: staff } }))
        .status,
    ).toBe(200);
  });

  it('refuses a SLIP of a staff-only item to customers', async () => {
    const day = freshDay();
    const slip = await slipOf(3, `date=${day}`, { authorization: staff });
    const refused = await post('bookings', 'booking/create', `slip[]=${slip}&${customerForm}`);
    expect(refused.status).toBe(400);
    expect(refused.json.request.error.data.reason).toBe('staff_only');
    expect(await usedOf(3, day)).toBe(0);
  });

  it('still books a private item for a customer who has its id', async () => {
    const day = freshDay();
    const added = await post('session', 'booking/session', `slip[]=${await slipOf(6, `date=${day}`)}`);
    expect(added.status).toBe(200);
    expect(await usedOf(6, day)).toBe(1);
    await post('session', 'booking/session/end', `session_id=${sessionOf(added).id}`);
  });

  it('re-checks visibility and that the item is enabled when a line grows', async () => {
    const day = freshDay();
    const made = await post('session', 'booking/session', `slip[]=${await slipOf(4, `date=${day}`)}`);
    const id = sessionOf(made).id;
    await writeTenant(db, makeTenant(tenantJson({ hidden: true })), Date.now());
    const grown = await post('session', 'booking/session', `session_id=${id}&alter[1]=3`);
    expect(grown.status).toBe(409);
    expect(grown.json.request.error.id).toBe('unavailable');
    expect(await usedOf(4, day)).toBe(1);
    expect((await post('session', 'booking/session', `session_id=${id}&alter[1]=remove`)).status).toBe(200);
    await writeTenant(db, makeTenant(tenantJson()), Date.now());
    await post('session', 'booking/session/end', `session_id=${id}`);
  });
});

describe('a change of the unlimited flag', () => {
  it('cannot make the counters drift through void and revival', async () => {
    const day = freshDay();
    const booked = await post(
      'bookings',
      'booking/create',
      `slip[]=${await slipOf(5, `date=${day}`)}&${customerForm}`,
    );
    const code = booked.json.booking.code;
    const update = (status: string) =>
      post('bookings', `booking/${code}/update`, '', {
        query: `status_id=${status}`,
        headers: { authorization: staff },
      });
    expect((await update('VOID')).status).toBe(200);
    await writeTenant(db, makeTenant(tenantJson({ unlimitedRaft: true })), Date.now());
    expect((await update('PEND')).status).toBe(200);
    expect(await usedOf(5, day)).toBe(1);
    expect((await update('VOID')).status).toBe(200);
    await writeTenant(db, makeTenant(tenantJson()), Date.now());
    expect(await usedOf(5, day)).toBe(0);
    expect((await update('PEND')).status).toBe(200);
    expect(await usedOf(5, day)).toBe(1);
  });
});
