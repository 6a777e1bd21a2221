import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '#lib/kernel/dates.ts';
import { book, day, handlers, setUpCompatibilityWorld, staff } from '#test/support/compatibility-world.ts';
import { invoke } from '#test/support/events.ts';

// Issue 10: what third-party API 3.0 clients send must work unchanged: list windows, unknown parameters and
// harmless deviations. The world: test/support/compatibility-world.ts.

setUpCompatibilityWorld();

describe('booking list windows', () => {
  const base = addDays(day, 60);
  const at = (offset: number) => addDays(base, offset);
  const codes: Record<string, string> = {};
  const list = async (query: string) => {
    const response = await invoke(handlers.bookings, {
      path: 'booking/index',
      query,
      headers: { authorization: staff },
    });
    expect(response.status).toBe(200);
    return response.json;
  };
  const codesOf = (json: Record<string, any>) =>
    Object.values(json['booking/index'] as Record<string, { code: string }>)
      .map((row) => row.code)
      .sort();

  beforeAll(async () => {
    codes.checkOutOnFirstDay = await book(2, `start_date=${at(0)}&end_date=${at(2)}`);
    codes.overFirstDay = await book(2, `start_date=${at(1)}&end_date=${at(3)}`);
    codes.onFirstDay = await book(1, `date=${at(2)}`);
    codes.onLastDay = await book(1, `date=${at(5)}`);
    codes.after = await book(1, `date=${at(6)}`);
  });

  it('lists the bookings whose stay overlaps start_date to end_date, both ends included', async () => {
    const json = await list(`start_date=${at(2)}&end_date=${at(5)}`);
    expect(codesOf(json)).toEqual([codes.overFirstDay, codes.onFirstDay, codes.onLastDay].sort());
    expect(json.request).toMatchObject({ records: 3, total_records: 3, pages: 1 });
  });

  it('pages a window with limit and page, counted in total_records', async () => {
    const seen: string[] = [];
    let page = 1;
    let pages = 1;
    do {
      const json = await list(`start_date=${at(0)}&end_date=${at(6)}&limit=2&page=${page}`);
      expect(json.request.total_records).toBe(5);
      pages = json.request.pages;
      seen.push(...codesOf(json));
      page += 1;
    } while (page <= pages);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(Object.values(codes).sort());
  });

  it('accepts the dashed dates of sync clients and keeps the meaning of one date or a prefix', async () => {
    const dashed = (ymd: string) => `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6)}`;
    expect(codesOf(await list(`start_date=${dashed(at(5))}&end_date=${dashed(at(6))}`))).toEqual(
      [codes.onLastDay, codes.after].sort(),
    );
    expect(codesOf(await list(`start_date=${at(5)}`))).toEqual([codes.onLastDay]);
    expect(codesOf(await list(`start_date=>${at(4)}&end_date=${at(6)}`))).toEqual([codes.after]);
  });

  it('refuses a window that ends before it starts', async () => {
    const response = await invoke(handlers.bookings, {
      path: 'booking',
      query: `start_date=${at(5)}&end_date=${at(2)}`,
      headers: { authorization: staff },
    });
    expect(response.status).toBe(400);
    expect(response.json.request.error.data).toEqual({ end_date: 'is before start_date' });
  });
});

