import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createDispatcher } from '#functions/webhooks/app.ts';
import { createCredential } from '#lib/auth/credential-admin.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { listDeliveriesOfEndpoint } from '#lib/db/webhook-delivery-repository.ts';
import {
  disableEndpointWithEvent,
  enableEndpoint,
  getEndpoint,
} from '#lib/db/webhook-endpoint-repository.ts';
import { webhookEventActions } from '#lib/db/webhook-outbox.ts';
import { createFileSecretStore, type WebhookSecretStore } from '#lib/db/webhook-secret-store.ts';
import { ensureEndpointSecrets, rotateEndpointSecret } from '#lib/webhooks/secrets.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

const CHECKFRONT_EXAMPLE = JSON.parse(readFileSync('test/fixtures/checkfront-notification.json', 'utf8')) as {
  booking: { order: { items: { item: unknown } } };
};

/** The keys of a JSON value at every depth, with `string` for each scalar that is a string. */
const shapeOf = (value: unknown): unknown =>
  value !== null && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, shapeOf(entry)]))
    : typeof value;

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A receiver on the loopback: records every request and answers from a script of statuses (then 200). */
function startReceiver() {
  const received: Received[] = [];
  const script: Record<string, number[]> = {};
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers as Record<string, string>, body });
      response.statusCode = script[path]?.shift() ?? 200;
      response.end('ok');
    });
  });
  return { server, received, script };
}

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let receiver: ReturnType<typeof startReceiver>;
let secrets: WebhookSecretStore;
let secretsFile: string;
let staff: string;
/** How far the dispatcher's clock runs ahead of the real one (to pass retry delays). */
let ahead = 0;
const now = () => Date.now() + ahead;
let dispatch: ReturnType<typeof createDispatcher>;
const day = addDays(todayIn('America/Toronto', Date.now()), 20);

const verifier = async (endpointId: string) => {
  const secret = (await secrets.read())[endpointId]?.current ?? '';
  return new Webhook(secret);
};
const at = (path: string) => receiver.received.filter((entry) => entry.path === path);

const book = async (options: { qty?: number } = {}) => {
  const client = sessionClient(handlers);
  const slip = await client.slip(1, `date=${day}&param[qty]=${options.qty ?? 1}`);
  const sessionId = sessionOf(await client.add([slip])).id as string;
  const response = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: `session_id=${sessionId}&form[customer_name]=Ada&form[customer_email]=ada@example.com`,
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(response.status).toBe(200);
  return response.json.booking as { code: string; booking_id: number };
};

const staffPost = (path: string, body = '') =>
  invoke(handlers.bookings, {
    method: 'POST',
    path,
    body,
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization: staff },
  });

/** Runs the dispatcher until it has nothing due now. */
/** Runs the dispatcher until nothing is due; what the runs did, summed (the Lambda's metrics count these). */
const drain = async () => {
  const total = { delivered: 0, failed: 0, disabled: 0 };
  for (let run = 0; run < 20; run += 1) {
    const report = await dispatch();
    total.delivered += report.delivered;
    total.failed += report.failed;
    total.disabled += report.disabled;
    if (report.due === 0) break;
  }
  return total;
};

