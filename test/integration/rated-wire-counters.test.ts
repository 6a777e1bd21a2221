import { describe, expect, it, vi } from 'vitest';
import { addDays, localInstant, toIsoDate, utcHourKey } from '#lib/kernel/dates.ts';
import { setUsed } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import {
  advanceTo,
  asStaff,
  bookSession,
  client,
  day,
  db,
  main,
  setStatus,
  setUpRatedWireWorld,
  TZ,
  untimed,
} from '#test/support/rated-wire-world.ts';
import { sessionOf } from '#test/support/session.ts';

vi.mock('#lib/catalog/rate-item.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#lib/catalog/rate-item.ts')>();
  return { ...actual, rateItem: vi.fn(actual.rateItem) };
});

// Kept rated JSON against the counters it was rated on: repeats of a request, holds, bookings, sweeps and
// counters changed behind its back. The attacks' world and why: test/support/rated-wire-world.ts.

setUpRatedWireWorld();

describe('kept rated JSON: repeats and other forms of one request', () => {
  it('serves a repeated search from kept JSON, byte for byte as rated from scratch, and only then', async () => {
    const query = `start_date=${day}&end_date=${addDays(day, 2)}&param[adults]=2&param[qty]=1`;
    const first = await main.rate('first list', { path: 'item', query });
    expect(first.rerated).toBeGreaterThan(0);
    expect(Object.keys(first.json.items)).toEqual(['1', '2', '3', '4', '5', '6', '8']);
    const again = await main.rate('the same list', { path: 'item', query });
    // The attacks below are only worth something if a repeat is served from kept JSON.
    expect(again.rerated).toBe(0);
    const one = await main.rate('one item of it', { path: 'item/3', query });
    expect(one.rerated).toBe(0);
    expect(one.json.item).toEqual(again.json.items['3']);
    // Other spellings of the same request: ISO dates, a leading zero, the `/?` form.
    const other = `start_date=${toIsoDate(day)}&end_date=${toIsoDate(addDays(day, 2))}&param[adults]=02&param[qty]=1`;
    const spelled = await main.rate('the same list spelled otherwise', { path: 'item', query: other });
    expect(spelled.json.items).toEqual(again.json.items);
    expect(spelled.json.query).toEqual(again.json.query);
    await main.rate('filtered to two ids', { path: 'item', query: `${query}&item_id=8,3` });
    await main.rate('filtered by keyword', { path: 'item', query: `${query}&keyword=cabin` });
    await main.rate('packages only', { path: 'item', query: `${query}&packages=1` });
    await main.rate('one category', { path: 'item', query: `${query}&category_id=2` });
  });
});

