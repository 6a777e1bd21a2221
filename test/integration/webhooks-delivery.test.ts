import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '#functions/webhooks/job.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { listDeliveriesOfEndpoint } from '#lib/webhooks/delivery-repository.ts';
import { enableEndpoint, getEndpoint } from '#lib/webhooks/endpoint-repository.ts';
import { rotateEndpointSecret } from '#lib/webhooks/secrets.ts';
import { invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import {
  at,
  book,
  day,
  db,
  drain,
  handlers,
  receiver,
  secrets,
  setUpWebhooksWorld,
  staff,
  staffPost,
  verifier,
} from '#test/support/webhooks-world.ts';

// Webhook delivery: what is sent, signed and retried, and what is guaranteed. The world:
// test/support/webhooks-world.ts.

const CHECKFRONT_EXAMPLE = JSON.parse(readFileSync('test/fixtures/checkfront-notification.json', 'utf8')) as {
  booking: { order: { items: { item: unknown } } };
};

/** The keys of a JSON value at every depth, with `string` for each scalar that is a string. */
const shapeOf = (value: unknown): unknown =>
  value !== null && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, shapeOf(entry)]))
    : typeof value;

/** How far the dispatcher's clock runs ahead of the real one (to pass retry delays). */
let ahead = 0;
const now = () => Date.now() + ahead;
beforeEach(() => {
  ahead = 0;
});
setUpWebhooksWorld(now);

