import { describe, expect, it, vi } from 'vitest';
import { LEASE_MARGIN_MS, runOnceOrReplay } from '#lib/bookings/idempotency-store.ts';
import { addDays } from '#lib/kernel/dates.ts';
import {
  book,
  cart,
  client,
  create,
  day,
  db,
  encode,
  form,
  handlers,
  setUpBookingsWorld,
  staffCall,
  usedOf,
} from '#test/support/bookings-world.ts';
import { invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';

// booking/create and its form: sessions and SLIPs booked, refused, replayed by Idempotency-Key, and the links
// the booking hands out. The world: test/support/bookings-world.ts.

setUpBookingsWorld();

describe('booking/form', () => {
  it('shows customers their fields and staff theirs, with the keys clients skip', async () => {
    const customer = await invoke(handlers.bookings, { path: 'booking/form' });
    const ui = customer.json.booking_form_ui;
    expect(ui).toMatchObject({ msg: [], errors: 0, mode: 'html', _cnf: [] });
    expect(ui.customer_name).toMatchObject({
      value: '',
      define: { required: 1, layout: { lbl: 'Full name', type: 'text' } },
    });
    // The server's length limits travel with the form, so a client checks them before sending.
    expect(ui.customer_email.define).toMatchObject({ required: 1, mask: 'email', max_length: 500 });
    expect(ui.note.define.max_length).toBe(3000);
    expect(ui.customer_country.define.layout.options).toEqual({ CA: 'Canada', US: 'United States' });
    expect(ui.staff_notes).toBeUndefined();
    expect(customer.json.booking_policy.fields.customer_tos_agree.define.layout.type).toBe('checkbox');
    // Also where the API 3.0 service's sample puts it, inside the form.
    expect(ui.booking_policy).toEqual(customer.json.booking_policy);
    const desk = await staffCall('booking/form');
    expect(desk.json.booking_form_ui.staff_notes).toBeDefined();
    expect(desk.json.booking_form_ui.customer_email.define.required).toBe(0);
  });
});

describe('booking/create', () => {
  it('books a session in one step: the booking, its invoice URL, the session ended, the stock handed over', async () => {
    const sessionId = await cart({ qty: 2 });
    const before = sessionOf(await client.read(sessionId));
    const response = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: encode(form({ customer_country: 'CA', note: 'Late arrival' })),
      contentType: 'application/x-www-form-urlencoded',
      cookies: [`session_id=${sessionId}`],
      headers: { host: 'api.test' },
    });
    expect(response.status).toBe(200);
    const created = response.json.booking;
    expect(created).toMatchObject({
      booking_id: expect.any(Number),
      status_id: 'PEND',
      status: 'PEND',
      status_name: 'Pending',
      total: before.total,
      paid_total: '0.00',
      due: before.total,
    });
    // Whether the email already belonged to a customer is not told to customers.
    expect(created).not.toHaveProperty('customer_id');
    expect(created.id).toMatch(/^TEST-[A-Z2-9]{6}$/);
    expect(created.code).toBe(created.id);
    expect(created.invoice_url).toBe(
      `http://api.test/api/3.0/booking/${created.code}/invoice?token=${created.token}`,
    );
    expect(response.json.request).toMatchObject({ id: 'create', data: { url: created.invoice_url } });
    expect((await client.read(sessionId)).status).toBe(409);
    expect(await usedOf(1, day)).toBeGreaterThanOrEqual(2);

    const record = (await staffCall(`booking/${created.code}`)).json.booking;
    expect(record).toMatchObject({
      booking_id: created.booking_id,
      code: created.code,
      id: created.code,
      status_id: 'PEND',
      customer_name: 'Ada Lovelace',
      customer_email: 'ada@example.com',
      customer_country: 'CA',
      sub_total: before.sub_total,
      tax_total: before.tax_total,
      tax_inc_total: before.tax_inc_total,
      total: before.total,
      due: before.total,
      amount_due: before.total,
      checked_in: 0,
      checked_out: 0,
      bookmarked: 0,
      meta: { note: 'Late arrival' },
      token: created.token,
    });
    expect(record.items['1']).toMatchObject({
      item_id: 1,
      qty: 1,
      param: { qty: { qty: 2 } },
      status_id: 'PEND',
    });
    expect(typeof record.created_date).toBe('number');
    expect(typeof record.start_date).toBe('number');
    expect((await staffCall(`booking/${created.booking_id}`)).json.booking.code).toBe(created.code);
  });

  it('returns the same booking when a booked session is booked again', async () => {
    const { sessionId, created } = await book();
    const again = await create({ session_id: sessionId, ...form() });
    expect(again.status).toBe(200);
    expect(again.json.booking.booking_id).toBe(created.booking_id);
  });

  it('makes one booking of ten concurrent creates of one session', async () => {
    const sessionId = await cart();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => create({ session_id: sessionId, ...form() })),
    );
    const ids = new Set(
      responses
        .filter((response) => response.status === 200)
        .map((response) => response.json.booking.booking_id),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(ids.size).toBe(1);
    const listed = await staffCall('booking/index', { query: 'limit=250' });
    const fromSession = Object.values<any>(listed.json['booking/index']).filter((row) =>
      ids.has(row.booking_id),
    );
    expect(fromSession).toHaveLength(1);
  });

  it('books SLIPs directly, holding and booking them', async () => {
    const slip = await client.slip(1, `date=${addDays(day, 1)}`);
    const before = await usedOf(1, addDays(day, 1));
    const response = await create({ 'slip[]': slip, ...form() });
    expect(response.status).toBe(200);
    expect(await usedOf(1, addDays(day, 1))).toBe(before + 1);
  });

  it('adds SLIPs sent with a session to it before booking', async () => {
    const sessionId = await cart();
    const slip = await client.slip(1, `date=${addDays(day, 2)}`);
    const response = await create({ session_id: sessionId, 'slip[]': slip, ...form() });
    expect(response.status).toBe(200);
    const record = await staffCall(`booking/${response.json.booking.code}`);
    expect(Object.keys(record.json.booking.items)).toEqual(['1', '2']);
  });

  it('lists each missing field, refuses bad fields, an empty or an expired session', async () => {
    const sessionId = await cart();
    const missing = await create({ session_id: sessionId, 'form[customer_country]': 'CA' });
    expect(missing.status).toBe(400);
    expect(missing.json.request.error).toMatchObject({
      id: 'validation_error',
      title: 'Missing required fields',
      data: { customer_name: 'Full name', customer_email: 'Email' },
    });
    const bad = await create({
      session_id: sessionId,
      ...form({ customer_email: 'nope', customer_country: 'FR', staff_notes: 'x' }),
    });
    expect(bad.json.request.error.data).toEqual({
      'form[customer_email]': 'not an email address',
      'form[customer_country]': 'not one of the options',
    });
    const emptied = sessionOf(await client.clear(sessionId)).id;
    const empty = await create({ session_id: emptied, ...form() });
    expect(empty.status).toBe(409);
    expect(empty.json.request.error.id).toBe('session_empty');
    await client.end(emptied);
    const ended = await create({ session_id: emptied, ...form() });
    expect(ended.json.request.error.id).toBe('session_expired');
    expect((await create({ ...form() })).json.request.error.id).toBe('session_empty');
  });

  it('replays an Idempotency-Key for 24 h, refuses it for another request, and while in progress', async () => {
    const sessionId = await cart();
    const first = await create({ session_id: sessionId, ...form() }, { 'Idempotency-Key': 'key-1' });
    const replay = await create({ session_id: sessionId, ...form() }, { 'idempotency-key': 'key-1' });
    expect(replay.status).toBe(200);
    expect(replay.json.booking).toEqual(first.json.booking);
    const other = await create(
      { session_id: sessionId, ...form({ customer_name: 'Someone Else' }) },
      { 'Idempotency-Key': 'key-1' },
    );
    expect(other.status).toBe(422);
    expect(other.json.request.error.id).toBe('idempotency_mismatch');
    const busySession = await cart();
    const running = await holdKey({ scope: busySession, key: 'key-2', requestHash: 'running' });
    const refused = await create({ session_id: busySession, ...form() }, { 'Idempotency-Key': 'key-2' });
    expect(refused.status).toBe(422);
    expect(refused.json.request.error.id).toBe('idempotency_mismatch');
    running.finish();
    await client.end(busySession);
  });

  /** The route's hash of a create request, to claim its key as a running request would. */
  const requestHashOf = async (sessionId: string, fields: Record<string, string>) => {
    const { createHash } = await import('node:crypto');
    const body = Object.fromEntries(
      Object.entries(fields).map(([name, value]) => [name.slice(5, -1), value]),
    );
    return createHash('sha256')
      .update(JSON.stringify({ sessionId, slips: [], form: body, giftcert: undefined }))
      .digest('base64url');
  };

  /** Claims a key as a request that is still running (or crashed) would, until `finish` is called. */
  const holdKey = async (call: { scope: string; key: string; requestHash: string; remainingMs?: number }) => {
    let finish = () => {};
    const blocked = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started = () => {};
    const working = new Promise<void>((resolve) => {
      started = resolve;
    });
    const claimed = runOnceOrReplay(db, { remainingMs: 10_000, ...call }, async () => {
      started();
      await blocked;
      return 'done';
    }).catch(() => undefined);
    // The claim is written before the work is called: once it runs (or the claim failed), the key is taken.
    await Promise.race([working, claimed]);
    return { finish: () => finish(), claimed };
  };

  it('answers 409 in_progress while the same request is still running', async () => {
    const sessionId = await cart();
    const fields = form();
    const requestHash = await requestHashOf(sessionId, fields);
    const running = await holdKey({ scope: sessionId, key: 'key-3', requestHash });
    const response = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-3' });
    expect(response.status).toBe(409);
    expect(response.json.request.error.id).toBe('in_progress');
    running.finish();
    await client.end(sessionId);
  });

  it('lets a key left in progress by a crashed process be claimed again once its lease is over', async () => {
    const sessionId = await cart();
    const fields = form();
    const requestHash = await requestHashOf(sessionId, fields);
    // The lease is timed by the Idempotency utility on Date.now: the test moves that clock (and only that:
    // timers stay real) rather than waiting for it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      // The crashed process had 600 ms left: its claim lasts that and the lease margin, then lapses.
      await holdKey({ scope: sessionId, key: 'key-4', requestHash, remainingMs: 600 - LEASE_MARGIN_MS });
      vi.setSystemTime(Date.now() + 599);
      const early = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-4' });
      expect(early.status).toBe(409);
      vi.setSystemTime(Date.now() + 2);
      const later = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-4' });
      expect(later.status).toBe(200);
      expect(later.json.booking.token).toEqual(expect.any(String));
      const replay = await create({ session_id: sessionId, ...fields }, { 'Idempotency-Key': 'key-4' });
      expect(replay.json.booking).toEqual(later.json.booking);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the links a booking hands out', () => {
  const FORGED: Record<string, string>[] = [
    { 'x-forwarded-proto': 'javascript:alert(document.cookie)//', host: 'api.test' },
    { 'x-forwarded-proto': 'data:text/html,<script>alert(1)</script>//', host: 'x' },
    { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'attacker.example', host: 'attacker.example' },
    { host: 'attacker.example:443/phish#' },
  ];

  it.each(FORGED)('are built on the configured API URL, whatever a client forges (%o)', async (forged) => {
    const sessionId = await cart();
    const response = await create({ session_id: sessionId, ...form() }, forged);
    expect(response.status).toBe(200);
    const created = response.json.booking;
    const expected = `http://api.test/api/3.0/booking/${created.code}/invoice?token=${created.token}`;
    expect(created.invoice_url).toBe(expected);
    expect(created.customer_payment_url).toBe(expected);
    expect(created.manage_url).toBe(`http://api.test/manage?booking=${created.code}&token=${created.token}`);
    expect(response.json.request.data.url).toBe(expected);
    const invoice = await invoke(handlers.bookings, {
      path: `booking/${created.code}/invoice`,
      query: `token=${created.token}`,
      headers: forged,
    });
    expect(invoice.json.request.data.url).toBe(expected);
    const help = await invoke(handlers.meta, { path: 'help', headers: forged });
    expect(help.json.help.documentation).toBe('http://api.test/api/3.0/docs');
  });
});