describe('unknown parameters', () => {
  it('are ignored on a rated item and reported as sent, and the SLIP still comes', async () => {
    const { status, json, headers } = await invoke(handlers.items, {
      path: 'item/1',
      query: `date=${day}&qty=1&partner_id=7&utm_source=mail&param[qty]=2&param[nonexistent]=1&param[adults]=2`,
    });
    expect(status).toBe(200);
    expect(json.item.rate.status).toBe('AVAILABLE');
    expect(json.item.rate.slip).toEqual(expect.any(String));
    // `param[adults]` is the tenant's, just not this item's: not applied and not reported.
    expect(json.request.ignored).toEqual(['qty', 'partner_id', 'utm_source', 'param[nonexistent]']);
    expect(headers['x-ignored-parameters']).toBe('qty,partner_id,utm_source,param[nonexistent]');
  });

  it('are ignored on a rated list, where one parameter set goes to every item', async () => {
    const { status, json } = await invoke(handlers.items, {
      path: 'item',
      query: `start_date=${day}&end_date=${addDays(day, 2)}&param[qty]=1&param[adults]=2&filter[color]=red`,
    });
    expect(status).toBe(200);
    expect(json.items['1'].rate.slip).toEqual(expect.any(String));
    expect(json.items['2'].rate.slip).toEqual(expect.any(String));
    expect(json.request.ignored).toEqual(['filter[color]']);
  });

  it('are reported to the request that sent them when requests run at once', async () => {
    // Each request's names are collected by its own input object: twenty requests in flight together,
    // each with a parameter of its own, each told of its own alone.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        invoke(handlers.items, {
          path: n % 2 ? 'item/1' : 'item',
          query: `start_date=${day}&end_date=${addDays(day, 2)}&param[adults]=2&only_${n}=1`,
        }),
      ),
    );
    answers.forEach(({ status, json }, n) => {
      expect(status).toBe(200);
      expect(json.request.ignored).toEqual([`only_${n}`]);
    });
  });

  it('are reported by a request refused for another parameter, param[...] included', async () => {
    const { status, json, headers } = await invoke(handlers.items, {
      path: 'item/1',
      query: `date=${day}&rules=bogus&param[nonexistent]=1&foo=1`,
    });
    expect(status).toBe(400);
    expect(json.request.ignored).toEqual(['foo', 'param[nonexistent]']);
    expect(headers['x-ignored-parameters']).toBe('foo,param[nonexistent]');
  });

  it('still leave known parameters validated', async () => {
    for (const [query, field] of [
      [`date=${day}&qty=1&param[qty]=-1`, 'param[qty]'],
      ['date=20271341&qty=1', 'date'],
      [`item_id=${Array.from({ length: 101 }, (_, index) => index + 1).join(',')}&x=1`, 'item_id'],
    ] as const) {
      const { status, json } = await invoke(handlers.items, { path: 'item', query });
      expect(status).toBe(400);
      expect(Object.keys(json.request.error.data)).toContain(field);
    }
  });

  it('are ignored on the cart and on create, form fields included', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${day}` })).json.item.rate.slip;
    const added = await invoke(handlers.session, {
      method: 'POST',
      path: 'booking/session',
      body: `slip[]=${slip}&tracking=abc`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(added.status).toBe(200);
    expect(added.json.request.ignored).toEqual(['tracking']);
    const created = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `session_id=${added.json.booking.session.id}&form[customer_name]=Ada&form[customer_email]=ada@example.com&form[pets]=2&affiliate=9`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(created.status).toBe(200);
    expect(created.json.request.ignored).toEqual(['affiliate', 'form[pets]']);
  });

  it('are reported as sent in the body and percent-encoded in the header when no header can carry them', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${day}` })).json.item.rate.slip;
    const created = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `slip[]=${slip}&form[customer_name]=Ada&form[customer_email]=ada@example.com&form[%D0%B8%D0%BC%D1%8F]=1&x%0D%0Ay=1`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(created.status).toBe(200);
    expect(created.json.request.ignored).toEqual(['x\r\ny', 'form[имя]']);
    expect(created.headers['x-ignored-parameters']).toBe('x%0D%0Ay,form[%D0%B8%D0%BC%D1%8F]');
  });

  it('are reported by a create refused for its form, and by its Idempotency-Key replay', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${day}` })).json.item.rate.slip;
    const create = (form: string, headers: Record<string, string> = {}) =>
      invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `slip[]=${slip}&form[customer_name]=Ada${form}&form[pets]=2&affiliate=9`,
        contentType: 'application/x-www-form-urlencoded',
        headers,
      });
    // No email: refused for its form, which is read after the unknown fields are noted.
    const refused = await create('');
    expect(refused.status).toBe(400);
    expect(refused.json.request.ignored).toEqual(['affiliate', 'form[pets]']);
    const key = { 'idempotency-key': `compat-${Date.now()}` };
    const first = await create('&form[customer_email]=ada@example.com', key);
    expect(first.status).toBe(200);
    const replay = await create('&form[customer_email]=ada@example.com', key);
    expect(replay.json.booking.code).toBe(first.json.booking.code);
    expect(replay.json.request.ignored).toEqual(['affiliate', 'form[pets]']);
  });

  it('are reported by a request for a malformed item id', async () => {
    for (const path of ['item/abc', 'item/abc/cal']) {
      const { status, json, headers } = await invoke(handlers.items, { path, query: 'foo=1' });
      expect(status).toBe(400);
      expect(json.request.error.data).toEqual({ item_id: 'a positive whole number' });
      expect(json.request.ignored).toEqual(['foo']);
      expect(headers['x-ignored-parameters']).toBe('foo');
    }
  });

  it('still count toward the size limits', async () => {
    const long = await invoke(handlers.items, { path: 'item', query: `nonsense=${'x'.repeat(4097)}` });
    expect(long.status).toBe(400);
    expect(long.json.request.error.data).toEqual({ nonsense: 'at most 4096 characters' });
    const many = Array.from({ length: 501 }, (_, index) => `k${index}=1`).join('&');
    expect((await invoke(handlers.items, { path: 'item', query: many })).status).toBe(400);
    const deep = await invoke(handlers.items, { path: 'item', query: 'a[b][c][d][e][f][g]=1' });
    expect(deep.status).toBe(400);
  });
});

describe('harmless deviations of clients', () => {
  it('addresses a cart line by its SLIP in alter', async () => {
    const slip = (await invoke(handlers.items, { path: 'item/1', query: `date=${addDays(day, 3)}` })).json
      .item.rate.slip;
    const added = await invoke(handlers.session, {
      method: 'POST',
      path: 'booking/session',
      body: `slip[]=${slip}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    const id = added.json.booking.session.id;
    const alter = (key: string, value: string) =>
      invoke(handlers.session, {
        method: 'POST',
        path: 'booking/session',
        body: `session_id=${id}&alter[${key}]=${value}`,
        contentType: 'application/x-www-form-urlencoded',
      });
    const grown = await alter(slip, '3');
    expect(grown.status).toBe(200);
    expect(grown.json.booking.session.item['1'].rate.qty).toBe(3);
    const unknown = await alter(`${slip.slice(0, -4)}AAAA`, '2');
    expect(unknown.status).toBe(400);
    expect(Object.values(unknown.json.request.error.data)).toEqual(['unknown line']);
    expect((await alter(slip, 'remove')).json.booking.session.item).toEqual({});
  });

  it('reads booleans, X-On-Behalf and authorization schemes in any letter case', async () => {
    const code = await book(1, `date=${addDays(day, 4)}`);
    const asStaff = (path: string, query: string, headers: Record<string, string> = {}) =>
      invoke(handlers.bookings, { path, query, headers: { authorization: staff, ...headers } });
    expect((await asStaff(`booking/${code}`, 'events=TRUE')).json.booking.events).toEqual(expect.any(Array));
    expect((await asStaff(`booking/${code}/bookmark`, 'mark=True')).json.booking.bookmarked).toBe(1);
    const checkedIn = await asStaff(`booking/${code}/checkin`, 'note=FALSE');
    expect(checkedIn.status).toBe(200);
    expect(checkedIn.json.booking.notes).toEqual([]);
    expect((await asStaff(`booking/${code}`, 'events=yes')).status).toBe(400);
    const packages = await invoke(handlers.items, { path: 'item', query: 'packages=FALSE' });
    expect(Object.keys(packages.json.items).sort()).toEqual(['1', '2']);
    const off = await invoke(handlers.bookings, {
      path: 'booking/form',
      headers: { authorization: staff, 'X-ON-BEHALF': 'Off' },
    });
    expect(off.json.booking_form_ui.customer_name.define.required).toBe(1);
  });
});
