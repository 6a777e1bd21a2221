import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createBookingClient } from '#lib/client/index.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import { type RunningService, startService, stopService } from '#test/support/local-runner.ts';

// The typed client (lib/client) against a real `npm start`, through a customer's whole flow and a staff
// read: its types come from openapi.json, and every answer is checked against that document too.
const dataDir = mkdtempSync(join(tmpdir(), 'client-'));
const admin = { key: `ck_${randomUUID().replaceAll('-', '')}`, secret: randomUUID() };
let service: RunningService;
const day = addDays(todayIn('America/Toronto', Date.now()), 45);

beforeAll(async () => {
  service = await startService({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    TABLE_NAME: `client-${randomUUID()}`,
    ADMIN_API_KEY: admin.key,
    ADMIN_API_SECRET: admin.secret,
  });
}, 120_000);

afterAll(async () => {
  if (service) await stopService(service);
});

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
