import { describe, expect, it } from 'vitest';
import { addDays } from '#lib/kernel/dates.ts';
import { invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';
import { client, handlers, setUpSessionWorld, start, usedOf } from '#test/support/session-world.ts';

// A cart's SLIPs and lines: adding and altering them. The world: test/support/session-world.ts.

let now = Date.now();
const clock = () => now;
setUpSessionWorld(clock);

describe('adding SLIPs', () => {
  it('starts a session, holds the stock and sets the cookie', async () => {
    now = Math.max(now, Date.now());
    const slip = await client.slip(1, `date=${start}&param[qty]=2`);
    const response = await client.add([slip]);
    expect(response.status).toBe(200);
    const session = sessionOf(response);
    expect(response.json.request).toMatchObject({ resource: 'booking', id: 'session', records: 1 });
    expect(session).toMatchObject({
      age: 0,
      expires: Math.floor(now / 1000) + 900,
      start_date: start,
      end_date: start,
      sub_total: '80.00',
      total: '80.00',
      due: '80.00',
      paid_total: '0.00',
      qty: 1,
    });
    expect(session.item['1']).toMatchObject({
      sku: 'kayak',
      item_id: 1,
      unit: 'D',
      slip,
      available: 8,
      date: { start_date: start },
    });
    expect(response.cookies).toEqual([`session_id=${session.id}; Path=/; HttpOnly; SameSite=Lax`]);
    expect(await usedOf(1, start)).toBe(2);
    const byCookie = await client.readByCookie([`session_id=${session.id}`]);
    expect(Object.keys(sessionOf(byCookie).item)).toEqual(['1']);
  });

  it('marks the cookie Secure and SameSite=None over HTTPS', async () => {
    const slip = await client.slip(1, `date=${start}`);
    const response = await invoke(handlers.session, {
      method: 'POST',
      path: 'booking/session',
      body: `slip=${slip}`,
      contentType: 'application/x-www-form-urlencoded',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(response.cookies[0]).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=None$/);
  });

  it('adds several SLIPs all or nothing, naming the line and date that cannot be held', async () => {
    const kayak = await client.slip(1, `date=${addDays(start, 1)}`);
    const last = await client.slip(2, `date=${addDays(start, 1)}`);
    const first = await client.add([last]);
    expect(first.status).toBe(200);
    const before = await usedOf(1, addDays(start, 1));
    const refused = await client.add([kayak, last]);
    expect(refused.status).toBe(409);
    expect(refused.json.request.error).toMatchObject({
      id: 'unavailable',
      data: { item_id: 2, date: addDays(start, 1) },
    });
    expect(await usedOf(1, addDays(start, 1))).toBe(before);
    expect(await usedOf(2, addDays(start, 1))).toBe(1);
  });

  it('changes nothing when the same SLIP is added again', async () => {
    const slip = await client.slip(1, `date=${addDays(start, 2)}`);
    const first = sessionOf(await client.add([slip]));
    now += 60_000;
    const again = sessionOf(await client.add([slip], first.id));
    expect(Object.keys(again.item)).toEqual(['1']);
    expect(again.expires).toBe(first.expires);
    expect(await usedOf(1, addDays(start, 2))).toBe(1);
  });

  it('adds through GET with slip[] too', async () => {
    const slip = await client.slip(1, `date=${addDays(start, 3)}`);
    const response = await invoke(handlers.session, { path: 'booking/session', query: `slip[]=${slip}` });
    expect(response.status).toBe(200);
    expect(Object.keys(sessionOf(response).item)).toEqual(['1']);
  });

  it('refuses a tampered SLIP and adds nothing', async () => {
    const slip = await client.slip(1, `date=${addDays(start, 4)}`);
    const tampered = `${slip.slice(0, 30)}${slip[30] === 'A' ? 'B' : 'A'}${slip.slice(31)}`;
    const response = await client.add([tampered]);
    expect(response.status).toBe(400);
    expect(response.json.request.error).toMatchObject({
      id: 'invalid_slip',
      data: { reason: 'tampered', slip: 0 },
    });
    expect(await usedOf(1, addDays(start, 4))).toBe(0);
  });

  it('limits SLIPs per call and item-dates per session', async () => {
    const slip = await client.slip(1, `date=${start}`);
    const many = await client.add(Array.from({ length: 21 }, () => slip));
    expect(many.status).toBe(400);
    const long = await client.slip(1, `start_date=${start}&end_date=${addDays(start, 48)}`);
    const tooLong = await client.add([long]);
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.request.error.data).toEqual({ slip: 'more than 48 item-dates in one session' });
  });
});

describe('alter', () => {
  it('holds and releases the difference of a quantity, and removes lines', async () => {
    const day = addDays(start, 5);
    const session = sessionOf(await client.add([await client.slip(1, `date=${day}&param[qty]=2`)]));
    const up = await client.alter(session.id, { 1: '3' });
    expect(sessionOf(up).item['1']).toMatchObject({ qty: 3, rate: { item_total: '240.00', qty: 3 } });
    expect(await usedOf(1, day)).toBe(6);
    await client.alter(session.id, { 1: '1' });
    expect(await usedOf(1, day)).toBe(2);
    const tooMany = await client.alter(session.id, { 1: '6' });
    expect(tooMany.status).toBe(409);
    expect(tooMany.json.request.error.data).toMatchObject({ line: '1', item_id: 1, date: day });
    expect(await usedOf(1, day)).toBe(2);
    const removed = await client.alter(session.id, { 1: 'remove' });
    expect(sessionOf(removed).item).toEqual({});
    expect(await usedOf(1, day)).toBe(0);
  });

  it('opts a package part in and out, holding and releasing it', async () => {
    const night = addDays(start, 6);
    const slip = await client.slip(5, `date=${night}`);
    const session = sessionOf(await client.add([slip]));
    expect(session.item['1.2']).toMatchObject({ item_id: 4, optional: 1, opt: 'out' });
    expect([await usedOf(3, night), await usedOf(4, night), await usedOf(5, night)]).toEqual([1, 0, 1]);
    const opted = sessionOf(await client.alter(session.id, { '1.2': 'optin' }));
    expect(opted.item['1.2'].opt).toBe('in');
    expect(Number(opted.sub_total)).toBe(Number(session.sub_total) + 20);
    expect(await usedOf(4, night)).toBe(1);
    await client.alter(session.id, { '1.2': 'optout' });
    expect(await usedOf(4, night)).toBe(0);
  });

  it.each([
    ['a malformed line id', { x1: '2' }, { 'alter[x1]': 'malformed line id' }],
    ['an unknown line', { 9: '2' }, { 'alter[9]': 'unknown line' }],
    ['a bad value', { 1: 'lots' }, { 'alter[1]': 'a quantity from 0 to 99, remove, optin or optout' }],
    ['optin on a required part', { '1.1': 'optin' }, { 'alter[1.1]': 'not an optional part' }],
    ['optin on a main line', { 1: 'optin' }, { 'alter[1]': 'optin and optout take a part line such as 1.1' }],
  ])('refuses %s with 400 and changes nothing', async (_name, changes, data) => {
    const night = addDays(start, 8);
    const session = sessionOf(await client.add([await client.slip(5, `date=${night}`)]));
    const response = await client.alter(session.id, changes);
    expect(response.status).toBe(400);
    expect(response.json.request.error.data).toEqual(data);
    expect(sessionOf(await client.read(session.id)).item['1'].qty).toBe(1);
    await client.end(session.id);
  });
});
