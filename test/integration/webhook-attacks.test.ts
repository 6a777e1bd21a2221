import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createDispatcher } from '#functions/webhooks/app.ts';
import { renderWebhook } from '#functions/webhooks/render.ts';
import { createCredential } from '#lib/auth/credential-admin.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import { webhookDeliveryKey, webhookEventKey } from '#lib/db/keys.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { getConfig, type StoredConfig } from '#lib/db/tenant-repository.ts';
import { listDeliveriesOfEndpoint } from '#lib/db/webhook-delivery-repository.ts';
import { disableEndpointWithEvent, getEndpoint } from '#lib/db/webhook-endpoint-repository.ts';
import { webhookEventActions } from '#lib/db/webhook-outbox.ts';
import { createFileSecretStore, type WebhookSecretStore } from '#lib/db/webhook-secret-store.ts';
import { type DispatchDeps, dispatchDue } from '#lib/domain/webhook-dispatch.ts';
import { logger } from '#lib/http/logger.ts';
import { ensureEndpointSecrets } from '#lib/webhooks/secrets.ts';
import { postWebhook } from '#lib/webhooks/send.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { basic, invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Adversarial tests of issue 12 (webhooks), written by an independent tester against the text:
// each asserts what the issue promises, and each finding it made (head-of-line blocking, overlapping runs,
// a lost webhook.disabled, oversized snapshots, early expiry, huge pages, commit order, enabling what the
// tenant file disables, delivery-time rendering) is fixed and stays tested here. Every request goes to a
// receiver on 127.0.0.1, and every loop is bounded.

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver: records every request; answers from a per-path script, else a per-path default, else 200. */
function startReceiver() {
  const received: Received[] = [];
  const script: Record<string, number[]> = {};
  const fallback: Record<string, number> = {};
  const echo = new Set<string>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body });
      response.statusCode = script[path]?.shift() ?? fallback[path] ?? 200;
      if (response.statusCode >= 300 && response.statusCode < 400) response.setHeader('location', '/moved');
      response.end(echo.has(path) ? JSON.stringify(request.headers) : 'ok');
    });
  });
  return { server, received, script, fallback, echo };
}

let receiver: ReturnType<typeof startReceiver>;
let base = '';
let port = 0;
const at = (path: string) => receiver.received.filter((entry) => entry.path === path);
const typeOf = (entry: Received) => (JSON.parse(entry.body) as { type: string }).type;

interface World {
  db: Db;
  secrets: WebhookSecretStore;
  handlers: ReturnType<typeof createAllHandlers>;
  staff: string;
  /** How far the dispatcher's clock runs ahead of the real one. */
  ahead: { ms: number };
  now: () => number;
  dispatch: ReturnType<typeof createDispatcher>;
  config: () => Promise<StoredConfig>;
}

const day = addDays(todayIn('America/Toronto', Date.now()), 20);

/** A table with a tenant subscribing the given endpoints, their secrets, a staff credential and a local dispatcher. */
async function world(options: {
  webhooks: Record<string, unknown>[];
  webhookSettings?: Record<string, unknown>;
  statuses?: Record<string, unknown>[];
}): Promise<World> {
  const db = await createTestDb('webhook-attacks');
  const tenant = makeTenant(
    makeTenantJson({
      settings: {
        booking_code_prefix: 'ATK',
        webhooks: { retry_seconds: [10, 20, 30], ...options.webhookSettings },
      },
      items: [makeItem({ item_id: 1, stock: 500 })],
      webhooks: options.webhooks,
      ...(options.statuses ? { statuses: options.statuses } : {}),
    }),
  );
  await writeTenant(db, tenant, Date.now());
  const secrets = createFileSecretStore(
    join(mkdtempSync(join(tmpdir(), 'webhook-attacks-')), 'secrets.json'),
  );
  await ensureEndpointSecrets(
    secrets,
    tenant.webhooks.map((webhook) => webhook.id),
  );
  const desk = await createCredential(db, { accountId: 1, onBehalf: false, label: 'desk', now: Date.now() });
  const ahead = { ms: 0 };
  const now = () => Date.now() + ahead.ms;
  return {
    db,
    secrets,
    handlers: createAllHandlers(testDeps(db)),
    staff: basic(desk.key, desk.secret),
    ahead,
    now,
    dispatch: createDispatcher({ db, secrets, policy: 'local', clock: now, random: () => 0.5 }),
    config: async () => {
      const config = await getConfig(db);
      if (!config) throw new Error('no tenant');
      return config;
    },
  };
}

