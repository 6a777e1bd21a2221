import { describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { testDeps } from '#test/support/deps.ts';
import { recordCommands } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { day, db, handlers, items, setUpItemsWorld, staff } from '#test/support/items-world.ts';

// The item catalogue: the list before any dates, one item by id, and bad input. The world:
// test/support/items-world.ts.

setUpItemsWorld();

describe('GET item (unrated)', () => {
  it('lists the enabled items a customer sees, keyed by id, with the item fields', async () => {
    const { status, json } = await items('');
    expect(status).toBe(200);
    expect(Object.keys(json.items).sort()).toEqual(['1', '2', '3', '4', '5', '6', '8']);
    expect(json.items['1']).toMatchObject({
      item_id: 1,
      sku: 'cabin-lakeside',
      unit: 'N',
      visibility: '*',
      name: 'Lakeside Cabin',
      unlimited: 0,
      category_id: 1,
      category: 'Cabins & Suites',
      rated: 0,
      type: 'I',
      status: 'A',
      // A picture given as a path on this service is answered as a URL on its public address.
      image: {
        '1': {
          src: 'http://api.test/widget/demo-cabin.webp',
          'src@2x': 'http://api.test/widget/demo-cabin-2x.webp',
          title: 'Lakeside Cabin on the north shore',
          width: 480,
          height: 360,
        },
      },
    });
    expect(json.request).toMatchObject({ records: 7, pages: 1 });
    expect(json.query).toBe(false);
  });

  it("lists each item's booking parameters with their labels and bounds, before any dates", async () => {
    const { json } = await items('');
    expect(json.items['1'].param).toEqual({
      adults: { group: 1, lock: '0', lbl: 'Adults', def: 2, req: 1, hide: null, range: 0, MIN: 1, MAX: 4 },
      children: {
        group: 1,
        lock: '0',
        lbl: 'Children',
        def: 0,
        req: 0,
        hide: null,
        range: 0,
        MIN: 0,
        MAX: 3,
      },
    });
    expect(Object.keys(json.items['3'].param)).toEqual(['qty']);
    // item.rules as the API 3.0 service's sample items carry it: a JSON string of bounds and fixed rules.
    const rules = {
      param: { adults: { MIN: '1', MAX: '4' }, children: { MIN: '0', MAX: '3' } },
      fixed: { start_time: '' },
    };
    expect(JSON.parse(json.items['1'].rules)).toEqual(rules);
    // An hourly item's opening hours, so a client can offer them as slots.
    expect(JSON.parse(json.items['5'].rules).fixed).toEqual({
      start_time: expect.stringMatching(/^\d{2}:\d{2}$/),
      end_time: expect.stringMatching(/^\d{2}:\d{2}$/),
    });
    // Rated, the same parameters add the price and the quantity asked.
    const rated = await items(`start_date=${day}&end_date=${addDays(day, 2)}&param[adults]=3`);
    expect(JSON.parse(rated.json.items['1'].rules)).toEqual(rules);
    expect(rated.json.items['1'].param.adults).toMatchObject({
      lbl: 'Adults',
      MAX: 4,
      qty: 3,
      price: '60.00',
    });
  });

  it('shows staff-only items to staff, and private items to nobody in the list', async () => {
    const { json } = await items('', { authorization: staff });
    expect(Object.keys(json.items)).toContain('9');
    expect(Object.keys(json.items)).not.toContain('7');
  });

  it('filters by category, keyword, item ids and packages', async () => {
    expect(Object.keys((await items('category_id=2')).json.items)).toEqual(['3', '4', '5']);
    expect(Object.keys((await items('keyword=KAY')).json.items)).toEqual(['3']);
    expect(Object.keys((await items('item_id=1,3,9')).json.items)).toEqual(['1', '3']);
    expect(Object.keys((await items('item_id[]=4&item_id[]=6')).json.items)).toEqual(['4', '6']);
    expect(Object.keys((await items('packages=1')).json.items)).toEqual(['8']);
    expect(Object.keys((await items('packages=0')).json.items)).not.toContain('8');
  });

  it('lists with one table query, and then from the catalogue the function keeps', async () => {
    const recorded = recordCommands(db);
    const counting = createAllHandlers({ ...testDeps(recorded.db), configTtlMs: 60_000 });
    await invoke(counting.items, { path: 'ping' }).catch(() => undefined);
    recorded.commands.length = 0;
    await invoke(counting.items, { path: 'item' });
    // One query reads the items; the update is the client's request counter (per-client limits).
    expect(recorded.commands).toEqual(['UpdateCommand', 'QueryCommand']);
    recorded.commands.length = 0;
    await invoke(counting.items, { path: 'item' });
    expect(recorded.commands).toEqual(['UpdateCommand']);
  });
});

describe('GET item/{id}', () => {
  it('answers 404 for an unknown, disabled or staff-only item asked by a customer, and shows a private one', async () => {
    expect((await invoke(handlers.items, { path: 'item/999' })).status).toBe(404);
    expect((await invoke(handlers.items, { path: 'item/9' })).status).toBe(404);
    expect((await invoke(handlers.items, { path: 'item/9', headers: { authorization: staff } })).status).toBe(
      200,
    );
    const hamper = await invoke(handlers.items, { path: 'item/7' });
    expect(hamper.json.item).toMatchObject({ item_id: 7, visibility: 'P', unlimited: 1 });
  });
});

describe('bad input', () => {
  it.each([
    [
      'a malformed date',
      'start_date=2027-13-01',
      { start_date: 'not a date: use YYYYMMDD, YYYY-MM-DD, today or tomorrow' },
    ],
    [
      'an impossible date',
      'start_date=20270230',
      { start_date: 'not a date: use YYYYMMDD, YYYY-MM-DD, today or tomorrow' },
    ],
    ['end before start', 'start_date=20270110&end_date=20270109', { end_date: 'is before start_date' }],
    [
      'a span over the limit',
      'start_date=20270101&end_date=20280103',
      { end_date: 'at most 366 days after start_date' },
    ],
    ['end without start', 'end_date=20270109', { start_date: 'required with end_date' }],
    [
      'a fractional quantity',
      'date=20270110&param[adults]=1.5',
      { 'param[adults]': 'a whole number from 0 to 999' },
    ],
    [
      'a negative quantity',
      'date=20270110&param[adults]=-1',
      { 'param[adults]': 'a whole number from 0 to 999' },
    ],
    [
      'a bad time',
      'date=20270110&start_time=25:00&end_time=26:00',
      { start_time: 'a time such as 1200 or 12:00', end_time: 'a time such as 1300 or 13:00' },
    ],
    [
      'times the wrong way round',
      'date=20270110&start_time=1200&end_time=1100',
      { end_time: 'must be after start_time' },
    ],
    ['a bad category', 'category_id=abc', { category_id: 'a positive whole number' }],
    [
      'too many ids',
      `item_id=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`,
      { item_id: 'at most 100 ids' },
    ],
    ['a bad id', 'item_id=1,x', { item_id: 'item ids are positive whole numbers' }],
    ['a bad available', 'date=20270110&available=lots', { available: 'a whole number' }],
  ])('refuses %s with 400 naming the parameter', async (_name, query, data) => {
    const { status, json } = await items(query);
    expect(status).toBe(400);
    expect(json.request.error).toMatchObject({ id: 'validation_error', data });
  });

  it('refuses a calendar over 366 days and a bad item id in the path', async () => {
    const long = await invoke(handlers.items, {
      path: 'item/3/cal',
      query: 'start_date=20270101&end_date=20280110',
    });
    expect(long.status).toBe(400);
    expect((await invoke(handlers.items, { path: 'item/abc' })).json.request.error.data).toEqual({
      item_id: 'a positive whole number',
    });
  });

  it('keeps serving after bad input', async () => {
    expect((await items('start_date=nope')).status).toBe(400);
    expect((await items('')).status).toBe(200);
  });
});
