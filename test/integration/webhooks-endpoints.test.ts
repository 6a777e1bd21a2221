import { readFileSync, statSync } from 'node:fs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createAdminHandler } from '#functions/admin/app.ts';
import { ADMIN_UPDATES } from '#infra/constructs/functions.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { listDeliveriesOfEndpoint } from '#lib/webhooks/delivery-repository.ts';
import { disableEndpointWithEvent, getEndpoint } from '#lib/webhooks/endpoint-repository.ts';
import { webhookEventActions } from '#lib/webhooks/outbox.ts';
import { ensureEndpointSecrets } from '#lib/webhooks/secrets.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { makeTenant, makeTenantJson } from '#test/support/tenant.ts';
import {
  at,
  book,
  db,
  drain,
  handlers,
  receiver,
  secrets,
  secretsFile,
  setUpWebhooksWorld,
  staff,
  staffPost,
} from '#test/support/webhooks-world.ts';

// Webhook endpoints: their secrets, how a tenant load makes and retires them, and the staff routes over
// them. The world: test/support/webhooks-world.ts.

/**
 * How far the file's clock (the handlers' and the dispatcher's) runs ahead of the wall clock: a test moves
 * it on to pass retry delays or to start a second, and it never goes back, so no event is dated after one
 * that followed it.
 */
let ahead = 0;
const now = () => Date.now() + ahead;
setUpWebhooksWorld(now, { handlersOnClock: true });

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

/**
 * Moves the file's clock on to the next whole second and returns it (Unix seconds): every event so far is
 * dated before it, every event from here on at or after it.
 */
const nextSecond = () => {
  const second = Math.floor(now() / 1000) + 1;
  ahead += second * 1000 - now();
  return second;
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
    await own.documents.send(
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

describe('webhook staff routes', () => {
  const staffGet = (path: string, query?: string, authorization = staff) =>
    invoke(handlers.admin, { path, ...(query ? { query } : {}), headers: { authorization } });

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
    expect((await invoke(handlers.admin, { path: 'webhook' })).status).toBe(401);
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
    // A booking in the second before `since` is not replayed.
    await book();
    await drain();
    const since = nextSecond();
    const before = at('/all').length;
    await book();
    await drain();
    const first = at('/all')
      .slice(before)
      .map((entry) => entry.headers['webhook-id']);
    expect(first).toHaveLength(1);
    const replay = await staffPost('webhook/all/replay', `since=${since}`);
    expect(replay.status).toBe(200);
    expect(replay.json.replay).toMatchObject({ since, events: 1, truncated: 0 });
    await drain();
    const ids = at('/all')
      .slice(before)
      .map((entry) => entry.headers['webhook-id']);
    expect(ids).toEqual([first[0], first[0]]);
    expect((await staffPost('webhook/all/replay', 'since=soon')).json.request.error.id).toBe(
      'validation_error',
    );
    const off = await staffPost('webhook/off/replay', `since=${since}`);
    expect(off.status).toBe(409);
    expect(off.json.request.error.id).toBe('invalid_status');
  });

  it('enables a disabled endpoint: it gets new events, and what it missed only by a replay', async () => {
    const since = nextSecond();
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

describe('the admin function (issue 43: the customers and webhook endpoints out of the bookings function)', () => {
  it('reads, and updates only the records its grant names (ADMIN_UPDATES), on every route it serves', async () => {
    const sent: { command: string; key?: Record<string, unknown> }[] = [];
    // The same table, each command recorded as the admin function sends it.
    const documents = new Proxy(db.documents, {
      get(target, name, receiver) {
        if (name !== 'send') return Reflect.get(target, name, receiver);
        return (command: { constructor: { name: string }; input: { Key?: Record<string, unknown> } }) => {
          sent.push({ command: command.constructor.name, key: command.input.Key });
          return target.send(command as never);
        };
      },
    });
    const admin = createAdminHandler(testDeps({ ...db, documents }, { clock: now }));
    const { booking_id } = await book();
    await drain();
    const booked = await invoke(handlers.bookings, {
      path: `booking/${booking_id}`,
      headers: { authorization: staff },
    });
    const { customer_id } = booked.json.booking as { customer_id: number };
    const since = Math.floor(now() / 1000) - 60;
    const call = (method: 'GET' | 'POST', path: string, input = '') =>
      invoke(admin, {
        method,
        path,
        ...(method === 'POST'
          ? { body: input, contentType: 'application/x-www-form-urlencoded' }
          : { query: input }),
        headers: { authorization: staff },
      });
    for (const [method, path, input] of [
      ['GET', 'webhook', ''],
      ['GET', 'webhook/all/delivery', 'limit=5'],
      ['POST', 'webhook/all/replay', `since=${since}`],
      ['POST', 'webhook/flaky/enable', ''],
      ['GET', 'customer', 'customer_email=ada@example.com'],
      ['GET', `customer/${customer_id}`, ''],
    ] as const) {
      const answer = await call(method, path, input);
      expect(answer.status, `${method} ${path} ${JSON.stringify(answer.json.request?.error)}`).toBe(200);
    }
    const writes = sent.filter(({ command }) => !/^(Get|Query|BatchGet)Command$/.test(command));
    // Replayed, enabled, and the caller's records: writes happened, each an allowed update.
    expect(writes.some(({ key }) => String(key?.pk).startsWith('WEBHOOK#'))).toBe(true);
    const allowed = ADMIN_UPDATES.map((pattern) => new RegExp(`^${pattern.replace('*', '.*')}$`));
    for (const { command, key } of writes) {
      expect(command, JSON.stringify(key)).toBe('UpdateCommand');
      expect(
        allowed.some((pattern) => pattern.test(String(key?.pk))),
        `${String(key?.pk)} is not in ${ADMIN_UPDATES.join(', ')}`,
      ).toBe(true);
    }
  });
});
