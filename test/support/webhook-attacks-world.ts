import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createDispatcher } from '#functions/webhooks/job.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import type { StoredConfig } from '#lib/config/model.ts';
import { getConfig } from '#lib/config/repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { webhookEventActions } from '#lib/webhooks/outbox.ts';
import { createFileSecretStore, type WebhookSecretStore } from '#lib/webhooks/secret-store.ts';
import { ensureEndpointSecrets } from '#lib/webhooks/secrets.ts';
import { testDeps } from './deps.ts';
import { createTestDb } from './dynamo.ts';
import { invoke, staffBasic, testContext } from './events.ts';
import { sessionClient, sessionOf } from './session.ts';
import { makeItem, makeTenant, makeTenantJson } from './tenant.ts';

// The world of the adversarial webhook tests (test/integration/webhook-attacks-*.test.ts): a loopback
// receiver shared by a file's tests, and a table of its own for each test (`world`).
//
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

export let receiver: ReturnType<typeof startReceiver>;
export let base = '';
export let port = 0;
export const at = (path: string) => receiver.received.filter((entry) => entry.path === path);
export const typeOf = (entry: Received) => (JSON.parse(entry.body) as { type: string }).type;

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

export const day = addDays(todayIn('America/Toronto', Date.now()), 20);

/** The folders of this file's worlds' secret stores, removed after its tests. */
const secretDirs: string[] = [];

/** A table with a tenant subscribing the given endpoints, their secrets, a staff credential and a local dispatcher. */
export async function world(options: {
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
  const secretDir = mkdtempSync(join(tmpdir(), 'webhook-attacks-'));
  secretDirs.push(secretDir);
  const secrets = createFileSecretStore(join(secretDir, 'secrets.json'));
  await ensureEndpointSecrets(
    secrets,
    tenant.webhooks.map((webhook) => webhook.id),
  );
  const staff = await staffBasic(db, { label: 'desk' });
  const ahead = { ms: 0 };
  const now = () => Date.now() + ahead.ms;
  return {
    db,
    secrets,
    handlers: createAllHandlers(testDeps(db)),
    staff,
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
export const drain = async (w: World, runs = 20) => {
  for (let run = 0; run < runs; run += 1) {
    if ((await w.dispatch()).due === 0) return;
  }
};

export const book = async (w: World, options: { name?: string; slip?: string } = {}) => {
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

// A staff action here may replay a thousand events: on a DynamoDB Local shared with other test files that
// can outlast the 10 s a request is given by default, and middy's early timeout would answer 500.
export const staffPost = (w: World, path: string, body = '') =>
  invoke(
    w.handlers[resolveGroup('POST', `/api/3.0/${path}`).group],
    {
      method: 'POST',
      path,
      body,
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization: w.staff },
    },
    testContext(60_000),
  );

export const staffGet = (w: World, path: string, query?: string) =>
  invoke(w.handlers[resolveGroup('GET', `/api/3.0/${path}`).group], {
    path,
    ...(query ? { query } : {}),
    headers: { authorization: w.staff },
  });

/** Writes an event (not through a booking change) with pending deliveries to the given endpoints. */
export const putRawEvent = (
  db: Db,
  options: { id: string; bookingId: number; at: number; endpointIds: string[]; type?: string },
) =>
  db.documents.send(
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
export const inChunks = async <T>(values: T[], width: number, work: (value: T) => Promise<unknown>) => {
  for (let start = 0; start < values.length; start += width) {
    await Promise.all(values.slice(start, start + width).map(work));
  }
};

/** Starts the file's receiver before its tests, forgets what it received and was told before each. */
export function setUpWebhookAttacksWorld(): void {
  beforeAll(async () => {
    receiver = startReceiver();
    await new Promise<void>((done) => receiver.server.listen(0, '127.0.0.1', done));
    port = (receiver.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await new Promise<void>((done) => receiver.server.close(() => done()));
    for (const dir of secretDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    receiver.received.length = 0;
    for (const record of [receiver.script, receiver.fallback]) {
      for (const path of Object.keys(record)) delete record[path];
    }
    receiver.echo.clear();
  });
}
