import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createDispatcher } from '#functions/webhooks/job.ts';
import { renderWebhook } from '#functions/webhooks/render.ts';
import { webhookDeliveryKey, webhookEventKey } from '#lib/kernel/storage/keys.ts';
import { listDeliveriesOfEndpoint } from '#lib/webhooks/delivery-repository.ts';
import { type DispatchDeps, dispatchDue } from '#lib/webhooks/dispatch.ts';
import { disableEndpointWithEvent, getEndpoint } from '#lib/webhooks/endpoint-repository.ts';
import { postWebhook } from '#lib/webhooks/send.ts';
import { testDeps } from '#test/support/deps.ts';
import { invoke, testContext } from '#test/support/events.ts';
import {
  at,
  base,
  book,
  drain,
  inChunks,
  putRawEvent,
  receiver,
  setUpWebhookAttacksWorld,
  staffGet,
  staffPost,
  typeOf,
  world,
} from '#test/support/webhook-attacks-world.ts';

// Adversarial tests of webhook delivery (issue 12): liveness, duplicates, order, replay, endpoint state and
// retention. The receiver, the worlds and the findings: test/support/webhook-attacks-world.ts.

setUpWebhookAttacksWorld();

/** The dispatcher's dependencies over a world, as its scheduled job makes them, with `overrides` on top. */
const dispatchDepsOf = (
  w: Awaited<ReturnType<typeof world>>,
  overrides: Partial<DispatchDeps> = {},
): DispatchDeps => ({
  db: w.db,
  secrets: w.secrets,
  render: renderWebhook,
  clock: w.now,
  random: () => 0.5,
  send: (request) => postWebhook({ ...request, policy: 'local' }),
  config: w.config,
  ...overrides,
});

describe('liveness and duplicates', () => {
  // The 100 bookings of the finding filled the dispatcher's batch of 100 with deliveries held behind their
  // retries; a batch of 10 (the dispatcher's option) is filled the same way by 10 bookings, still more
  // booking groups than one run works at once (8).
  it('keeps delivering to a healthy endpoint while another one is down with a full batch of bookings held behind their retries', async () => {
    const w = await world({
      webhooks: [
        { id: 'down', url: `${base}/down`, events: ['booking.*'] },
        { id: 'up', url: `${base}/up`, events: ['booking.*'] },
      ],
    });
    receiver.fallback['/down'] = 503;
    const batch = 10;
    const dispatch = () => dispatchDue(dispatchDepsOf(w, { batch }));
    // An outage of `down`: a batch of bookings each change twice (say booking.created, then payment.created).
    const start = Date.now() - 60_000;
    const bookings = Array.from({ length: batch }, (_, index) => index + 1);
    await inChunks(bookings, 25, (id) =>
      putRawEvent(w.db, { id: `first-${id}`, bookingId: id, at: start + id, endpointIds: ['down'] }),
    );
    await inChunks(bookings, 25, (id) =>
      putRawEvent(w.db, { id: `second-${id}`, bookingId: id, at: start + 1000 + id, endpointIds: ['down'] }),
    );
    // The first events: each refused, retried in 10 s (the second events are past the batch).
    expect(await dispatch()).toMatchObject({ due: batch, failed: batch });
    // The second events: each held behind its booking's first.
    expect(await dispatch()).toMatchObject({ due: batch, deferred: batch });
    // A new change that only the healthy endpoint subscribes to.
    await putRawEvent(w.db, { id: 'fresh', bookingId: 500, at: Date.now(), endpointIds: ['up'] });
    for (let run = 0; run < 5; run += 1) await dispatch();
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
    const deps = dispatchDepsOf(w, {
      config: async () => {
        listed();
        await aDone;
        return w.config();
      },
    });
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
    const client = new Proxy(w.db.documents, {
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
      db: { ...w.db, documents: client },
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

/** A world with an endpoint `all` of every event, and a disabled one of every event named `id`. */
const worldWithDisabled = (id: string) =>
  world({
    webhooks: [
      { id: 'all', url: `${base}/all`, events: ['*'] },
      { id, url: `${base}/${id}`, events: ['*'], enabled: false },
    ],
  });

describe('replay', () => {
  // A replay lists 1,000 events a call; the route here lists 10, so 25 events fill the month more than
  // twice over (a thousand events written first took a minute on two shared cores). A few events share
  // each second, fewer than a page: the operator's next_since is a second, and events of that second come
  // again on the next call, as the route documents.
  it('reaches events of the month before when the current month already holds more than a page of events', async () => {
    const w = await worldWithDisabled('other');
    const handlers = createAllHandlers({ ...testDeps(w.db), replayPageSize: 10 });
    const now = new Date();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const newer = Array.from({ length: 25 }, (_, index) => index);
    await inChunks(newer, 25, (index) =>
      putRawEvent(w.db, {
        id: `new-${index}`,
        bookingId: 1,
        at: monthStart + 1 + index * 300,
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
    let calls = 0;
    for (let truncated = true; truncated && calls < 10; calls += 1) {
      const replay = await invoke(
        handlers.admin,
        {
          method: 'POST',
          path: 'webhook/all/replay',
          body: `since=${since}`,
          contentType: 'application/x-www-form-urlencoded',
          headers: { authorization: w.staff },
        },
        testContext(60_000),
      );
      expect(replay.status).toBe(200);
      truncated = replay.json.replay.truncated === 1;
      if (truncated) since = replay.json.replay.next_since;
    }
    const { rows } = await listDeliveriesOfEndpoint(w.db, { endpointId: 'all', skip: 0, take: 100 });
    const queued = new Set(rows.map((row) => row.event_id));
    expect({ queued: queued.size, pagedOver: calls > 3 }).toEqual({ queued: 28, pagedOver: true });
    expect(older.filter((id) => !queued.has(id))).toEqual([]);
  });
});

describe('endpoint state', () => {
  it('delivers new events to an endpoint that staff enabled (the enable route says it resumes deliveries)', async () => {
    const w = await worldWithDisabled('off');
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
    const { Item: stored } = await w.db.documents.send(
      new GetCommand({
        TableName: w.db.tableName,
        Key: webhookDeliveryKey('slow', delivery?.event_at ?? 0, delivery?.event_id ?? ''),
      }),
    );
    const { Item: event } = await w.db.documents.send(
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
    const { Item: event } = await w.db.documents.send(
      new GetCommand({ TableName: w.db.tableName, Key: webhookEventKey('old-event') }),
    );
    expect(event?.ttl).toBeGreaterThan(Math.floor((rows[0]?.next_at ?? 0) / 1000));
  });
});
