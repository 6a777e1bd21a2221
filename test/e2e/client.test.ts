import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBookingClient } from '#lib/client/index.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { setUpService } from '#test/support/local-runner.ts';

// The typed client (lib/client) against a real `npm start`, through a customer's whole flow and a staff
// read: its types come from openapi.json, and every answer is checked against that document too.
const admin = { key: `ck_${randomUUID().replaceAll('-', '')}`, secret: randomUUID() };
const service = setUpService('client', { ADMIN_API_KEY: admin.key, ADMIN_API_SECRET: admin.secret });
const day = addDays(todayIn('America/Toronto', Date.now()), 45);

describe('the typed client', () => {
  it('rates, holds and books as a widget, and reads the booking as staff', async () => {
    const guest = createBookingClient({ baseUrl: service.base });
    const rated = await guest.GET('/item/{item_id}', {
      params: { path: { item_id: '3' }, query: { date: day, param: { qty: '1' } } },
    });
    expect(rated.response.status).toBe(200);
    const item = rated.data?.item as { rate?: { slip?: string } } | undefined;
    const slip = item?.rate?.slip;
    expect(slip).toMatch(/^s1\./);

    const cart = await guest.POST('/booking/session', { body: { slip: [slip ?? ''] } });
    expect(cart.response.status).toBe(200);
    const session = cart.data?.booking.session as { id?: string } | undefined;
    const sessionId = String(session?.id);

    const created = await guest.POST('/booking/create', {
      body: {
        session_id: sessionId,
        form: { customer_name: 'Ada Lovelace', customer_email: 'ada@example.com' },
      },
    });
    expect(created.response.status).toBe(200);
    const code = String(created.data?.booking.id);

    const staff = createBookingClient({ baseUrl: service.base, credentials: admin });
    const record = await staff.GET('/booking/{booking_id}', { params: { path: { booking_id: code } } });
    expect(record.data?.booking).toMatchObject({ code, customer_name: 'Ada Lovelace' });

    const refused = await guest.GET('/booking/{booking_id}', { params: { path: { booking_id: code } } });
    expect(refused.response.status).toBe(401);
    expect(refused.error).toMatchObject({ error: 'unauthorized' });
  });
});
