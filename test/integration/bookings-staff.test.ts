import { describe, expect, it } from 'vitest';
import { resolveGroup } from '#infra/local/gateway.ts';
import { addDays } from '#lib/kernel/dates.ts';
import {
  admin,
  book,
  cart,
  create,
  day,
  form,
  handlers,
  setUpBookingsWorld,
  staff,
  staffCall,
  usedOf,
} from '#test/support/bookings-world.ts';
import { invoke, type TestResponse } from '#test/support/events.ts';

// What staff do with bookings: the customer records they read, status changes, check-in and notes, lists.

const STATUSES = ['PEND', 'HOLD', 'PART', 'PAID', 'WAIT', 'STOP', 'VOID', 'CANCELLED'];
setUpBookingsWorld();

describe('booking/create', () => {
  it('matches customers by email and takes no details from a public booking', async () => {
    const first = await book({ customer_email: 'Grace@Example.com', customer_name: 'Grace Hopper' });
    const second = await book({ customer_email: 'grace@example.com', customer_name: 'G. H.' });
    const customerOf = async (code: string) =>
      (await staffCall(`booking/${code}`)).json.booking.customer_id as number;
    const customerId = await customerOf(first.created.code);
    expect(await customerOf(second.created.code)).toBe(customerId);
    const customer = await staffCall(`customer/${customerId}`);
    // Whoever typed an email into the public form may not be its owner: only the email is the customer's.
    expect(customer.json.customer).toMatchObject({
      customer_name: '',
      customer_email: 'grace@example.com',
      details_from: '',
    });
    expect(Object.keys(customer.json.customer.bookings).sort()).toEqual(
      [first.created.code, second.created.code].sort(),
    );
    expect((await staffCall(`booking/${second.created.code}`)).json.booking.customer_name).toBe('G. H.');
    const found = await staffCall('customer', { query: 'customer_email=GRACE@example.com' });
    expect(Object.keys(found.json.customers)).toEqual([String(customerId)]);
    expect((await staffCall('customer/C-999999')).status).toBe(404);
  });

  it('takes a customer’s details from the newest booking staff entered, never from a stranger’s public one', async () => {
    // A stranger books first with the guest's email, planting a name and a country on the future record.
    const planted = await book({
      customer_email: 'victor@example.com',
      customer_name: 'Mallory',
      customer_country: 'US',
    });
    const sessionId = await cart();
    const byStaff = await create(
      {
        session_id: sessionId,
        ...form({
          customer_email: 'victor@example.com',
          customer_name: 'Victor Vance',
          customer_country: 'CA',
        }),
      },
      { authorization: staff },
    );
    expect(byStaff.status).toBe(200);
    const later = await book({
      customer_email: 'victor@example.com',
      customer_name: 'Mallory again',
      customer_country: 'US',
    });
    const customerId = byStaff.json.booking.customer_id;
    const customer = (await staffCall(`customer/${customerId}`)).json.customer;
    expect(customer).toMatchObject({
      customer_name: 'Victor Vance',
      customer_country: 'CA',
      customer_email: 'victor@example.com',
      details_from: byStaff.json.booking.code,
    });
    expect(Object.keys(customer.bookings).sort()).toEqual(
      [planted.created.code, byStaff.json.booking.code, later.created.code].sort(),
    );
    const found = (await staffCall('customer', { query: 'customer_email=victor@example.com' })).json
      .customers;
    expect(found[String(customerId)]).toMatchObject({
      customer_name: 'Victor Vance',
      customer_country: 'CA',
    });
    // Each booking shows what was entered on it: the record, the list row and the invoice.
    for (const [code, name, country] of [
      [planted.created.code, 'Mallory', 'US'],
      [byStaff.json.booking.code, 'Victor Vance', 'CA'],
      [later.created.code, 'Mallory again', 'US'],
    ]) {
      const record = (await staffCall(`booking/${code}`)).json.booking;
      expect(record).toMatchObject({
        customer_name: name,
        customer_country: country,
        customer_id: customerId,
      });
      const invoice = (await staffCall(`booking/${code}/invoice`)).json.booking.invoice;
      expect(invoice.customer).toMatchObject({ customer_name: name, customer_country: country });
    }
    const rows = (await staffCall('booking/index', { query: `customer_id=${customerId}` })).json[
      'booking/index'
    ];
    expect(
      Object.values(rows)
        .map((row: any) => [row.code, row.customer_name])
        .sort(),
    ).toEqual(
      [
        [planted.created.code, 'Mallory'],
        [byStaff.json.booking.code, 'Victor Vance'],
        [later.created.code, 'Mallory again'],
      ].sort(),
    );
  });
});

