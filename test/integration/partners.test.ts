import { beforeAll, describe, expect, it } from 'vitest';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { invoke } from '#test/support/events.ts';
import {
  book,
  cartOf,
  db,
  freshDay,
  get,
  handlers,
  inn,
  KAYAK,
  SLIP,
  sessionIdOf,
  setUpPartnerAttacksWorld,
  staff,
  tenantJson,
  tours,
  toursDesk,
} from '#test/support/partner-attacks-world.ts';
import { makeTenant } from '#test/support/tenant.ts';

// Attacks from an adversarial review: a partner (an agent's credential) reaching what is not its own,
// customer details entered by others, every staff account, and staff privileges over stock and rules.
// The world: test/support/partner-attacks-world.ts.

setUpPartnerAttacksWorld();

describe('customer details a partner sees', () => {
  const guest = {
    customer_name: 'Grace Guest',
    customer_email: 'grace@example.com',
    customer_phone: '+1 555 0100',
    customer_address: '1 Lake Road',
  };
  const codes: Record<string, string> = {};

  beforeAll(async () => {
    codes.guest = await book(guest);
    codes.tours = await book({ customer_name: 'Tours Client', customer_email: 'GRACE@example.com' }, tours);
  });

  it('shows a customer found by email with the details of the partner’s own booking, never the guest’s', async () => {
    const found = await get('customer', tours, 'customer_email=grace@example.com');
    const customers = Object.values(found.json.customers) as Record<string, unknown>[];
    expect(customers).toHaveLength(1);
    expect(customers[0]).toMatchObject({
      customer_name: 'Tours Client',
      customer_email: 'grace@example.com',
      customer_phone: '',
      customer_address: '',
    });
    expect(Object.keys(customers[0]?.bookings as object)).toEqual([codes.tours]);
    expect(JSON.stringify(found.json)).not.toMatch(/Grace Guest|555 0100|Lake Road/);
    // Staff see the details a credential entered (the partner's), not the guest's public ones.
    const byStaff = await get('customer', staff, 'customer_email=grace@example.com');
    expect(Object.values(byStaff.json.customers)[0]).toMatchObject({
      customer_name: 'Tours Client',
      details_from: codes.tours,
    });
  });

  it('shows a customer by id with the partner’s own booking’s details only', async () => {
    const record = await get(`booking/${codes.tours}`, tours);
    const customerId = record.json.booking.customer_id;
    const customer = await get(`customer/${customerId}`, tours);
    expect(customer.status).toBe(200);
    expect(customer.json.customer).toMatchObject({ customer_name: 'Tours Client', customer_phone: '' });
    expect(JSON.stringify(customer.json)).not.toMatch(/Grace Guest|555 0100|Lake Road/);
  });

  it('shows the partner’s record, row and invoice with what its booking entered', async () => {
    const record = (await get(`booking/${codes.tours}`, tours)).json;
    const rows = (await get('booking/index', tours)).json;
    const invoice = (await get(`booking/${codes.tours}/invoice`, tours)).json;
    for (const json of [record, rows, invoice]) {
      expect(JSON.stringify(json)).not.toMatch(/Grace Guest|555 0100|Lake Road/);
    }
    expect(record.booking).toMatchObject({ customer_name: 'Tours Client', customer_phone: '' });
    expect(invoice.booking.invoice.customer.customer_name).toBe('Tours Client');
  });
});

describe('GET account for a partner', () => {
  it('lists only the partner’s own account', async () => {
    const own = await get('account', tours);
    expect(own.status).toBe(200);
    expect(own.json.account.map((account: { account_id: number }) => account.account_id)).toEqual([2]);
    expect(own.json.request.records).toBe(1);
    expect(JSON.stringify(own.json)).not.toMatch(/ada@test|555 0001|inn\.example/);
    const all = await get('account', staff);
    expect(all.json.account.map((account: { account_id: number }) => account.account_id)).toEqual([1, 2, 3]);
  });
});

describe('staff privileges a partner is not granted', () => {
  it('refuses rules=soft and rules=off to a partner, as to customers', async () => {
    for (const rules of ['soft', 'off']) {
      const refused = await cartOf(tours).rate(KAYAK, `date=${freshDay()}&rules=${rules}`);
      expect(refused.status).toBe(400);
      expect(refused.json.request.error).toMatchObject({
        id: 'validation_error',
        data: { rules: expect.any(String) },
      });
    }
    expect((await cartOf(staff).rate(KAYAK, `date=${freshDay()}&rules=soft`)).status).toBe(200);
  });

  it('neither lists nor rates a staff-only item for a partner', async () => {
    const listed = await invoke(handlers.items, { path: 'item', headers: { authorization: tours } });
    expect(Object.keys(listed.json.items)).toEqual([String(KAYAK)]);
    expect((await cartOf(tours).rate(SLIP, `date=${freshDay()}`)).status).toBe(404);
    const staffList = await invoke(handlers.items, { path: 'item', headers: { authorization: staff } });
    expect(Object.keys(staffList.json.items)).toEqual([String(KAYAK), String(SLIP)]);
  });

  it('refuses a partner staff SLIPs (a staff-only item, or rated with rules=soft) as invalid_slip staff_only', async () => {
    const staffOnly = await cartOf(staff).slip(SLIP, `date=${freshDay()}`);
    const soft = await cartOf(staff).slip(KAYAK, `date=${freshDay()}&rules=soft`);
    for (const slip of [staffOnly, soft]) {
      const refused = await cartOf(tours).add([slip]);
      expect(refused.status).toBe(400);
      expect(refused.json.request.error).toMatchObject({
        id: 'invalid_slip',
        data: { reason: 'staff_only' },
      });
      const booked = await invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `slip[]=${slip}&form[customer_name]=Agent&form[customer_email]=agent@example.com`,
        contentType: 'application/x-www-form-urlencoded',
        headers: { authorization: tours },
      });
      expect(booked.status).toBe(400);
      expect(booked.json.request.error.data.reason).toBe('staff_only');
    }
  });
});

