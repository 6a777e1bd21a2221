import { describe, expect, it, vi } from 'vitest';
import { addDays } from '#lib/kernel/dates.ts';
import {
  advanceTo,
  asStaff,
  day,
  main,
  setUpRatedWireWorld,
  slipsOf,
  verify,
} from '#test/support/rated-wire-world.ts';

vi.mock('#lib/catalog/rate-item.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#lib/catalog/rate-item.ts')>();
  return { ...actual, rateItem: vi.fn(actual.rateItem) };
});

// Kept rated JSON across callers, rules modes and discount codes, and client text echoed around it. The
// attacks' world and why: test/support/rated-wire-world.ts.

setUpRatedWireWorld();

describe('kept rated JSON across callers and rules modes', () => {
  it('never hands a customer what staff were answered with rules=soft or rules=off', async () => {
    advanceTo(Date.now());
    const monday = addDays(day, 6);
    const canoe = `date=${monday}&param[adults]=2`;
    const staffOff = await main.rate('staff, rules=off', {
      path: 'item/6',
      query: `${canoe}&rules=off`,
      headers: asStaff(),
    });
    expect(staffOff.json.item.rate.status).toBe('AVAILABLE');
    expect(verify(staffOff.json.item.rate.slip).rules).toBe('off');
    const customer = await main.rate('customer', { path: 'item/6', query: canoe });
    expect(customer.json.item.rate.status).toBe('UNAVAILABLE');
    expect(customer.json.item.rate.slip).toBeUndefined();
    const refused = await main.rate('customer, rules=off', { path: 'item/6', query: `${canoe}&rules=off` });
    expect(refused.status).toBe(400);
    const soft = await main.rate('staff, rules=soft', {
      path: 'item/6',
      query: `${canoe}&rules=soft`,
      headers: asStaff(),
    });
    expect(verify(soft.json.item.rate.slip).rules).toBe('soft');
    const staffOn = await main.rate('staff, rules on', { path: 'item/6', query: canoe, headers: asStaff() });
    expect(staffOn.json.item).toEqual(customer.json.item);
    await main.rate('staff, rules=on spelled out', {
      path: 'item/6',
      query: `${canoe}&rules=on`,
      headers: asStaff(),
    });
    const again = await main.rate('staff, rules=off again', {
      path: 'item/6',
      query: `${canoe}&rules=off`,
      headers: asStaff(),
    });
    expect(again.rerated).toBe(0);
    await main.rate('customer again', { path: 'item/6', query: canoe });

    // Parameter rules: nine adults in a cabin for four.
    const crowd = `start_date=${day}&end_date=${addDays(day, 2)}&param[adults]=9`;
    const staffList = await main.rate('staff list, rules=off', {
      path: 'item',
      query: `${crowd}&rules=off`,
      headers: asStaff(),
    });
    expect(staffList.json.items['1'].rate.status).toBe('AVAILABLE');
    const customerList = await main.rate('customer list', { path: 'item', query: crowd });
    expect(customerList.json.items['1'].rate.status).toBe('RULE');
    for (const slip of slipsOf(customerList.json)) expect(verify(slip).rules).toBeUndefined();
    for (const slip of slipsOf(customer.json)) expect(verify(slip).rules).toBeUndefined();
  });

  it('shows staff-only and private items per caller, whoever asked first', async () => {
    advanceTo(Date.now());
    const query = `start_date=${addDays(day, 3)}&end_date=${addDays(day, 4)}&param[qty]=1&param[adults]=2`;
    const staffList = await main.rate('staff list', { path: 'item', query, headers: asStaff() });
    expect(Object.keys(staffList.json.items)).toContain('9');
    const customerList = await main.rate('customer list', { path: 'item', query });
    expect(Object.keys(customerList.json.items)).not.toContain('9');
    expect(Object.keys(customerList.json.items)).not.toContain('7');
    expect(customerList.json.request.records).toBe(7);
    const hidden = await main.rate('customer asks for the staff-only item', { path: 'item/9', query });
    expect(hidden.status).toBe(404);
    await main.rate('customer filters to it', { path: 'item', query: `${query}&item_id=9,3` });
    const slipItem = await main.rate('staff asks for it', { path: 'item/9', query, headers: asStaff() });
    expect(slipItem.json.item).toEqual(staffList.json.items['9']);
    const privateItem = await main.rate('customer asks for the private item', { path: 'item/7', query });
    expect(privateItem.status).toBe(200);
    await main.rate('staff asks for the private item', { path: 'item/7', query, headers: asStaff() });
    await main.rate('customer list again', { path: 'item', query });
    const staffAgain = await main.rate('staff list again', { path: 'item', query, headers: asStaff() });
    expect(staffAgain.rerated).toBe(0);
  });

  it('answers two customers and staff the same item alike for the same request', async () => {
    advanceTo(Date.now());
    const query = `date=${addDays(day, 5)}&param[qty]=2`;
    const one = await main.rate('a customer', { path: 'item', query, sourceIp: '203.0.113.10' });
    const two = await main.rate('another customer', { path: 'item', query, sourceIp: '203.0.113.11' });
    const desk = await main.rate('staff', { path: 'item', query, headers: asStaff() });
    expect(two.json.items).toEqual(one.json.items);
    expect(desk.json.items['3']).toEqual(one.json.items['3']);
    const behalf = await main.rate('staff for a customer', {
      path: 'item',
      query,
      headers: { ...asStaff(), 'x-on-behalf': 'off' },
    });
    expect(behalf.json.items['3']).toEqual(one.json.items['3']);
  });
});