describe('status changes', () => {
  const update = (code: string, query: string) =>
    staffCall(`booking/${code}/update`, { method: 'POST', query });

  it('walks every pair of statuses, releasing and taking stock as it leaves or enters VOID and CANCELLED', async () => {
    const date = addDays(day, 3);
    const { created } = await book({}, { date, qty: 2 });
    const held = await usedOf(1, date);
    const inactive = (status: string) => status === 'VOID' || status === 'CANCELLED';
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        expect((await update(created.code, `status_id=${from}`)).status).toBe(200);
        const response = await update(created.code, `status_id=${to}&notify=0`);
        expect(response.status, `${from} -> ${to}`).toBe(200);
        expect(response.json.booking.status_id).toBe(to);
        expect(await usedOf(1, date), `${from} -> ${to}`).toBe(inactive(to) ? held - 2 : held);
      }
    }
  });

  it('fails to revive a voided booking whose stock was sold meanwhile', async () => {
    const date = addDays(day, 4);
    const { created } = await book({}, { itemId: 2, date });
    expect((await update(created.code, 'status_id=VOID')).status).toBe(200);
    const other = await book({}, { itemId: 2, date });
    const revive = await update(created.code, 'status_id=PEND');
    expect(revive.status).toBe(409);
    expect(revive.json.request.error).toMatchObject({ id: 'unavailable', data: { item_id: 2, date } });
    expect((await staffCall(`booking/${created.code}`)).json.booking.status_id).toBe('VOID');
    expect(other.created.status_id).toBe('PEND');
  });

  it('records one payment of exactly what is due with set_paid, then nothing is due', async () => {
    const { created } = await book();
    const paid = await update(created.code, 'status_id=PAID&set_paid=1');
    expect(paid.status).toBe(200);
    expect(paid.json.booking).toMatchObject({ status_id: 'PAID', due: '0.00', paid_total: created.total });
    expect(paid.json.booking.transactions).toEqual([
      expect.objectContaining({ amount: created.total, method: 'pos', account_id: 1 }),
    ]);
    const again = await update(created.code, 'status_id=PAID&set_paid=1');
    expect(again.status).toBe(409);
    expect(again.json.request.error.id).toBe('nothing_due');
  });

  it.each([
    ['set_paid with another status', 'status_id=HOLD&set_paid=1', 'set_paid'],
    ['set_paid with notify', 'status_id=PAID&set_paid=1&notify=1', 'set_paid'],
    ['an unknown status', 'status_id=NOPE', 'status_id'],
    ['no status', 'notify=1', 'status_id'],
  ])('refuses %s with 400', async (_name, query, field) => {
    const { created } = await book();
    const response = await update(created.code, query);
    expect(response.status).toBe(400);
    expect(Object.keys(response.json.request.error.data)).toEqual([field]);
  });
});