describe('hold budgets of a partner credential', () => {
  it('holds a partner credential to its share of an item-date across its carts, from any address', async () => {
    const day = freshDay();
    const first = await cartOf(tours, '203.0.113.10').add([
      await cartOf(tours).slip(KAYAK, `date=${day}&param[qty]=5`),
    ]);
    expect(first.status).toBe(200);
    const over = await cartOf(tours, '203.0.113.11').add([await cartOf(tours).slip(KAYAK, `date=${day}`)]);
    expect(over.status).toBe(409);
    expect(over.json.request.error).toMatchObject({
      id: 'hold_limit',
      data: { item_id: KAYAK, date: day, allowed: 5 },
    });
    // The budget is the credential's: another credential of the same partner has its own.
    const desk = await cartOf(toursDesk).add([await cartOf(toursDesk).slip(KAYAK, `date=${day}`)]);
    expect(desk.status).toBe(200);
    // Booking hands the holds to the booking, and the budget is free again.
    expect((await cartOf(tours).book(sessionIdOf(first))).status).toBe(200);
    const again = await cartOf(tours).add([await cartOf(tours).slip(KAYAK, `date=${day}`)]);
    expect(again.status).toBe(200);
    await cartOf(tours).end(sessionIdOf(again));
    await cartOf(toursDesk).end(sessionIdOf(desk));
  });

  it('limits the holding carts of a partner credential', async () => {
    // Dates no stay spans with those the credential let go of above (a kayak's stays reach 47 days), which
    // it may not hold again in another cart during their cooldown.
    const far = addDays(freshDay(), 3 * 47);
    const carts: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const added = await cartOf(tours).add([await cartOf(tours).slip(KAYAK, `date=${addDays(far, index)}`)]);
      expect(added.status).toBe(200);
      carts.push(sessionIdOf(added));
    }
    const fourth = await cartOf(tours).add([await cartOf(tours).slip(KAYAK, `date=${addDays(far, 3)}`)]);
    expect(fourth.status).toBe(409);
    expect(fourth.json.request.error).toMatchObject({ id: 'hold_limit', data: { open_sessions: 3 } });
    for (const id of carts) expect((await cartOf(tours).end(id)).status).toBe(200);
  });

  it('keeps staff exempt', async () => {
    const day = freshDay();
    const added = await cartOf(staff).add([await cartOf(staff).slip(KAYAK, `date=${day}&param[qty]=8`)]);
    expect(added.status).toBe(200);
    await cartOf(staff).end(sessionIdOf(added));
  });
});

describe('a partner granted staff privileges in the tenant file', () => {
  beforeAll(async () => {
    await writeTenant(
      db,
      makeTenant(tenantJson(['rules_override', 'staff_items', 'no_hold_budget'])),
      Date.now(),
    );
  });

  it('rates with rules=soft, lists and books staff-only items, and holds beyond the budget', async () => {
    expect((await cartOf(inn).rate(KAYAK, `date=${freshDay()}&rules=soft`)).status).toBe(200);
    const listed = await invoke(handlers.items, { path: 'item', headers: { authorization: inn } });
    expect(Object.keys(listed.json.items)).toEqual([String(KAYAK), String(SLIP)]);
    const day = freshDay();
    const added = await cartOf(inn).add([
      await cartOf(inn).slip(SLIP, `date=${day}`),
      await cartOf(inn).slip(KAYAK, `date=${day}&param[qty]=8`),
    ]);
    expect(added.status, JSON.stringify(added.json.request)).toBe(200);
    await cartOf(inn).end(sessionIdOf(added));
    // What one partner is granted, another is not.
    expect((await cartOf(tours).rate(KAYAK, `date=${freshDay()}&rules=soft`)).status).toBe(400);
  });

  it('grants each privilege alone', async () => {
    await writeTenant(db, makeTenant(tenantJson(['staff_items'])), Date.now());
    try {
      expect((await cartOf(inn).rate(SLIP, `date=${freshDay()}`)).status).toBe(200);
      expect((await cartOf(inn).rate(KAYAK, `date=${freshDay()}&rules=soft`)).status).toBe(400);
      const over = await cartOf(inn).add([await cartOf(inn).slip(KAYAK, `date=${freshDay()}&param[qty]=6`)]);
      expect(over.status).toBe(409);
      expect(over.json.request.error.id).toBe('hold_limit');
    } finally {
      await writeTenant(
        db,
        makeTenant(tenantJson(['rules_override', 'staff_items', 'no_hold_budget'])),
        Date.now(),
      );
    }
  });
});
