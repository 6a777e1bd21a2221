import { describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { verifySlip } from '#lib/slip/codec.ts';
import { TEST_SLIP_KEY, testDeps } from '#test/support/deps.ts';
import { recordCommands } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { day, db, handlers, hold, items, setUpItemsWorld, staff, today } from '#test/support/items-world.ts';

// Rated items and calendars. The world: test/support/items-world.ts.

setUpItemsWorld();

describe('GET item (rated)', () => {
  it('rates every listed item, with the query echoed and a SLIP on each bookable one', async () => {
    const end = addDays(day, 2);
    const { json } = await items(`start_date=${day}&end_date=${end}&param[adults]=2&param[qty]=1`);
    expect(json.query).toEqual({
      start_date: day,
      end_date: end,
      discount_code: false,
      giftcert_code: false,
      exclude: false,
      param: { adults: 2, qty: 1 },
      local_start_date: `${day.slice(4, 6)}/${day.slice(6)}/${day.slice(0, 4)}`,
      local_end_date: `${end.slice(4, 6)}/${end.slice(6)}/${end.slice(0, 4)}`,
    });
    expect(json.request).toMatchObject({ start_date: day, end_date: end, param: { adults: 2, qty: 1 } });
    const kayak = json.items['3'];
    expect(kayak).toMatchObject({ rated: 1, days: 3, qty: 1, local_start_date: json.query.local_start_date });
    expect(kayak.rate).toMatchObject({ status: 'AVAILABLE', available: 10, start_date: day, end_date: end });
    const payload = verifySlip(kayak.rate.slip, { keys: [TEST_SLIP_KEY], tenant: 'demo', now: Date.now() });
    expect(payload).toMatchObject({ itemId: 3, start: day, end, params: { qty: 1 } });
    expect(json.items['5'].rate).toMatchObject({
      status: 'UNAVAILABLE',
      error: 'Choose a start and end time for this item',
    });
    expect(json.items['5'].rate.slip).toBeUndefined();
  });

  it('keeps the arithmetic a client checks: sub_total, available and T = B + A', async () => {
    await hold(3, addDays(day, 1), 4);
    const { json } = await items(
      `start_date=${day}&end_date=${addDays(day, 2)}&param[qty]=2&param[adults]=2&param[children]=1`,
    );
    for (const item of Object.values<any>(json.items)) {
      const { rate, param } = item;
      const dates = Object.values<any>(rate.dates);
      const qty = (id: string) => (id === '_item' ? 1 : param[id].qty);
      const sum = dates.reduce(
        (total, date) =>
          total +
          Object.entries<string>(date.price).reduce(
            (line, [id, price]) => line + Math.round(Number(price) * 100) * qty(id),
            0,
          ),
        0,
      );
      expect(Math.round(Number(rate.sub_total) * 100), item.name).toBe(sum);
      if (dates.length)
        expect(rate.available, item.name).toBe(Math.min(...dates.map((date) => date.stock.A)));
      for (const date of dates)
        if (date.stock.B <= date.stock.T) expect(date.stock.T).toBe(date.stock.B + date.stock.A);
    }
    expect(json.items['3'].rate.available).toBe(6);
    expect(json.items['3'].rate.dates[addDays(day, 1)].stock).toEqual({ T: 10, B: 4, A: 6 });
  });

  it('rates one item under `item`, with its slip, and shows A = 0 once the last unit is held', async () => {
    const start = addDays(day, 7);
    const first = await invoke(handlers.items, {
      path: 'item/2',
      query: `start_date=${start}&end_date=${addDays(start, 1)}`,
    });
    expect(first.json.item.rate).toMatchObject({ status: 'AVAILABLE', available: 1 });
    expect(first.json.item.rate.dates[start].stock).toEqual({ T: 1, B: 0, A: 1 });
    await hold(2, start, 1);
    const again = await invoke(handlers.items, { path: 'item/2/', query: `date=${start}` });
    expect(again.json.item.rate).toMatchObject({ status: 'SOLDOUT', available: 0 });
    expect(again.json.item.rate.slip).toBeUndefined();
    expect(again.json.item.rate.error).toBe('Sold out for these dates; try other dates');
  });

  it('drops items with fewer than `available` left', async () => {
    const start = addDays(day, 7);
    const { json } = await items(`date=${start}&available=2`);
    expect(Object.keys(json.items)).not.toContain('2');
    expect(Object.keys(json.items)).toContain('3');
  });

  it('reports a discount apart from sub_total, and an unknown code in rate.error', async () => {
    const { json } = await invoke(handlers.items, {
      path: 'item/3',
      query: `date=${day}&param[qty]=2&discount_code=PADDLE5`,
    });
    expect(json.item.rate).toMatchObject({
      sub_total: '90.00',
      discount: '5.00',
      total: '85.00',
      status: 'AVAILABLE',
    });
    expect(json.item).toMatchObject({ discount: '5.00', discount_id: 'PADDLE5', gprice: '$85.00' });
    const unknown = await invoke(handlers.items, { path: 'item/3', query: `date=${day}&discount_code=NOPE` });
    expect(unknown.json.item.rate).toMatchObject({
      discount: '0.00',
      error: 'Discount code NOPE is not valid; check it or leave it out',
      status: 'AVAILABLE',
    });
  });

  it('rates an hourly item by its times', async () => {
    const start = addDays(today, 20);
    const { json } = await invoke(handlers.items, {
      path: 'item/5',
      query: `date=${start}&start_time=1000&end_time=12:00&param[qty]=2`,
    });
    expect(json.item.rate).toMatchObject({ status: 'AVAILABLE', sub_total: '80.00' });
    expect(json.item.times).toHaveLength(2);
  });

  it('reads counters with one query a month or one an item, whichever is fewer, and never scans', async () => {
    const recorded = recordCommands(db);
    const counting = createAllHandlers({ ...testDeps(recorded.db), configTtlMs: 60_000 });
    await invoke(counting.items, { path: 'ping' }).catch(() => undefined);
    await invoke(counting.items, { path: 'item', query: `date=${day}` });
    const callsFor = async (nights: number) => {
      recorded.commands.length = 0;
      await invoke(counting.items, {
        path: 'item',
        query: `start_date=${day}&end_date=${addDays(day, nights)}`,
      });
      return [...recorded.commands];
    };
    const queries = (commands: string[]) => commands.filter((command) => command === 'QueryCommand').length;
    const short = await callsFor(1);
    const long = await callsFor(300);
    for (const commands of [short, long]) expect(commands).not.toContain('ScanCommand');
    // The catalogue is kept from the first call; then the counters: a night read by month (the index) ...
    expect(queries(short)).toBe(1);
    // ... 300 nights (ten months or more) read by item: one query per limited item or package part (the unlimited extra has none).
    expect(queries(long)).toBeLessThanOrEqual(7);
  });

  it('lets only staff relax rules', async () => {
    const soon = addDays(today, 1);
    const customer = await invoke(handlers.items, { path: 'item/1', query: `date=${soon}&rules=soft` });
    expect(customer.status).toBe(400);
    expect(customer.json.request.error.data).toEqual({ rules: 'soft and off are for staff only' });
    const strict = await invoke(handlers.items, {
      path: 'item/1',
      query: `date=${soon}`,
      headers: { authorization: staff },
    });
    expect(strict.json.item.rate.status).toBe('RULE');
    const soft = await invoke(handlers.items, {
      path: 'item/1',
      query: `date=${soon}&rules=soft`,
      headers: { authorization: staff },
    });
    expect(soft.json.item.rate.status).toBe('AVAILABLE');
    const payload = verifySlip(soft.json.item.rate.slip, {
      keys: [TEST_SLIP_KEY],
      tenant: 'demo',
      now: Date.now(),
    });
    expect(payload.rules).toBe('soft');
  });
});

describe('calendars', () => {
  it('run from today to an end date sent alone', async () => {
    const end = addDays(today, 10);
    const one = await invoke(handlers.items, { path: 'item/3/cal', query: `end_date=${end}` });
    expect(one.status).toBe(200);
    expect(Object.keys(one.json.item.cal)).toEqual(
      Array.from({ length: 11 }, (_, index) => addDays(today, index)),
    );
    const many = await invoke(handlers.items, { path: 'item/cal', query: `end_date=${end}&item_id=3,4` });
    expect(Object.keys(many.json.items['4'])).toHaveLength(11);
    const before = await invoke(handlers.items, {
      path: 'item/3/cal',
      query: `end_date=${addDays(today, -1)}`,
    });
    expect(before.status).toBe(400);
    expect(before.json.request.error.data).toEqual({ end_date: 'is before today' });
  });

  it('gives customers 1/0 and staff the counts', async () => {
    const start = addDays(day, 14);
    await hold(3, start, 9);
    await hold(3, addDays(start, 1), 10);
    const query = `start_date=${start}&end_date=${addDays(start, 2)}`;
    const customer = await invoke(handlers.items, { path: 'item/3/cal', query });
    expect(customer.json.item.cal).toEqual({ [start]: 1, [addDays(start, 1)]: 0, [addDays(start, 2)]: 1 });
    const staffView = await invoke(handlers.items, {
      path: 'item/3/cal',
      query,
      headers: { authorization: staff },
    });
    expect(staffView.json.item.cal).toEqual({ [start]: 1, [addDays(start, 1)]: 0, [addDays(start, 2)]: 10 });
  });

  it('lists several items by id (one, a comma list or an array) and by category', async () => {
    const query = `start_date=${day}&end_date=${addDays(day, 1)}`;
    expect(
      Object.keys(
        (await invoke(handlers.items, { path: 'item/cal', query: `${query}&item_id=3` })).json.items,
      ),
    ).toEqual(['3']);
    expect(
      Object.keys(
        (await invoke(handlers.items, { path: 'item/cal', query: `${query}&item_id=3,4` })).json.items,
      ),
    ).toEqual(['3', '4']);
    expect(
      Object.keys(
        (await invoke(handlers.items, { path: 'item/cal', query: `${query}&item_id[]=1&item_id[]=6` })).json
          .items,
      ),
    ).toEqual(['1', '6']);
    const byCategory = await invoke(handlers.items, { path: 'item/cal', query: `${query}&category_id=1` });
    expect(byCategory.json.items).toEqual({
      '1': { [day]: 1, [addDays(day, 1)]: 1 },
      '2': expect.any(Object),
    });
  });

  it('shows closed days as 0', async () => {
    const { json } = await invoke(handlers.items, {
      path: 'item/6/cal',
      query: `start_date=${day}&end_date=${addDays(day, 6)}`,
    });
    const monday = Object.keys(json.item.cal).find(
      (date) =>
        new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}T12:00:00Z`).getUTCDay() === 1,
    );
    expect(json.item.cal[monday ?? '']).toBe(0);
  });
});