describe('check-in, check-out, notes and bookmarks', () => {
  it('checks in and out once each, with a note under the acting account unless note=0', async () => {
    const { created } = await book();
    const checkedIn = await staffCall(`booking/${created.code}/checkin`);
    expect(checkedIn.status).toBe(200);
    expect(checkedIn.json.booking.checked_in).toBeGreaterThan(0);
    expect(checkedIn.json.booking.notes).toEqual([
      expect.objectContaining({ body: 'Checked in', account_id: 1, booking_id: created.booking_id }),
    ]);
    expect(
      (await staffCall(`booking/${created.code}/checkin`, { method: 'POST' })).json.request.error.id,
    ).toBe('invalid_status');
    const out = await staffCall(`booking/${created.code}/checkout`, { method: 'POST', query: 'note=0' });
    expect(out.json.booking.notes).toHaveLength(1);
    expect((await staffCall(`booking/${created.code}/checkout`)).status).toBe(409);
  });

  it('refuses to check in a VOID or CANCELLED booking', async () => {
    for (const status of ['VOID', 'CANCELLED']) {
      const { created } = await book();
      await staffCall(`booking/${created.code}/update`, { method: 'POST', query: `status_id=${status}` });
      const response = await staffCall(`booking/${created.code}/checkin`);
      expect(response.status).toBe(409);
      expect(response.json.request.error.id).toBe('invalid_status');
    }
  });

  it('takes notes of 1 to 3000 characters after trimming, authored by the acting account', async () => {
    const { created } = await book();
    const long = await staffCall(`booking/${created.code}/note`, {
      method: 'POST',
      query: `body=${'x'.repeat(3000)}`,
    });
    expect(long.status).toBe(200);
    const tooLong = await staffCall(`booking/${created.code}/note`, {
      method: 'POST',
      query: `body=${'x'.repeat(3001)}`,
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.request.error.data).toEqual({ body: '1 to 3000 characters' });
    expect(
      (await staffCall(`booking/${created.code}/note`, { method: 'POST', query: 'body=%20%20' })).status,
    ).toBe(400);
    const byBo = await invoke(handlers.bookings, {
      method: 'POST',
      path: `booking/${created.code}/note`,
      query: 'body=From%20Bo',
      headers: { authorization: admin, 'x-on-behalf': '2' },
    });
    expect(byBo.json.booking.notes.at(-1)).toMatchObject({ body: 'From Bo', account_id: 2 });
  });

  it('bookmarks per acting account', async () => {
    const { created } = await book();
    const marked = await staffCall(`booking/${created.code}/bookmark`, { method: 'POST', query: 'mark=1' });
    expect(marked.json.booking.bookmarked).toBe(1);
    const asBo = await invoke(handlers.bookings, {
      path: `booking/${created.code}`,
      headers: { authorization: admin, 'x-on-behalf': '2' },
    });
    expect(asBo.json.booking.bookmarked).toBe(0);
    expect(
      (await staffCall(`booking/${created.code}/bookmark`, { query: 'mark=0' })).json.booking.bookmarked,
    ).toBe(0);
  });

  it('keeps every change as an event of the audit trail', async () => {
    const { created } = await book();
    await staffCall(`booking/${created.code}/checkin`);
    await staffCall(`booking/${created.code}/update`, { method: 'POST', query: 'status_id=HOLD&notify=0' });
    await staffCall(`booking/${created.code}/note`, { method: 'POST', query: 'body=hello' });
    const record = await staffCall(`booking/${created.code}`, { query: 'events=1' });
    expect(record.json.booking.events.map((event: { type: string }) => event.type)).toEqual([
      'booking.created',
      'booking.checked_in',
      'booking.status_changed',
      'booking.note_added',
    ]);
    expect(record.json.booking.events[2].data).toMatchObject({ from: 'PEND', to: 'HOLD', notify: false });
    expect((await staffCall(`booking/${created.code}`)).json.booking.events).toBeUndefined();
  });
});

describe('lists and access', () => {
  it('answers 401 without credentials on every staff route, whether or not the id exists', async () => {
    const { created } = await book();
    for (const path of [
      'booking',
      'booking/index',
      `booking/${created.code}`,
      'booking/TEST-ZZZZZZ',
      `booking/${created.code}/checkin`,
      'customer/1',
      'customer',
    ]) {
      expect(
        (await invoke(handlers[resolveGroup('GET', `/api/3.0/${path}`).group], { path })).status,
        path,
      ).toBe(401);
    }
  });

  it('lists under "booking/index" with filters and paging', async () => {
    const marker = `list-${Date.now()}@example.com`;
    const made: TestResponse['json'][] = [];
    for (let index = 0; index < 3; index += 1) made.push((await book({ customer_email: marker })).created);
    const byEmail = await staffCall('booking/index', { query: `customer_email=${marker}&limit=2` });
    expect(byEmail.json.request).toMatchObject({ records: 2, limit: 2, page: 1, pages: 2, total_records: 3 });
    const rows = Object.values<any>(byEmail.json['booking/index']);
    expect(rows[0]).toMatchObject({
      customer_email: marker,
      status_id: 'PEND',
      status_name: 'Pending',
      token: expect.any(String),
    });
    const second = await staffCall('booking', { query: `customer_email=${marker}&limit=2&page=2` });
    expect(second.json.request.records).toBe(1);
    await staffCall(`booking/${made[0]?.code}/update`, { method: 'POST', query: 'status_id=HOLD' });
    const held = await staffCall('booking/index', { query: 'status_id=HOLD&limit=250' });
    expect(Object.values<any>(held.json['booking/index']).map((row) => row.code)).toContain(made[0]?.code);
    expect(
      Object.keys((await staffCall('booking/index', { query: 'status_id=NOPE' })).json['booking/index']),
    ).toEqual([]);
    const recent = await staffCall('booking/index', {
      query: `created_date=>${Math.floor(Date.now() / 1000) - 3600}&limit=250`,
    });
    expect(recent.json.request.total_records).toBeGreaterThanOrEqual(3);
    const future = await staffCall('booking/index', { query: `created_date=>${addDays(day, 400)}` });
    expect(future.json.request.total_records).toBe(0);
    const onDay = await staffCall('booking/index', { query: `customer_email=${marker}&start_date=${day}` });
    expect(onDay.json.request.total_records).toBe(3);
    const before = await staffCall('booking/index', { query: `customer_email=${marker}&start_date=<${day}` });
    expect(before.json.request.total_records).toBe(0);
    const ending = await staffCall('booking/index', {
      query: `customer_email=${marker}&end_date=>${addDays(day, -1)}`,
    });
    expect(ending.json.request.total_records).toBe(3);
    const byItem = await staffCall('booking/index', { query: 'item_id=2&limit=250' });
    expect(
      Object.values<any>(byItem.json['booking/index']).every((row) => row.summary.includes('Solo')),
    ).toBe(true);
    expect((await staffCall('booking/index', { query: 'limit=251' })).status).toBe(400);
    expect((await staffCall('booking/index', { query: 'created_date=yesterdayish' })).status).toBe(400);
  });
});