describe('kept rated JSON against the counters', () => {
  it('answers holds, quantity changes, removals and clears made after it kept an answer', async () => {
    advanceTo(Date.now());
    const start = addDays(day, 7);
    const query = `start_date=${start}&end_date=${addDays(start, 2)}&param[adults]=2`;
    const before = await main.rate('before any hold', { path: 'item', query });
    expect(before.json.items['1'].rate.available).toBe(4);
    const slip = before.json.items['1'].rate.slip as string;
    const added = await client().add([slip]);
    expect(added.status).toBe(200);
    const session = sessionOf(added).id as string;
    const held = await main.rate('one cabin held', { path: 'item', query });
    expect(held.json.items['1'].rate.available).toBe(3);
    expect(held.json.items['8'].rate.available).toBe(3);
    expect((await client().alter(session, { 1: '3' })).status).toBe(200);
    const three = await main.rate('three cabins held', { path: 'item', query });
    expect(three.json.items['1'].rate.available).toBe(1);
    await main.rate('three cabins held, one item', { path: 'item/8', query });
    expect((await client().alter(session, { 1: 'remove' })).status).toBe(200);
    const removed = await main.rate('the line removed', { path: 'item', query });
    expect(removed.json.items['1'].rate.available).toBe(4);
    // Back to the counters of the first answer: kept JSON may serve again, and must be that answer.
    expect(removed.json.items['1']).toEqual(before.json.items['1']);
    await client().add([removed.json.items['1'].rate.slip, removed.json.items['2'].rate.slip], session);
    const both = await main.rate('cabin and loft held', { path: 'item', query });
    expect(both.json.items['2'].rate.status).toBe('SOLDOUT');
    expect(both.json.items['2'].rate.slip).toBeUndefined();
    expect((await client().clear(session)).status).toBe(200);
    const cleared = await main.rate('cleared', { path: 'item', query });
    expect(cleared.json.items['2'].rate.status).toBe('AVAILABLE');
    expect((await client().end(session)).status).toBe(200);
  });

  it('answers a booking, its cancellation and its revival', async () => {
    advanceTo(Date.now());
    const query = `date=${day}&param[qty]=2`;
    const before = await main.rate('before the booking', { path: 'item/3', query });
    const available = before.json.item.rate.available as number;
    const session = sessionOf(await client().add([before.json.item.rate.slip])).id as string;
    const created = await bookSession(main.handlers(), session);
    expect(created.status, JSON.stringify(created.json.request)).toBe(200);
    const code = created.json.booking.code as string;
    const booked = await main.rate('booked', { path: 'item/3', query });
    expect(booked.json.item.rate.available).toBe(available - 2);
    await main.rate('booked, in the list', { path: 'item', query });
    expect((await setStatus(main.handlers(), code, 'CANCELLED')).status).toBe(200);
    const cancelled = await main.rate('cancelled', { path: 'item/3', query });
    expect(cancelled.json.item.rate.available).toBe(available);
    await main.rate('cancelled, in the list', { path: 'item', query });
    expect((await setStatus(main.handlers(), code, 'PEND')).status).toBe(200);
    const revived = await main.rate('revived', { path: 'item/3', query });
    expect(revived.json.item.rate.available).toBe(available - 2);
    expect((await setStatus(main.handlers(), code, 'VOID')).status).toBe(200);
    await main.rate('voided', { path: 'item/3', query });
  });

  it('answers counters changed behind its back, on items, package parts and hours', async () => {
    advanceTo(Date.now());
    const start = addDays(day, 28);
    const queries = [
      `start_date=${start}&end_date=${addDays(start, 3)}&param[adults]=2&param[qty]=1`,
      `date=${start}&start_time=0900&end_time=1200&param[qty]=2`,
    ];
    const hours = [9, 10, 11].map((hour) => utcHourKey(localInstant(start, hour * 60, TZ)));
    let seed = 7;
    const next = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    for (const query of queries) await main.rate(`round 0 ${query}`, { path: 'item', query });
    for (let round = 1; round <= 12; round += 1) {
      for (let change = 0; change < 3; change += 1) {
        const itemId = [1, 2, 3, 4, 6, 8, 9, 5, 5][next(9)] as number;
        const slot = itemId === 5 ? (hours[next(3)] as string) : addDays(start, next(4) - 1);
        await setUsed(db, itemId, slot, next(13));
      }
      for (const query of queries) {
        await main.rate(`round ${round} customer ${query}`, { path: 'item', query });
        await main.rate(`round ${round} staff ${query}`, { path: 'item', query, headers: asStaff() });
      }
      await main.rate(`round ${round} package`, { path: 'item/8', query: queries[0] as string });
      await main.rate(`round ${round} min available`, { path: 'item', query: `${queries[0]}&available=5` });
    }
    // Counters back to nothing: what was kept at first (or rated anew) must answer as from scratch.
    for (const itemId of [1, 2, 3, 4, 6, 8, 9]) {
      for (let offset = -1; offset < 4; offset += 1) await setUsed(db, itemId, addDays(start, offset), 0);
    }
    for (const hour of hours) await setUsed(db, 5, hour, 0);
    for (const query of queries) await main.rate(`reset ${query}`, { path: 'item', query });
  });

  it('filters by the least available (available=) as counters change', async () => {
    advanceTo(Date.now());
    const start = addDays(day, 21);
    const query = `start_date=${start}&end_date=${addDays(start, 2)}&param[adults]=2&available=4`;
    const before = await main.rate('before', { path: 'item', query });
    expect(Object.keys(before.json.items)).toContain('1');
    expect(Object.keys(before.json.items)).toContain('8');
    const plain = await main.rate('unfiltered', { path: 'item', query: query.replace('&available=4', '') });
    const session = sessionOf(await client().add([plain.json.items['1'].rate.slip])).id as string;
    const after = await main.rate('one cabin held', { path: 'item', query });
    expect(Object.keys(after.json.items)).not.toContain('1');
    expect(Object.keys(after.json.items)).not.toContain('8');
    expect(after.json.request.records).toBe(Object.keys(after.json.items).length);
    await main.rate('at least 3', { path: 'item', query: query.replace('available=4', 'available=3') });
    await main.rate('at least 0', { path: 'item', query: query.replace('available=4', 'available=0') });
    await client().end(session);
    const again = await main.rate('released', { path: 'item', query });
    expect(Object.keys(again.json.items)).toEqual(Object.keys(before.json.items));
  });

  it('answers packages as their required parts are held, and optional parts opted in and out', async () => {
    advanceTo(Date.now());
    const start = addDays(day, 14);
    const query = `start_date=${start}&end_date=${addDays(start, 2)}&param[adults]=2`;
    const ask = (step: string) =>
      Promise.all([
        main.rate(`${step}: package`, { path: 'item/8', query }),
        main.rate(`${step}: cabin`, { path: 'item/1', query }),
        main.rate(`${step}: hamper`, { path: 'item/7', query }),
      ]).then(async (answers) => {
        await main.rate(`${step}: list`, { path: 'item', query });
        return answers;
      });
    const [package0, cabin0] = await ask('before');
    expect(package0?.json.item.rate.available).toBe(4);
    const cabins = sessionOf(await client().add([cabin0?.json.item.rate.slip])).id as string;
    await client().alter(cabins, { 1: '3' });
    const [package1] = await ask('three cabins held');
    expect(package1?.json.item.rate.available).toBe(1);
    const getaway = sessionOf(await client().add([package1?.json.item.rate.slip]));
    expect(getaway.item['1.2']).toMatchObject({ item_id: 7, opt: 'out' });
    const [package2] = await ask('the package held');
    expect(package2?.json.item.rate.available).toBe(0);
    expect(package2?.json.item.rate.slip).toBeUndefined();
    expect((await client().alter(getaway.id, { '1.2': 'optin' })).status).toBe(200);
    await ask('the hamper opted in');
    expect((await client().alter(getaway.id, { '1.2': 'optout' })).status).toBe(200);
    await ask('the hamper opted out');
    await client().end(getaway.id);
    await client().alter(cabins, { 1: '1' });
    const [package3] = await ask('one cabin held');
    expect(package3?.json.item.rate.available).toBe(3);
    await client().end(cabins);
    const [package4] = await ask('all released');
    expect(package4?.json.item).toEqual(package0?.json.item);
  });

  it('answers hourly items by their hours, whichever way the times are written', async () => {
    advanceTo(Date.now());
    const ten = `date=${day}&start_time=1000&end_time=1200&param[qty]=2`;
    const before = await main.rate('10 to 12', { path: 'item/5', query: ten });
    expect(before.json.item.rate.available).toBe(6);
    const session = sessionOf(await client().add([before.json.item.rate.slip])).id as string;
    const held = await main.rate('10 to 12 held', { path: 'item/5', query: ten });
    expect(held.json.item.rate.available).toBe(4);
    const colon = `date=${day}&start_time=10:00&end_time=12:00&param[qty]=2`;
    const written = await main.rate('10:00 to 12:00', { path: 'item/5', query: colon });
    expect(written.json.item).toEqual(held.json.item);
    const eleven = `date=${day}&start_time=1100&end_time=1300&param[qty]=2`;
    const overlap = await main.rate('11 to 13', { path: 'item/5', query: eleven });
    expect(overlap.json.item.rate.available).toBe(4);
    await setUsed(db, 5, utcHourKey(localInstant(day, 12 * 60, TZ)), 5);
    const noon = await main.rate('11 to 13, noon nearly full', { path: 'item/5', query: eleven });
    expect(noon.json.item.rate.available).toBe(1);
    expect(noon.json.item.rate.slip).toBeUndefined();
    await main.rate('10 to 12 again', { path: 'item/5', query: ten });
    await main.rate('the list by the hour', { path: 'item', query: eleven });
    await client().end(session);
    await setUsed(db, 5, utcHourKey(localInstant(day, 12 * 60, TZ)), 0);
    await main.rate('released', { path: 'item/5', query: eleven });
  });

  it('answers concurrent searches alike, and each search around a hold as before or after it', async () => {
    advanceTo(Date.now());
    const start = addDays(day, 35);
    const query = `start_date=${start}&end_date=${addDays(start, 3)}&param[adults]=2&param[qty]=1`;
    const together = await Promise.all(
      Array.from({ length: 12 }, () => invoke(main.handlers().items, { path: 'item', query })),
    );
    const expected = await main.rate('after the concurrent ones', { path: 'item', query });
    for (const answer of together) expect(untimed(answer.text)).toBe(untimed(expected.text));
    const slip = expected.json.items['3'].rate.slip as string;
    const [racing, added] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => invoke(main.handlers().items, { path: 'item', query }))),
      client().add([slip]),
    ]);
    expect(added.status).toBe(200);
    const after = await main.rate('after the hold', { path: 'item', query });
    const allowed = [untimed(expected.text), untimed(after.text)];
    for (const answer of racing) expect(allowed).toContain(untimed(answer.text));
    await client().end(sessionOf(added).id);
  });
});