describe('kept rated JSON and discount codes', () => {
  it('applies each request’s own code, as sent, whatever was kept', async () => {
    advanceTo(Date.now());
    const base = `date=${day}&param[qty]=2`;
    const withCode = (code: string | undefined) =>
      code === undefined ? base : `${base}&discount_code=${encodeURIComponent(code)}`;
    const codes = [
      'PADDLE5',
      undefined,
      'paddle5',
      ' PADDLE5 ',
      'NOPE',
      'SUMMER10',
      'summer10',
      'PADDLE5',
      undefined,
    ] as const;
    for (const code of codes) {
      const one = await main.rate(`item 3 with ${code}`, { path: 'item/3', query: withCode(code) });
      const list = await main.rate(`list with ${code}`, { path: 'item', query: withCode(code) });
      expect(one.json.query.discount_code).toBe(code ?? false);
      expect(list.json.query.discount_code).toBe(code ?? false);
      const valid = code?.trim().toUpperCase() === 'PADDLE5';
      expect(one.json.item.discount_id).toBe(valid ? 'PADDLE5' : null);
      expect(one.json.item.rate.discount).toBe(valid ? '5.00' : '0.00');
      // PADDLE5 is for kayaks and paddleboards (hourly: unrated without times), never bikes.
      expect(list.json.items['3'].discount_id).toBe(valid ? 'PADDLE5' : null);
      expect(list.json.items['5'].rate.status).toBe('UNAVAILABLE');
      expect(list.json.items['4'].discount_id).toBeNull();
      if (code === undefined) expect(one.json.item.rate.error).toBeUndefined();
      if (valid) expect(verify(one.json.item.rate.slip).discountCode).toBe('PADDLE5');
      else expect(verify(one.json.item.rate.slip).discountCode).toBeUndefined();
    }
  });
});

describe('client text echoed around spliced JSON', () => {
  const base = `start_date=${day}&end_date=${addDays(day, 1)}&param[adults]=2&param[qty]=1`;
  const fakeNonce = '00000000-0000-4000-8000-000000000000';

  it('echoes discount and gift certificate codes as sent, whatever they hold, and corrupts nothing', async () => {
    advanceTo(Date.now());
    const hostile = [
      '"},"items":{"1":{}},"x":"',
      '\\"\\\\u0000',
      '</script><script>x</script>',
      '\u2028\u2029\u0085',
      '\u0000raw-json:0',
      `\u0000raw-json:${fakeNonce.slice(0, 8)}:0`,
      'slip:"s1.x.y.z"',
      "$&$1$$`'",
      '{"a":1}',
      '\uFFFD\u{1F6F6}',
      'ä\u0301\u200B',
    ];
    for (const code of hostile) {
      for (const field of ['discount_code', 'giftcert_code']) {
        const query = `${base}&${field}=${encodeURIComponent(code)}`;
        const list = await main.rate(`list, ${field}=${JSON.stringify(code)}`, { path: 'item', query });
        expect(list.status).toBe(200);
        expect(list.json.query[field]).toBe(code);
        expect(Object.keys(list.json.items)).toEqual(['1', '2', '3', '4', '5', '6', '8']);
        const one = await main.rate(`item, ${field}=${JSON.stringify(code)}`, { path: 'item/3', query });
        expect(one.json.query[field]).toBe(code);
        expect(one.json.item.item_id).toBe(3);
        const again = await main.rate(`list again, ${field}=${JSON.stringify(code)}`, {
          path: 'item',
          query,
        });
        expect(again.rerated).toBe(0);
        expect(again.text.includes('raw-json')).toBe(code.includes('raw-json'));
      }
    }
  });

  it('echoes ignored parameter names as sent, markers and quotes included, and corrupts nothing', async () => {
    advanceTo(Date.now());
    const names = [
      `\u0000raw-json:${fakeNonce}:0`,
      `\u0000raw-json:${fakeNonce}:99`,
      'a"b',
      '"},"items":{},"z":"',
      '\\',
      '</script>',
      '\u2028',
    ];
    for (const name of names) {
      const query = `${base}&${encodeURIComponent(name)}=1`;
      const list = await main.rate(`ignored ${JSON.stringify(name)}`, { path: 'item', query });
      expect(list.status).toBe(200);
      expect(list.json.request.ignored).toEqual([name]);
      expect(Object.keys(list.json.items)).toEqual(['1', '2', '3', '4', '5', '6', '8']);
      const one = await main.rate(`ignored ${JSON.stringify(name)}, one item`, { path: 'item/1', query });
      expect(one.json.request.ignored).toEqual([name]);
      const param = `${base}&${encodeURIComponent(`param[${name}]`)}=3`;
      const unknown = await main.rate(`unknown param ${JSON.stringify(name)}`, {
        path: 'item',
        query: param,
      });
      expect(unknown.status).toBe(200);
      expect(unknown.json.request.ignored).toEqual([`param[${name}]`]);
      expect(unknown.json.query.param).toEqual({ adults: 2, qty: 1 });
    }
  });

  it('leaves no marker of its own in any answer', async () => {
    advanceTo(Date.now());
    const answers = [
      await main.rate('list', { path: 'item', query: base }),
      await main.rate('list again', { path: 'item', query: base }),
      await main.rate('staff list', { path: 'item', query: base, headers: asStaff() }),
      await main.rate('one item', { path: 'item/8', query: base }),
      await main.rate('an invalid request', { path: 'item', query: `${base}&param[adults]=x` }),
      await main.rate('unrated', { path: 'item', query: '' }),
    ];
    for (const answer of answers) {
      expect(answer.text).not.toMatch(/raw-json|\\u0000|slip:[0-9a-f]{8}-/);
      expect(() => JSON.parse(answer.text)).not.toThrow();
    }
  });
});
