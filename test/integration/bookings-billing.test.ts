import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { addDays } from '#lib/kernel/dates.ts';
import { giftcertKey } from '#lib/kernel/storage/keys.ts';
import { encodeSlip, verifySlip } from '#lib/slip/codec.ts';
import {
  book,
  cart,
  client,
  create,
  day,
  db,
  form,
  handlers,
  setUpBookingsWorld,
  staffCall,
} from '#test/support/bookings-world.ts';
import { TEST_SLIP_KEY } from '#test/support/deps.ts';
import { invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';

// What a booking costs and how it is billed: gift certificates, amount discounts and the invoice.

setUpBookingsWorld();

describe('gift certificates', () => {
  const balance = async (code: string) =>
    Number(
      (
        await db.documents.send(
          new GetCommand({ TableName: db.tableName, Key: giftcertKey(code), ConsistentRead: true }),
        )
      ).Item?.balance,
    );

  it('spends a balance on create and restores it on VOID', async () => {
    const sessionId = await cart({ qty: 1 });
    const response = await create({ session_id: sessionId, giftcert_code: 'gift-100', ...form() });
    const created = response.json.booking;
    expect(created.paid_total).toBe(created.total);
    expect(created.due).toBe('0.00');
    expect(created.status_id).toBe('PAID');
    expect(await balance('GIFT-100')).toBe(10_000 - Math.round(Number(created.total) * 100));
    await staffCall(`booking/${created.code}/update`, { method: 'POST', query: 'status_id=VOID' });
    expect(await balance('GIFT-100')).toBe(10_000);
  });

  it('never lets two bookings spend one balance twice', async () => {
    const sessions = [await cart({ qty: 1 }), await cart({ qty: 1 })];
    const responses = await Promise.all(
      sessions.map((sessionId) => create({ session_id: sessionId, giftcert_code: 'GIFT-RACE', ...form() })),
    );
    const paid = responses
      .filter((r) => r.status === 200)
      .map((r) => Math.round(Number(r.json.booking.paid_total) * 100));
    expect(paid.reduce((sum, amount) => sum + amount, 0)).toBeLessThanOrEqual(6000);
    expect(await balance('GIFT-RACE')).toBe(6000 - paid.reduce((sum, amount) => sum + amount, 0));
    for (const sessionId of sessions) await client.end(sessionId).catch(() => undefined);
  });
});

describe('amount discounts', () => {
  const cents = (money: string) => Math.round(Number(money) * 100);
  const sum = (values: string[]) => values.reduce((total, value) => total + cents(value), 0);

  /** `count` distinct SLIPs of `qty` kayaks on one date with the amount code (a SLIP differs by its expiry). */
  const slips = async (options: { date: string; qty: number; count: number }) => {
    const slip = await client.slip(
      1,
      `date=${options.date}&param[qty]=${options.qty}&discount_code=PADDLE10`,
    );
    const payload = verifySlip(slip, { keys: [TEST_SLIP_KEY], tenant: 'test', now: Date.now() });
    return Array.from({ length: options.count }, (_, index) =>
      encodeSlip({ ...payload, expiresAt: payload.expiresAt - index }, TEST_SLIP_KEY),
    );
  };

  it('takes an amount once per cart: five lines of one kayak get what one line of five gets', async () => {
    const date = addDays(day, 40);
    const one = sessionOf(await client.add(await slips({ date, qty: 5, count: 1 })));
    const five = sessionOf(await client.add(await slips({ date, qty: 1, count: 5 })));
    expect(Object.keys(five.item)).toHaveLength(5);
    expect(one.discount).toBe('10.00');
    expect(five.discount).toBe(one.discount);
    expect(five.total).toBe(one.total);
    // Each line shows its share, and the shares add up to the cart's discount.
    const shares = Object.values(five.item).map(
      (line) => (line as { rate: { discount: string } }).rate.discount,
    );
    expect(shares).toEqual(['2.00', '2.00', '2.00', '2.00', '2.00']);

    for (const session of [one, five]) {
      const made = await create({ session_id: session.id, ...form() });
      expect(made.status).toBe(200);
      expect(made.json.booking.total).toBe(session.total);
      const record = (await staffCall(`booking/${made.json.booking.code}`)).json.booking;
      expect(record.discount).toBe('10.00');
      expect(sum(Object.values(record.items).map((line) => (line as { total: string }).total))).toBe(
        cents(record.total),
      );
      const invoice = (await staffCall(`booking/${made.json.booking.code}/invoice`)).json.booking.invoice;
      expect(invoice.discount).toBe('10.00');
      expect(sum(invoice.lines.map((line: { discount: string }) => line.discount))).toBe(1000);
      expect(sum(invoice.lines.map((line: { total: string }) => line.total))).toBe(
        cents(invoice.sub_total) - cents(invoice.discount),
      );
    }
  });

  it('spreads an amount over its lines in proportion, never more than a line, summing to the amount', async () => {
    const date = addDays(day, 41);
    const [big] = await slips({ date, qty: 2, count: 1 });
    const small = await slips({ date, qty: 1, count: 2 });
    const session = sessionOf(await client.add([big as string, ...small]));
    const shares = Object.values(session.item).map(
      (line) => (line as { rate: { discount: string } }).rate.discount,
    );
    // 10.00 over 80.00, 40.00 and 40.00: 5.00, 2.50 and 2.50.
    expect(shares).toEqual(['5.00', '2.50', '2.50']);
    expect(session.discount).toBe('10.00');
    await client.end(session.id);
  });
});

describe('invoice', () => {
  it('opens with the token (JSON or HTML) and escapes every value', async () => {
    const { created } = await book({ customer_name: '<script>alert(1)</script>' });
    const json = await invoke(handlers.bookings, {
      path: `booking/${created.code}/invoice`,
      query: `token=${created.token}`,
    });
    expect(json.status).toBe(200);
    const invoice = json.json.booking.invoice;
    expect(invoice).toMatchObject({ code: created.code, total: created.total, due: created.due });
    expect(invoice.taxes.map((tax: { tax_id: string }) => tax.tax_id)).toEqual(['hst', 'city']);
    expect(invoice.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(invoice.html).not.toContain('<script>');
    const { makeEvent, testContext } = await import('#test/support/events.ts');
    const html = await handlers.bookings(
      makeEvent({
        path: `booking/${created.code}/invoice`,
        query: `token=${created.token}`,
        headers: { accept: 'text/html' },
      }),
      testContext(),
    );
    expect(html.headers?.['content-type']).toContain('text/html');
    expect(html.body).toContain('&#60;script&#62;');
    expect(
      (await invoke(handlers.bookings, { path: `booking/${created.code}/invoice`, query: 'token=wrong' }))
        .status,
    ).toBe(401);
  });
});

describe("the guest's manage link (issue 44)", () => {
  it('comes with the invoice link in the create, and the invoice page links to it', async () => {
    const { created } = await book();
    const link = new URL(created.manage_url);
    expect(new URL(created.invoice_url).pathname.startsWith('/api/3.0/')).toBe(true);
    expect(link.origin).toBe(new URL(created.invoice_url).origin);
    expect(link.pathname).toBe('/manage');
    expect(Object.fromEntries(link.searchParams)).toEqual({ booking: created.code, token: created.token });
    const { invoice } = (
      await invoke(handlers.bookings, {
        path: `booking/${created.code}/invoice`,
        query: `token=${created.token}`,
      })
    ).json.booking;
    expect(invoice.html).toContain(
      `<a href="${created.manage_url.replaceAll('&', '&#38;')}">Manage your booking</a>`,
    );
  });
});

describe('the invoice page', () => {
  const directives = (header: string | undefined) =>
    Object.fromEntries(
      (header ?? '')
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .filter((words) => words[0])
        .map(([name, ...values]) => [name, values.join(' ')]),
    );

  it('is sent with a strict Content-Security-Policy and nosniff: no script, frame, base, form or fetch', async () => {
    const { created } = await book({ customer_name: '<img src=x onerror=alert(1)>' });
    const page = await invoke(handlers.bookings, {
      path: `booking/${created.code}/invoice`,
      query: `token=${created.token}`,
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = directives(page.headers['content-security-policy']);
    expect(csp).toMatchObject({
      'default-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    // Nothing loosens default-src for scripts, and whatever style is allowed is no script.
    expect(csp['script-src']).toBeUndefined();
    expect(Object.values(csp).join(' ')).not.toMatch(/unsafe-eval|\*|data:|https?:/);
  });

  it('is not the only answer with nosniff: JSON answers, errors and 401s carry it too', async () => {
    const { created } = await book();
    const answers = [
      await invoke(handlers.bookings, {
        path: `booking/${created.code}/invoice`,
        query: `token=${created.token}`,
      }),
      await invoke(handlers.bookings, { path: `booking/${created.code}/invoice`, query: 'token=wrong' }),
      await invoke(handlers.bookings, { path: 'booking/form' }),
      await invoke(handlers.bookings, { method: 'POST', path: 'booking/create', body: 'form[x]=1' }),
      await invoke(handlers.meta, { path: 'ping' }),
      await invoke(handlers.meta, { path: 'nothing/here' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 200, 400, 200, 404]);
    for (const answer of answers) expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});