describe('webhook delivery', () => {
  it('sends a booking change signed so the standardwebhooks library verifies it, with the booking as it was', async () => {
    const created = await book();
    await drain();
    const [message] = at('/all');
    expect(message).toBeDefined();
    const payload = (await verifier('all')).verify(message?.body ?? '', message?.headers ?? {}) as {
      type: string;
      timestamp: string;
      data: { event: { event_id: string; type: string; at: number }; booking: Record<string, unknown> };
    };
    expect(payload.type).toBe('booking.created');
    expect(payload.data.event.event_id).toBe(message?.headers['webhook-id']);
    const record = await invoke(handlers.bookings, {
      path: `booking/${created.code}`,
      query: 'events=1',
      headers: { authorization: staff },
    });
    const { bookmarked: _b, events: _e, ...wire } = record.json.booking;
    const { bookmarked: _c, ...sent } = payload.data.booking;
    expect(sent).toEqual(wire);
    expect(record.json.booking.events[0]).toEqual(payload.data.event);
    expect(Math.floor(Date.parse(payload.timestamp) / 1000)).toBe(payload.data.event.at);
    // The endpoint disabled in the tenant file gets nothing.
    expect(at('/off')).toEqual([]);
  });

  it('tells a receiver that a payment made the booking PAID, then sends the payment, each with the booking as it was', async () => {
    const created = await book();
    await drain();
    expect((await staffPost(`booking/${created.code}/update`, 'status_id=PAID&set_paid=1')).status).toBe(200);
    await drain();
    const mine = at('/all')
      .map(
        (entry) =>
          JSON.parse(entry.body) as {
            type: string;
            data: { event: { data: Record<string, unknown> }; booking: Record<string, unknown> };
          },
      )
      .filter((payload) => payload.data.booking.code === created.code);
    expect(mine.map((payload) => payload.type)).toEqual([
      'booking.created',
      'booking.status_changed',
      'payment.created',
    ]);
    const [, changed, paid] = mine;
    expect(changed?.data.event.data).toMatchObject({ from: 'PEND', to: 'PAID' });
    expect(changed?.data.booking).toMatchObject({ status_id: 'PAID', paid_total: '0.00' });
    expect(paid?.data.booking).toMatchObject({ status_id: 'PAID', due: '0.00' });
    const record = await invoke(handlers.bookings, {
      path: `booking/${created.code}`,
      query: 'events=1',
      headers: { authorization: staff },
    });
    expect(record.json.booking.events.map((event: { type: string }) => event.type)).toEqual([
      'booking.created',
      'booking.status_changed',
      'payment.created',
    ]);
  });

  it('retries a refused delivery with the same id until the receiver takes it, then goes on in order', async () => {
    receiver.script['/flaky'] = [500, 503, 502];
    const created = await book();
    await staffPost(`booking/${created.code}/note`, 'body=Late+arrival');
    await drain();
    expect(at('/flaky')).toHaveLength(1);
    for (const wait of [10, 20, 30]) {
      ahead += wait * 1000 + 1;
      await drain();
    }
    const attempts = at('/flaky');
    const ids = attempts.map((entry) => entry.headers['webhook-id']);
    // Four attempts of booking.created (three refused), then booking.note_added: never before it.
    expect(ids.slice(0, 4).every((id) => id === ids[0])).toBe(true);
    expect(attempts).toHaveLength(5);
    const types = attempts.map((entry) => (JSON.parse(entry.body) as { type: string }).type);
    expect(types).toEqual([
      'booking.created',
      'booking.created',
      'booking.created',
      'booking.created',
      'booking.note_added',
    ]);
    const verify = await verifier('flaky');
    for (const entry of attempts) expect(() => verify.verify(entry.body, entry.headers)).not.toThrow();
  });

  it('disables an endpoint that answers 410 Gone, records webhook.disabled, and sends nothing until enabled', async () => {
    receiver.script['/flaky'] = [410];
    await book();
    expect(await drain()).toMatchObject({ failed: 1, disabled: 1 });
    expect(await getEndpoint(db, 'flaky')).toMatchObject({ active: false, disabled_reason: 'gone' });
    const disabled = at('/all').find(
      (entry) => (JSON.parse(entry.body) as { type: string }).type === 'webhook.disabled',
    );
    expect(JSON.parse(disabled?.body ?? '{}').data.event.data).toMatchObject({
      endpoint_id: 'flaky',
      reason: 'gone',
    });
    await book();
    await drain();
    expect(at('/flaky')).toHaveLength(1);
    const { rows } = await listDeliveriesOfEndpoint(db, { endpointId: 'flaky', skip: 0, take: 10 });
    expect(rows[0]?.status).toBe('skipped');
    await enableEndpoint(db, { endpointId: 'flaky', now: now() });
    await book();
    await drain();
    expect(at('/flaky')).toHaveLength(2);
  });

  it('gives up after the last delay of the schedule and disables the endpoint as failing', async () => {
    receiver.script['/flaky'] = [500, 500, 500, 500];
    await book();
    await drain();
    for (const wait of [10, 20, 30]) {
      ahead += wait * 1000 + 1;
      await drain();
    }
    expect(at('/flaky')).toHaveLength(4);
    expect(await getEndpoint(db, 'flaky')).toMatchObject({ active: false, disabled_reason: 'failing' });
    const { rows } = await listDeliveriesOfEndpoint(db, { endpointId: 'flaky', skip: 0, take: 1 });
    expect(rows[0]).toMatchObject({ status: 'failed', failures: 4 });
    expect(rows[0]?.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500, 500]);
    await enableEndpoint(db, { endpointId: 'flaky', now: now() });
  });

  it('sends the API 3.0 notification body to a checkfront endpoint, signed the same way', async () => {
    const created = await book({ qty: 2 });
    await drain();
    const [message] = at('/cf');
    const body = (await verifier('cf')).verify(message?.body ?? '', message?.headers ?? {}) as {
      booking: Record<string, unknown> & { order: { items: { item: unknown } } };
    };
    expect(body.booking['@attributes']).toEqual({
      booking_id: String(created.booking_id),
      code: created.code,
    });
    expect(body.booking).toMatchObject({ code: created.code, status: expect.any(String) });
    expect(Array.isArray(body.booking.order.items.item)).toBe(false);
    expect(body.booking.order.items.item).toMatchObject({
      qty: '1',
      '@attributes': { item_id: '1', sku: 'kayak' },
    });
    // The same keys at every depth as the stored example of the documented shape, every scalar a string.
    expect(shapeOf(body)).toEqual(shapeOf(CHECKFRONT_EXAMPLE));
  });

  it('sends several lines of a checkfront booking as an array of items', async () => {
    const client = sessionClient(handlers);
    const slips = [
      await client.slip(1, `date=${day}&param[qty]=1`),
      await client.slip(1, `date=${addDays(day, 1)}&param[qty]=1`),
    ];
    const sessionId = sessionOf(await client.add(slips)).id as string;
    await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `session_id=${sessionId}&form[customer_name]=Ada&form[customer_email]=ada@example.com`,
      contentType: 'application/x-www-form-urlencoded',
    });
    await drain();
    const [message] = at('/cf');
    const items = JSON.parse(message?.body ?? '{}').booking.order.items.item;
    expect(Array.isArray(items)).toBe(true);
    expect(items.map((item: { '@attributes': { line_id: string } }) => item['@attributes'].line_id)).toEqual([
      '1',
      '2',
    ]);
    expect(shapeOf(items[1])).toEqual(shapeOf(CHECKFRONT_EXAMPLE.booking.order.items.item));
  });

  it('signs with both secrets during a rotation grace period, each verifying alone', async () => {
    const before = (await secrets.read()).all?.current ?? '';
    const rotated = await rotateEndpointSecret(secrets, {
      endpointId: 'all',
      graceMs: 3_600_000,
      now: now(),
    });
    await book();
    await drain();
    const [message] = at('/all');
    expect(message?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(before).verify(message?.body ?? '', message?.headers ?? {})).not.toThrow();
    expect(() =>
      new Webhook(rotated.current).verify(message?.body ?? '', message?.headers ?? {}),
    ).not.toThrow();
  });
});

describe('webhook guarantees', () => {
  it('delivers a change made with notify=0, the flag in the payload', async () => {
    const created = await book();
    await staffPost(`booking/${created.code}/update`, 'status_id=HOLD&notify=0');
    await drain();
    const changed = at('/all')
      .map(
        (entry) =>
          JSON.parse(entry.body) as { type: string; data: { event: { data: Record<string, unknown> } } },
      )
      .find((payload) => payload.type === 'booking.status_changed');
    expect(changed?.data.event.data).toMatchObject({ from: 'PEND', to: 'HOLD', notify: false });
  });

  it('never sends to a loopback address from the deployed stack: the attempt is refused and retried later', async () => {
    const deployed = createDispatcher({ db, secrets, policy: 'deployed', clock: now, random: () => 0.5 });
    await book();
    await deployed();
    expect(receiver.received).toEqual([]);
    const { rows } = await listDeliveriesOfEndpoint(db, { endpointId: 'all', skip: 0, take: 250 });
    const refused = rows.find((delivery) =>
      delivery.attempts.some((attempt) => attempt.outcome === 'refused'),
    );
    expect(refused).toMatchObject({ status: 'pending', failures: 1 });
    expect(refused?.attempts.at(-1)?.error).toMatch(/scheme http: is not allowed|loopback/);
  });
});