beforeAll(async () => {
  receiver = startReceiver();
  await new Promise<void>((done) => receiver.server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
  db = await createTestDb('webhooks');
  const tenant = makeTenant(
    makeTenantJson({
      settings: { booking_code_prefix: 'HOOK', webhooks: { retry_seconds: [10, 20, 30] } },
      items: [makeItem({ item_id: 1, stock: 500 })],
      webhooks: [
        { id: 'all', url: `${base}/all`, events: ['*'] },
        { id: 'cf', url: `${base}/cf`, events: ['booking.created'], format: 'checkfront' },
        { id: 'flaky', url: `${base}/flaky`, events: ['booking.*'] },
        { id: 'off', url: `${base}/off`, events: ['*'], enabled: false },
      ],
    }),
  );
  await writeTenant(db, tenant, Date.now());
  secretsFile = join(mkdtempSync(join(tmpdir(), 'webhook-secrets-')), 'webhook-secrets.json');
  secrets = createFileSecretStore(secretsFile);
  await ensureEndpointSecrets(
    secrets,
    tenant.webhooks.map((webhook) => webhook.id),
  );
  const desk = await createCredential(db, { accountId: 1, onBehalf: false, label: 'desk', now: Date.now() });
  staff = basic(desk.key, desk.secret);
  handlers = createAllHandlers(testDeps(db));
  dispatch = createDispatcher({ db, secrets, policy: 'local', clock: now, random: () => 0.5 });
});

afterAll(async () => {
  await new Promise<void>((done) => receiver.server.close(() => done()));
});

beforeEach(async () => {
  ahead = 0;
  await drain();
  receiver.received.length = 0;
  for (const path of Object.keys(receiver.script)) delete receiver.script[path];
});

describe('webhook secrets', () => {
  it('keeps each endpoint its own whsec_ secret in a file only its owner can read', async () => {
    const all = await secrets.read();
    expect(Object.keys(all).sort()).toEqual(['all', 'cf', 'flaky', 'off']);
    expect(all.all?.current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(all.all?.current).not.toBe(all.cf?.current);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    expect(await ensureEndpointSecrets(secrets, ['all', 'cf'])).toEqual([]);
    expect(readFileSync(secretsFile, 'utf8')).toContain(all.all?.current);
  });
});

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

/** Waits for the next whole second and returns it (Unix seconds): events from here on are after it. */
const nextSecond = async () => {
  await new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000)));
  return Math.floor(Date.now() / 1000);
};