/** Runs the dispatcher until nothing is due (at most `runs` times). */
const drain = async (w: World, runs = 20) => {
  for (let run = 0; run < runs; run += 1) {
    if ((await w.dispatch()).due === 0) return;
  }
};

const book = async (w: World, options: { name?: string; slip?: string } = {}) => {
  const client = sessionClient(w.handlers);
  const slip = await client.slip(1, options.slip ?? `date=${day}&param[qty]=1`);
  const session = sessionOf(await client.add([slip]));
  expect(session?.id).toBeDefined();
  const response = await invoke(w.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: `session_id=${session.id}&form[customer_name]=${encodeURIComponent(options.name ?? 'Ada')}&form[customer_email]=ada@example.com`,
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(response.status).toBe(200);
  return response.json.booking as { code: string; booking_id: number };
};

const staffPost = (w: World, path: string, body = '') =>
  invoke(w.handlers.bookings, {
    method: 'POST',
    path,
    body,
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization: w.staff },
  });

const staffGet = (w: World, path: string, query?: string) =>
  invoke(w.handlers.bookings, { path, ...(query ? { query } : {}), headers: { authorization: w.staff } });

/** Writes an event (not through a booking change) with pending deliveries to the given endpoints. */
const putRawEvent = (
  db: Db,
  options: { id: string; bookingId: number; at: number; endpointIds: string[]; type?: string },
) =>
  db.client.send(
    new TransactWriteCommand({
      TransactItems: webhookEventActions(db, {
        event: {
          event: {
            event_id: options.id,
            type: options.type ?? 'booking.note_added',
            at: options.at,
            account_id: 0,
            data: {},
          },
          booking_id: options.bookingId,
          sequence: 1,
        },
        endpointIds: options.endpointIds,
        retentionDays: 30,
      }),
    }),
  );

/** Runs `work` on every element, `width` at a time. */
const inChunks = async <T>(values: T[], width: number, work: (value: T) => Promise<unknown>) => {
  for (let start = 0; start < values.length; start += width) {
    await Promise.all(values.slice(start, start + width).map(work));
  }
};

