import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '#lib/config/limits.ts';
import { book, handlers, setUpBookingsWorld, staffCall } from '#test/support/bookings-world.ts';
import { freshAddress, invoke } from '#test/support/events.ts';

// Issue 44, item 2: the booking's token opens the guest's own view of it (GET booking/{id}/manage): the
// booking, its lines, dates and payments, nothing staff keep to themselves; a wrong or old token answers as
// an unknown booking does and costs one of the address's hourly guesses; staff can give a booking a new
// token, and the old links stop working.

setUpBookingsWorld();

const manage = (code: string, token: string | undefined, sourceIp = freshAddress()) =>
  invoke(handlers.bookings, {
    path: `booking/${code}/manage`,
    ...(token === undefined ? {} : { query: `token=${encodeURIComponent(token)}` }),
    sourceIp,
  });

/** A wrong token of the right length and alphabet: only its last character differs. */
const wrong = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;

describe('GET booking/{id}/manage', () => {
  it('shows the guest their booking with the token, and nothing staff keep to themselves', async () => {
    const { created } = await book({ note: 'Late arrival' });
    const noted = await staffCall(`booking/${created.code}/note`, {
      method: 'POST',
      query: 'body=VIP%20guest%2C%20upsell%20the%20sauna',
    });
    expect(noted.status).toBe(200);

    const answer = await manage(created.code, created.token);
    expect(answer.status, JSON.stringify(answer.json.request)).toBe(200);
    const booking = answer.json.booking;
    expect(booking).toMatchObject({
      code: created.code,
      status_id: created.status_id,
      customer_name: 'Ada Lovelace',
      total: created.total,
      paid_total: created.paid_total,
    });
    expect(Object.values(booking.items)).toEqual([
      expect.objectContaining({ item_id: 1, qty: 1, name: expect.any(String), total: created.total }),
    ]);
    expect(booking.invoice_url).toContain(`token=${encodeURIComponent(created.token)}`);
    const text = JSON.stringify(answer.json);
    expect(text).not.toContain('upsell');
    for (const staffOnly of ['notes', 'events', 'customer_id', 'partner_id', 'form', 'token', 'transactions'])
      expect(booking, staffOnly).not.toHaveProperty(staffOnly);
  });

  it("gives each line's unit and party as booked, with the tenant's labels (what a change of party edits)", async () => {
    const { created } = await book({}, { qty: 3 });
    const answer = await manage(created.code, created.token);
    expect(Object.values(answer.json.booking.items)).toEqual([
      expect.objectContaining({ unit: 'D', param: { qty: { qty: 3, lbl: 'Quantity' } } }),
    ]);
  });

  it('finds the booking by its numeric id too, with the same token', async () => {
    const { created } = await book();
    const answer = await manage(String(created.booking_id), created.token);
    expect(answer.status).toBe(200);
    expect(answer.json.booking.code).toBe(created.code);
  });

  it('answers a wrong token exactly as an unknown booking', async () => {
    const { created } = await book();
    const wrongToken = await manage(created.code, wrong(created.token));
    const unknown = await manage('TEST-NOSUCH', created.token);
    expect(wrongToken.status).toBe(404);
    expect(unknown.status).toBe(404);
    // The same envelope, word for word but for the code asked about and the time it took.
    const shape = (json: any, code: string) =>
      JSON.stringify({ ...json, request: { ...json.request, time: 0 } }).replaceAll(code, '<code>');
    expect(shape(wrongToken.json, created.code)).toBe(shape(unknown.json, 'TEST-NOSUCH'));
    expect(wrongToken.json.booking).toBeUndefined();
  });

  it('asks for the token (or staff credentials) as the invoice does', async () => {
    const { created } = await book();
    const answer = await manage(created.code, undefined);
    expect(answer.status).toBe(401);
    expect(answer.json.error).toBe('unauthorized');
    expect(answer.json.booking).toBeUndefined();
  });
});

describe('guessing tokens', () => {
  const budget = DEFAULT_LIMITS.token_attempts_per_hour;

  it('lets an address guess wrong a budgeted number of times an hour; then even the right token is 429', async () => {
    const { created } = await book();
    const address = freshAddress();
    // Right tokens cost nothing: more of them than the budget all answer.
    for (let call = 0; call <= budget; call += 1)
      expect((await manage(created.code, created.token, address)).status).toBe(200);
    for (let guess = 0; guess < budget; guess += 1)
      expect((await manage(created.code, wrong(created.token), address)).status).toBe(404);
    const spent = await manage(created.code, created.token, address);
    expect(spent.status).toBe(429);
    expect(spent.json.request.error.id).toBe('rate_limited');
    expect(Number(spent.headers['retry-after'])).toBeGreaterThan(0);
    expect(spent.json.booking).toBeUndefined();
    // Another address is not touched.
    expect((await manage(created.code, created.token)).status).toBe(200);
  });

  it("counts the invoice's wrong tokens in the same budget (adversarial pass: the invoice let anyone guess freely)", async () => {
    const { created } = await book();
    const address = freshAddress();
    const invoice = (token: string) =>
      invoke(handlers.bookings, {
        path: `booking/${created.code}/invoice`,
        query: `token=${encodeURIComponent(token)}`,
        sourceIp: address,
      });
    for (let guess = 0; guess < budget; guess += 1)
      expect((await invoice(wrong(created.token))).status).toBe(401);
    expect((await invoice(created.token)).status).toBe(429);
    expect((await manage(created.code, created.token, address)).status).toBe(429);
  });

  it('cannot overdraw the budget with guesses sent at once', async () => {
    const { created } = await book();
    const address = freshAddress();
    const answers = await Promise.all(
      Array.from({ length: budget + 10 }, () => manage(created.code, wrong(created.token), address)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 404)).toHaveLength(budget);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
  });
});

describe('POST booking/{id}/token', () => {
  it('gives the booking a new token: the old invoice and manage links stop working, the new ones work', async () => {
    const { created } = await book();
    const rotated = await staffCall(`booking/${created.code}/token`, { method: 'POST' });
    expect(rotated.status, JSON.stringify(rotated.json.request)).toBe(200);
    const token = rotated.json.booking.token as string;
    expect(token).not.toBe(created.token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(rotated.json.booking.invoice_url).toContain(`token=${token}`);

    expect((await manage(created.code, created.token)).status).toBe(404);
    expect((await manage(created.code, token)).status).toBe(200);
    const invoice = (query: string) =>
      invoke(handlers.bookings, { path: `booking/${created.code}/invoice`, query });
    expect((await invoice(`token=${created.token}`)).status).toBe(401);
    expect((await invoice(`token=${token}`)).status).toBe(200);

    // The history says the token changed, never what to.
    const record = await staffCall(`booking/${created.code}`, { query: 'events=1' });
    const rotation = record.json.booking.events.filter(
      (event: any) => event.type === 'booking.token_rotated',
    );
    expect(rotation).toHaveLength(1);
    expect(JSON.stringify(rotation)).not.toContain(token);
  });

  it('is staff only', async () => {
    const { created } = await book();
    const answer = await invoke(handlers.bookings, { method: 'POST', path: `booking/${created.code}/token` });
    expect(answer.status).toBe(401);
    expect((await manage(created.code, created.token)).status).toBe(200);
  });
});