describe('loading webhook endpoints', () => {
  it('creates, changes, disables and retires endpoints, and never deletes their deliveries', async () => {
    const own = await createTestDb('webhook-load');
    const load = (webhooks: Record<string, unknown>[]) =>
      writeTenant(own, makeTenant(makeTenantJson({ webhooks })), Date.now());
    const desk = { id: 'desk', url: 'https://a.example.com/in', events: ['*'] };
    await load([desk]);
    expect(await getEndpoint(own, 'desk')).toMatchObject({ active: true, in_file: true, format: 'standard' });
    await load([{ ...desk, url: 'https://b.example.com/in', format: 'checkfront' }]);
    expect(await getEndpoint(own, 'desk')).toMatchObject({
      url: 'https://b.example.com/in',
      format: 'checkfront',
    });
    await load([{ ...desk, enabled: false }]);
    expect(await getEndpoint(own, 'desk')).toMatchObject({ active: false, disabled_reason: 'tenant_file' });
    await load([desk]);
    expect(await getEndpoint(own, 'desk')).toMatchObject({ active: true });
    expect((await getEndpoint(own, 'desk'))?.disabled_reason).toBeUndefined();
    // A receiver that answered 410 stays disabled whatever the file says, until `enable`.
    await disableEndpointWithEvent(own, {
      endpointId: 'desk',
      reason: 'gone',
      now: Date.now(),
      event: {
        event: { event_id: 'gone-1', type: 'webhook.disabled', at: Date.now(), account_id: 0, data: {} },
        booking_id: 0,
        sequence: 0,
      },
      subscribers: [],
      retentionDays: 30,
    });
    await load([desk]);
    expect(await getEndpoint(own, 'desk')).toMatchObject({ active: false, disabled_reason: 'gone' });
    await own.client.send(
      new TransactWriteCommand({
        TransactItems: webhookEventActions(own, {
          event: {
            event: { event_id: 'e-1', type: 'booking.created', at: Date.now(), account_id: 0, data: {} },
            booking_id: 1,
            sequence: 1,
          },
          endpointIds: ['desk'],
          retentionDays: 30,
        }),
      }),
    );
    const summary = await load([]);
    expect(summary.retiredWebhooks).toEqual(['desk']);
    expect(await getEndpoint(own, 'desk')).toMatchObject({ in_file: false, active: false, enabled: false });
    const kept = await listDeliveriesOfEndpoint(own, { endpointId: 'desk', skip: 0, take: 10 });
    expect(kept.rows.map((delivery) => delivery.event_id)).toEqual(['e-1']);
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

describe('webhook staff routes', () => {
  const staffGet = (path: string, query?: string, authorization = staff) =>
    invoke(handlers.bookings, { path, ...(query ? { query } : {}), headers: { authorization } });

  it('lists the endpoints with their state, last success and failures in a row, for staff only', async () => {
    await book();
    await drain();
    const response = await staffGet('webhook');
    expect(response.status).toBe(200);
    expect(Object.keys(response.json.webhooks).sort()).toEqual(['all', 'cf', 'flaky', 'off']);
    expect(response.json.webhooks.all).toMatchObject({
      state: 'enabled',
      consecutive_failures: 0,
      format: 'standard',
    });
    expect(response.json.webhooks.all.last_success_at).toBeGreaterThan(0);
    expect(response.json.webhooks.off).toMatchObject({
      state: 'disabled',
      disabled_reason: 'tenant_file',
      enabled: 0,
    });
    expect(JSON.stringify(response.json)).not.toContain('whsec_');
    expect((await invoke(handlers.bookings, { path: 'webhook' })).status).toBe(401);
  });

  it('pages an endpoint deliveries, newest first, with their attempts; an unknown endpoint is a 404', async () => {
    receiver.script['/all'] = [500];
    await book();
    await drain();
    const response = await staffGet('webhook/all/delivery', 'limit=1');
    expect(response.status).toBe(200);
    expect(response.json.request).toMatchObject({ records: 1, limit: 1, page: 1 });
    expect(response.json.request.total_records).toBeGreaterThan(1);
    const all = await staffGet('webhook/all/delivery', 'limit=250');
    // The newest of this endpoint's booking deliveries (a clock run ahead elsewhere may date others later).
    const latest = all.json.deliveries.find(
      (delivery: { event_type: string }) => delivery.event_type === 'booking.created',
    );
    expect(latest).toMatchObject({ status: 'pending', failures: 1, event_type: 'booking.created' });
    expect(latest.attempts).toEqual([
      expect.objectContaining({ status: 500, outcome: 'failure', body: 'ok' }),
    ]);
    ahead += 11_000;
    await drain();
    expect((await staffGet('webhook/nope/delivery')).status).toBe(404);
    expect((await staffGet('webhook/all/delivery', 'limit=0')).json.request.error.id).toBe(
      'validation_error',
    );
  });

  it('replays what happened since a time with the same event ids, and refuses a disabled endpoint', async () => {
    const since = await nextSecond();
    await book();
    await drain();
    const first = at('/all').map((entry) => entry.headers['webhook-id']);
    expect(first).toHaveLength(1);
    const replay = await staffPost('webhook/all/replay', `since=${since}`);
    expect(replay.status).toBe(200);
    expect(replay.json.replay).toMatchObject({ since, events: 1, truncated: 0 });
    await drain();
    const ids = at('/all').map((entry) => entry.headers['webhook-id']);
    expect(ids).toEqual([first[0], first[0]]);
    expect((await staffPost('webhook/all/replay', 'since=soon')).json.request.error.id).toBe(
      'validation_error',
    );
    const off = await staffPost('webhook/off/replay', `since=${since}`);
    expect(off.status).toBe(409);
    expect(off.json.request.error.id).toBe('invalid_status');
  });

  it('enables a disabled endpoint: it gets new events, and what it missed only by a replay', async () => {
    const since = await nextSecond();
    receiver.script['/flaky'] = [410];
    await book();
    await drain();
    await book();
    await drain();
    expect(at('/flaky')).toHaveLength(1);
    const enabled = await staffPost('webhook/flaky/enable');
    expect(enabled.json.webhook).toMatchObject({ state: 'enabled', disabled_reason: '' });
    await book();
    await drain();
    expect(at('/flaky')).toHaveLength(2);
    await staffPost('webhook/flaky/replay', `since=${since}`);
    await drain();
    const types = at('/flaky').map((entry) => (JSON.parse(entry.body) as { type: string }).type);
    expect(types).toHaveLength(5);
    expect(
      new Set(
        at('/flaky')
          .slice(2)
          .map((entry) => entry.headers['webhook-id']),
      ).size,
    ).toBe(3);
  });
});