beforeAll(async () => {
  receiver = startReceiver();
  await new Promise<void>((done) => receiver.server.listen(0, '127.0.0.1', done));
  port = (receiver.server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise<void>((done) => receiver.server.close(() => done()));
});

beforeEach(() => {
  receiver.received.length = 0;
  for (const record of [receiver.script, receiver.fallback]) {
    for (const path of Object.keys(record)) delete record[path];
  }
  receiver.echo.clear();
});

describe('liveness and duplicates', () => {
  it('keeps delivering to a healthy endpoint while another one is down with 100 bookings held behind their retries', async () => {
    const w = await world({
      webhooks: [
        { id: 'down', url: `${base}/down`, events: ['booking.*'] },
        { id: 'up', url: `${base}/up`, events: ['booking.*'] },
      ],
    });
    receiver.fallback['/down'] = 503;
    // An outage of `down`: 100 bookings each change twice (say booking.created, then payment.created).
    const start = Date.now() - 60_000;
    const bookings = Array.from({ length: 100 }, (_, index) => index + 1);
    await inChunks(bookings, 25, (id) =>
      putRawEvent(w.db, { id: `first-${id}`, bookingId: id, at: start + id, endpointIds: ['down'] }),
    );
    await inChunks(bookings, 25, (id) =>
      putRawEvent(w.db, { id: `second-${id}`, bookingId: id, at: start + 1000 + id, endpointIds: ['down'] }),
    );
    await w.dispatch(); // the first events: each refused, retried in 10 s
    await w.dispatch(); // the second events: each held behind its booking's first
    // A new change that only the healthy endpoint subscribes to.
    await putRawEvent(w.db, { id: 'fresh', bookingId: 500, at: Date.now(), endpointIds: ['up'] });
    for (let run = 0; run < 5; run += 1) await w.dispatch();
    expect(at('/up').map((entry) => entry.headers['webhook-id'])).toEqual(['fresh']);
  });

  it('never sends a delivery twice when two dispatcher runs overlap and the first one fails it', async () => {
    const w = await world({ webhooks: [{ id: 'flaky', url: `${base}/flaky`, events: ['booking.*'] }] });
    receiver.fallback['/flaky'] = 500;
    await book(w);
    // Run B lists what is due, then is slow (a cold start, a slow read) while run A does the work.
    let listed: () => void = () => undefined;
    const bListed = new Promise<void>((resolve) => {
      listed = resolve;
    });
    let release: () => void = () => undefined;
    const aDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    const deps: DispatchDeps = {
      db: w.db,
      secrets: w.secrets,
      render: renderWebhook,
      clock: w.now,
      random: () => 0.5,
      send: (request) => postWebhook({ ...request, policy: 'local' }),
      config: async () => {
        listed();
        await aDone;
        return w.config();
      },
    };
    const runB = dispatchDue(deps);
    await bListed;
    const runA = await w.dispatch();
    expect(runA.failed).toBe(1);
    release();
    await runB;
    // One attempt, its retry 10 s away; the attempt log and the failure count agree with what was sent.
    const { rows } = await listDeliveriesOfEndpoint(w.db, { endpointId: 'flaky', skip: 0, take: 5 });
    expect({
      sent: at('/flaky').length,
      logged: rows[0]?.attempts.length,
      failures: rows[0]?.failures,
    }).toEqual({ sent: 1, logged: 1, failures: 1 });
  });

  it('records webhook.disabled even when the dispatcher crashes right after disabling the endpoint', async () => {
    const w = await world({
      webhooks: [
        { id: 'gone', url: `${base}/gone`, events: ['booking.*'] },
        { id: 'watch', url: `${base}/watch`, events: ['webhook.disabled'] },
      ],
    });
    receiver.script['/gone'] = [410];
    await book(w);
    // A crash after the endpoint is disabled: the next write (the webhook.disabled event) never happens.
    const client = new Proxy(w.db.client, {
      get(target, property, receiverOf) {
        if (property === 'send') {
          return (command: unknown, ...rest: unknown[]) => {
            if (command instanceof TransactWriteCommand) return Promise.reject(new Error('SIGKILL'));
            return (target.send as (...args: unknown[]) => unknown).call(target, command, ...rest);
          };
        }
        return Reflect.get(target, property, receiverOf);
      },
    });
    const crashing = createDispatcher({
      db: { ...w.db, client },
      secrets: w.secrets,
      policy: 'local',
      clock: w.now,
      random: () => 0.5,
    });
    await expect(crashing()).rejects.toThrow('SIGKILL');
    // Nothing half-written: the endpoint is disabled together with its event, or not at all.
    expect(await getEndpoint(w.db, 'gone')).toMatchObject({ active: true });
    // The service restarts; the crashed attempt's lease runs out and the receiver answers 410 again.
    receiver.script['/gone'] = [410];
    w.ahead.ms += 31_000;
    await drain(w);
    expect(await getEndpoint(w.db, 'gone')).toMatchObject({ active: false, disabled_reason: 'gone' });
    expect(at('/watch').map(typeOf)).toEqual(['webhook.disabled']);
  });
});

describe('order', () => {
  it("sends one booking's changes in the order they were committed, so the last payload is the booking as it is", async () => {
    const w = await world({ webhooks: [{ id: 'ord', url: `${base}/ord`, events: ['booking.*'] }] });
    const created = await book(w);
    const started = Date.now();
    // Request A (a note) starts first; request B (a status change) starts 200 ms later and commits first,
    // so A loses the version race and commits on its retry, still with the time it started at.
    const requestB = createAllHandlers(testDeps(w.db, { clock: () => started + 200 }));
    const requestA = createAllHandlers(testDeps(w.db, { clock: () => started }));
    const post = (handlers: ReturnType<typeof createAllHandlers>, path: string, body: string) =>
      invoke(handlers.bookings, {
        method: 'POST',
        path,
        body,
        contentType: 'application/x-www-form-urlencoded',
        headers: { authorization: w.staff },
      });
    expect((await post(requestB, `booking/${created.code}/update`, 'status_id=HOLD')).status).toBe(200);
    expect((await post(requestA, `booking/${created.code}/note`, 'body=Gate+code+1234')).status).toBe(200);
    await drain(w);
    const payloads = at('/ord').map(
      (entry) =>
        JSON.parse(entry.body) as {
          type: string;
          data: { booking: { notes: unknown[]; status_id: string } };
        },
    );
    const now = await staffGet(w, `booking/${created.code}`);
    const last = payloads.at(-1)?.data.booking;
    expect({
      types: payloads.map((payload) => payload.type),
      last: { status: last?.status_id, notes: last?.notes.length },
    }).toEqual({
      types: ['booking.created', 'booking.status_changed', 'booking.note_added'],
      last: { status: now.json.booking.status_id, notes: now.json.booking.notes.length },
    });
  });
});

describe('size limits', () => {
  it('books, voids and revives a cart at its 48 item-date limit with 10 endpoints subscribed', async () => {
    const ids = Array.from({ length: 10 }, (_, index) => `e${index}`);
    const w = await world({ webhooks: ids.map((id) => ({ id, url: `${base}/${id}`, events: ['*'] })) });
    const created = await book(w, { slip: `start_date=${day}&end_date=${addDays(day, 47)}` });
    const holds = await staffGet(w, `booking/${created.code}`);
    expect(Object.keys(holds.json.booking.items)).toHaveLength(1);
    expect((await staffPost(w, `booking/${created.code}/update`, 'status_id=VOID')).status).toBe(200);
    expect((await staffPost(w, `booking/${created.code}/update`, 'status_id=PEND')).status).toBe(200);
    await drain(w);
    for (const id of ids) {
      expect(at(`/${id}`).map(typeOf)).toEqual([
        'booking.created',
        'booking.status_changed',
        'booking.status_changed',
      ]);
    }
  });

  it('keeps a booking changeable with an endpoint subscribed, however many long notes it has', async () => {
    // 3000 characters is the longest note; each is 9 KB in UTF-8, and every event's snapshot holds them all.
    const body = encodeURIComponent('€'.repeat(3000));
    const w = await world({ webhooks: [] });
    const addNotes = async (code: string, count: number) => {
      const statuses: number[] = [];
      for (let note = 0; note < count; note += 1) {
        const response = await staffPost(w, `booking/${code}/note`, `body=${body}`);
        statuses.push(response.status);
        if (response.status !== 200) break;
      }
      return { notes: statuses.length, refused: statuses.filter((status) => status !== 200) };
    };
    // Without a subscriber a booking takes 60 such notes.
    const older = await book(w);
    expect(await addNotes(older.code, 60)).toEqual({ notes: 60, refused: [] });
    // The business then connects an integration.
    await writeTenant(
      w.db,
      makeTenant(
        makeTenantJson({
          settings: { booking_code_prefix: 'ATK' },
          items: [makeItem({ item_id: 1, stock: 500 })],
          webhooks: [{ id: 'all', url: `${base}/all`, events: ['*'] }],
        }),
      ),
      Date.now(),
    );
    const cancelOlder = (await staffPost(w, `booking/${older.code}/update`, 'status_id=VOID')).status;
    const newer = await book(w);
    expect({ cancelOlder, newerNotes: await addNotes(newer.code, 60) }).toEqual({
      cancelOlder: 200,
      newerNotes: { notes: 60, refused: [] },
    });
  });
});

describe('replay', () => {
  it('reaches events of the month before when the current month already holds 1000 events', async () => {
    const w = await world({
      webhooks: [
        { id: 'all', url: `${base}/all`, events: ['*'] },
        { id: 'other', url: `${base}/other`, events: ['*'], enabled: false },
      ],
    });
    const now = new Date();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const newer = Array.from({ length: 1000 }, (_, index) => index);
    await inChunks(newer, 25, (index) =>
      putRawEvent(w.db, {
        id: `new-${index}`,
        bookingId: 1,
        at: monthStart + 1 + index,
        endpointIds: ['other'],
      }),
    );
    const older = ['old-0', 'old-1', 'old-2'];
    await inChunks(older, 3, (id) =>
      putRawEvent(w.db, {
        id,
        bookingId: 2,
        at: monthStart - 86_400_000 + older.indexOf(id),
        endpointIds: ['other'],
      }),
    );
    // The operator replays from two days before the month, then from each next_since while truncated.
    let since = Math.floor((monthStart - 2 * 86_400_000) / 1000);
    for (let call = 0; call < 5; call += 1) {
      const replay = await staffPost(w, 'webhook/all/replay', `since=${since}`);
      expect(replay.status).toBe(200);
      if (!replay.json.replay.truncated) break;
      since = replay.json.replay.next_since;
    }
    const { rows } = await listDeliveriesOfEndpoint(w.db, { endpointId: 'all', skip: 0, take: 1100 });
    const queued = new Set(rows.map((row) => row.event_id));
    expect(queued.size).toBe(1003);
    expect(older.filter((id) => !queued.has(id))).toEqual([]);
  });
});

describe('endpoint state', () => {
  it('delivers new events to an endpoint that staff enabled (the enable route says it resumes deliveries)', async () => {
    const w = await world({
      webhooks: [
        { id: 'all', url: `${base}/all`, events: ['*'] },
        { id: 'off', url: `${base}/off`, events: ['*'], enabled: false },
      ],
    });
    const enabled = await staffPost(w, 'webhook/off/enable');
    await book(w);
    await drain(w);
    expect(at('/all')).toHaveLength(1);
    if (enabled.status === 200 && enabled.json.webhook.state === 'enabled') {
      // Reported as enabled: then it must receive what happens from now on.
      expect(at('/off')).toHaveLength(1);
    } else {
      expect(enabled.status).toBe(409);
    }
  });

  it('sends nothing more to an endpoint once it is disabled, even within a dispatcher run already under way', async () => {
    const w = await world({ webhooks: [{ id: 'x', url: `${base}/x`, events: ['*'] }] });
    const created = await book(w);
    await staffPost(w, `booking/${created.code}/note`, 'body=one');
    await staffPost(w, `booking/${created.code}/note`, 'body=two');
    let disabledAt = -1;
    const run = dispatchDue({
      db: w.db,
      secrets: w.secrets,
      render: renderWebhook,
      clock: w.now,
      config: w.config,
      send: async (request) => {
        const response = await postWebhook({ ...request, policy: 'local' });
        if (disabledAt < 0) {
          // The receiver's owner asks for it to stop (a 410 elsewhere, the tenant file, an operator).
          await disableEndpointWithEvent(w.db, {
            endpointId: 'x',
            reason: 'tenant_file',
            now: w.now(),
            event: {
              event: { event_id: 'stop-x', type: 'webhook.disabled', at: w.now(), account_id: 0, data: {} },
              booking_id: 0,
              sequence: 0,
            },
            subscribers: [],
            retentionDays: 30,
          });
          disabledAt = receiver.received.length;
        }
        return response;
      },
    });
    await run;
    expect(disabledAt).toBe(1);
    expect(at('/x')).toHaveLength(1);
  });
});

describe('retention', () => {
  it('keeps a pending delivery (and its event) until its next retry is due', async () => {
    const w = await world({
      webhooks: [{ id: 'slow', url: `${base}/slow`, events: ['booking.*'] }],
      // A retention shorter than the schedule is refused by the tenant schema; this one just outlasts it.
      webhookSettings: { retry_seconds: [345_600], retention_days: 6 },
    });
    receiver.fallback['/slow'] = 500;
    await book(w);
    await drain(w);
    const { rows } = await listDeliveriesOfEndpoint(w.db, { endpointId: 'slow', skip: 0, take: 1 });
    const delivery = rows[0];
    expect(delivery).toMatchObject({ status: 'pending', failures: 1 });
    const { Item: stored } = await w.db.client.send(
      new GetCommand({
        TableName: w.db.tableName,
        Key: webhookDeliveryKey('slow', delivery?.event_at ?? 0, delivery?.event_id ?? ''),
      }),
    );
    const { Item: event } = await w.db.client.send(
      new GetCommand({ TableName: w.db.tableName, Key: webhookEventKey(delivery?.event_id ?? '') }),
    );
    // DynamoDB's TTL deletes a record after `ttl` (Unix seconds): the retry would find nothing to send.
    const nextRetry = Math.floor((delivery?.next_at ?? 0) / 1000);
    expect(stored?.ttl).toBeGreaterThan(nextRetry);
    expect(event?.ttl).toBeGreaterThan(nextRetry);
  });

  it('keeps a replayed event for as long as its replayed delivery is retried', async () => {
    const w = await world({
      webhooks: [{ id: 'late', url: `${base}/late`, events: ['booking.*'] }],
      webhookSettings: { retry_seconds: [86_400, 86_400, 86_400] },
    });
    // An event from 29 days ago (retention: 30 days), replayed today to a receiver that is failing.
    const old = Date.now() - 29 * 86_400_000;
    await putRawEvent(w.db, { id: 'old-event', bookingId: 7, at: old, endpointIds: ['late'] });
    await drain(w);
    receiver.fallback['/late'] = 500;
    const replay = await staffPost(w, 'webhook/late/replay', `since=${Math.floor(old / 1000) - 1}`);
    expect(replay.json.replay.events).toBe(1);
    await drain(w);
    const { rows } = await listDeliveriesOfEndpoint(w.db, { endpointId: 'late', skip: 0, take: 1 });
    expect(rows[0]).toMatchObject({ status: 'pending', event_id: 'old-event' });
    const { Item: event } = await w.db.client.send(
      new GetCommand({ TableName: w.db.tableName, Key: webhookEventKey('old-event') }),
    );
    expect(event?.ttl).toBeGreaterThan(Math.floor((rows[0]?.next_at ?? 0) / 1000));
  });
});

describe('payloads and signatures', () => {
  it('signs unicode payloads so standardwebhooks verifies them, with the event id on every retry', async () => {
    const w = await world({
      webhooks: [
        { id: 'std', url: `${base}/std`, events: ['booking.*'] },
        { id: 'cf', url: `${base}/cf`, events: ['booking.*'], format: 'checkfront' },
      ],
    });
    receiver.script['/std'] = [500];
    receiver.script['/cf'] = [503];
    const name = 'Zoë "Ω" 😀 \u2028 <tag> & done';
    await book(w, { name });
    await drain(w);
    w.ahead.ms += 11_000;
    await drain(w);
    const all = await w.secrets.read();
    for (const [path, id] of [
      ['/std', 'std'],
      ['/cf', 'cf'],
    ] as const) {
      const attempts = at(path);
      expect(attempts).toHaveLength(2);
      expect(attempts[0]?.headers['webhook-id']).toBe(attempts[1]?.headers['webhook-id']);
      const hook = new Webhook(all[id]?.current ?? '');
      for (const attempt of attempts) {
        const payload = hook.verify(attempt.body, attempt.headers as Record<string, string>) as Record<
          string,
          { customer_name?: string; customer?: { name: string } }
        >;
        const sent = id === 'std' ? payload.data : payload.booking;
        expect(JSON.stringify(sent)).toContain(JSON.stringify(name).slice(1, -1));
      }
    }
    const standard = JSON.parse(at('/std')[0]?.body ?? '{}');
    expect(standard.data.event.event_id).toBe(at('/std')[0]?.headers['webhook-id']);
  });

  it('shows the booking as it was at the event, not as the tenant configuration renders it at delivery', async () => {
    const statuses = [
      { status_id: 'PEND', name: 'Pending' },
      { status_id: 'PAID', name: 'Paid' },
      { status_id: 'VOID', name: 'Void' },
    ];
    const webhooks = [{ id: 'down', url: `${base}/down`, events: ['booking.created'] }];
    const w = await world({ webhooks, statuses });
    receiver.script['/down'] = [503];
    const created = await book(w);
    const atEvent = await staffGet(w, `booking/${created.code}`);
    await drain(w);
    // Later the business renames a status; the retry goes out after it.
    const renamed = statuses.map((status) =>
      status.status_id === 'PEND' ? { ...status, name: 'Awaiting deposit' } : status,
    );
    await writeTenant(
      w.db,
      makeTenant(
        makeTenantJson({
          settings: { booking_code_prefix: 'ATK', webhooks: { retry_seconds: [10, 20, 30] } },
          items: [makeItem({ item_id: 1, stock: 500 })],
          webhooks,
          statuses: renamed,
        }),
      ),
      Date.now(),
    );
    w.ahead.ms += 11_000;
    await drain(w);
    const delivered = JSON.parse(at('/down')[1]?.body ?? '{}');
    expect(delivered.data.booking.status_name).toBe(atEvent.json.booking.status_name);
  });
});

describe('safety', () => {
  it('keeps secrets out of responses and logs, even when the receiver echoes the request back', async () => {
    const w = await world({ webhooks: [{ id: 'echo', url: `${base}/echo`, events: ['*'] }] });
    receiver.echo.add('/echo');
    receiver.script['/echo'] = [500];
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    logger.setLogLevel('INFO');
    process.stdout.write = ((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      await book(w);
      await drain(w);
      w.ahead.ms += 11_000;
      await drain(w);
    } finally {
      process.stdout.write = write;
      logger.setLogLevel('SILENT');
    }
    expect(at('/echo')).toHaveLength(2);
    expect(lines.join('')).toContain('webhook attempt');
    const secret = (await w.secrets.read()).echo?.current ?? '';
    const key = secret.slice('whsec_'.length);
    const responses = [
      await staffGet(w, 'webhook'),
      await staffGet(w, 'webhook/echo/delivery'),
      await staffPost(w, 'webhook/echo/enable'),
    ];
    for (const text of [lines.join(''), ...responses.map((response) => JSON.stringify(response.json))]) {
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain(key);
      expect(text).not.toContain(Buffer.from(key, 'base64').toString('hex'));
    }
    // The kept answer is at most 1 KB.
    const deliveries = (await staffGet(w, 'webhook/echo/delivery')).json.deliveries;
    for (const delivery of deliveries) {
      for (const attempt of delivery.attempts)
        expect(Buffer.byteLength(attempt.body)).toBeLessThanOrEqual(1024);
    }
  });

  it('refuses loopback and unspecified targets in every disguise from the deployed stack', async () => {
    const lookupOf =
      (...addresses: string[]): LookupFunction =>
      (_host, _options, callback) =>
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
    const targets: { url: string; lookup?: LookupFunction }[] = [
      { url: `https://0.0.0.0:${port}/x` },
      { url: `https://[::]:${port}/x` },
      { url: `https://0x7f.1:${port}/x` },
      { url: `https://2130706433:${port}/x` },
      { url: `https://017700000001:${port}/x` },
      { url: `https://[::ffff:127.0.0.1]:${port}/x` },
      { url: `https://[0:0:0:0:0:ffff:7f00:1]:${port}/x` },
      { url: `https://[::127.0.0.1]:${port}/x` },
      { url: `https://[64:ff9b::7f00:1]:${port}/x` },
      { url: `https://[::1%25lo]:${port}/x` },
      { url: `https://localhost.:${port}/x`, lookup: lookupOf('127.0.0.1') },
      { url: `https://hooks.test:${port}/x`, lookup: lookupOf('::ffff:7f00:1') },
      { url: `https://hooks.test:${port}/x`, lookup: lookupOf('0.0.0.0') },
      { url: `https://hooks.test:${port}/x`, lookup: lookupOf('127.3.2.1') },
      { url: `https://hooks.test:${port}/x`, lookup: lookupOf('::ffff:a9fe:a9fe') },
      { url: `https://hooks.test:${port}/x`, lookup: lookupOf('fd00:ec2::254') },
      { url: `https://hooks.test:${port}/x`, lookup: lookupOf('10.1.2.3', '127.0.0.1') },
      { url: `http://hooks.test:${port}/x`, lookup: lookupOf('8.8.8.8') },
      { url: `https://user:pw@hooks.test:${port}/x`, lookup: lookupOf('8.8.8.8') },
    ];
    for (const target of targets) {
      const response = await postWebhook({
        url: target.url,
        headers: {},
        body: '{}',
        policy: 'deployed',
        timeoutMs: 2000,
        ...(target.lookup ? { lookup: target.lookup } : {}),
      });
      expect({ url: target.url, outcome: response.outcome }).toEqual({ url: target.url, outcome: 'refused' });
    }
    expect(receiver.received).toEqual([]);
  });

  it('does not follow a redirect, and counts it as a failure', async () => {
    receiver.fallback['/redirect'] = 302;
    const response = await postWebhook({ url: `${base}/redirect`, headers: {}, body: '{}', policy: 'local' });
    expect(response).toMatchObject({ outcome: 'failure', status: 302, error: 'redirect not followed' });
    expect(at('/redirect')).toHaveLength(1);
    expect(at('/moved')).toEqual([]);
  });

  it('answers bad input on the staff routes with 4xx, never 500', async () => {
    const w = await world({ webhooks: [{ id: 'all', url: `${base}/all`, events: ['*'] }] });
    const requests: [string, () => Promise<{ status: number }>][] = [
      [
        'GET delivery page=2147483647&limit=250',
        () => staffGet(w, 'webhook/all/delivery', 'page=2147483647&limit=250'),
      ],
      ['GET delivery page=99999999999', () => staffGet(w, 'webhook/all/delivery', 'page=99999999999')],
      ['GET delivery limit=abc', () => staffGet(w, 'webhook/all/delivery', 'limit=abc')],
      ['GET delivery extra=1', () => staffGet(w, 'webhook/all/delivery', 'extra=1')],
      ['GET delivery of a 500-character id', () => staffGet(w, `webhook/${'a'.repeat(500)}/delivery`)],
      ['GET delivery of ALL%00', () => staffGet(w, 'webhook/ALL%00/delivery')],
      ['POST replay without since', () => staffPost(w, 'webhook/all/replay', '')],
      ['POST replay since=', () => staffPost(w, 'webhook/all/replay', 'since=')],
      ['POST replay since=-1', () => staffPost(w, 'webhook/all/replay', 'since=-1')],
      ['POST replay since=<20270101', () => staffPost(w, 'webhook/all/replay', 'since=%3C20270101')],
      ['POST replay since=99999999999', () => staffPost(w, 'webhook/all/replay', 'since=99999999999')],
      ['POST replay since=20271301', () => staffPost(w, 'webhook/all/replay', 'since=20271301')],
      ['POST replay since twice', () => staffPost(w, 'webhook/all/replay', 'since=1&since=2')],
      ['POST replay since of 41 nines', () => staffPost(w, 'webhook/all/replay', `since=${'9'.repeat(41)}`)],
      ['POST replay of an unknown endpoint', () => staffPost(w, 'webhook/nope/replay', 'since=20270101')],
      ['POST enable of an unknown endpoint', () => staffPost(w, 'webhook/nope/enable')],
      ['POST enable with a parameter', () => staffPost(w, 'webhook/all/enable', 'x=1')],
    ];
    const outcomes: Record<string, number> = {};
    for (const [label, request] of requests) outcomes[label] = (await request()).status;
    const failing = Object.entries(outcomes).filter(([, status]) => status >= 500 || status < 200);
    expect(failing).toEqual([]);
  });
});

describe('tenant file', () => {
  it('keeps delivery history and the disabled state when endpoints are removed, re-added and changed', async () => {
    const w = await world({ webhooks: [{ id: 'keep', url: `${base}/keep`, events: ['*'] }] });
    receiver.script['/keep'] = [410];
    await book(w);
    await drain(w);
    expect(await getEndpoint(w.db, 'keep')).toMatchObject({ active: false, disabled_reason: 'gone' });
    const load = (webhooks: Record<string, unknown>[]) =>
      writeTenant(
        w.db,
        makeTenant(
          makeTenantJson({
            settings: { booking_code_prefix: 'ATK' },
            items: [makeItem({ item_id: 1, stock: 500 })],
            webhooks,
          }),
        ),
        Date.now(),
      );
    await load([]);
    await load([{ id: 'keep', url: `${base}/keep2`, events: ['booking.*'], enabled: false }]);
    await load([{ id: 'keep', url: `${base}/keep2`, events: ['booking.*'] }]);
    // A 410 is lifted by `enable` only, whatever the file does meanwhile.
    expect(await getEndpoint(w.db, 'keep')).toMatchObject({
      active: false,
      disabled_reason: 'gone',
      url: `${base}/keep2`,
    });
    const { rows } = await listDeliveriesOfEndpoint(w.db, { endpointId: 'keep', skip: 0, take: 10 });
    expect(rows.map((row) => row.status)).toEqual(['failed']);
    await book(w);
    await drain(w);
    expect(at('/keep2')).toEqual([]);
  });
});
