import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createDispatcher } from '#functions/webhooks/job.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createFileSecretStore, type WebhookSecretStore } from '#lib/webhooks/secret-store.ts';
import { ensureEndpointSecrets } from '#lib/webhooks/secrets.ts';
import { testDeps } from './deps.ts';
import { createTestDb } from './dynamo.ts';
import { invoke, staffBasic } from './events.ts';
import { sessionClient, sessionOf } from './session.ts';
import { makeItem, makeTenant, makeTenantJson } from './tenant.ts';

// The world of the webhook tests (test/integration/webhooks-*.test.ts): a loopback receiver, a tenant with
// four endpoints (all events, a checkfront one, a flaky one, a disabled one), their secrets in a file, a
// staff credential and a local dispatcher.

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

export let db: Db;
export let handlers: ReturnType<typeof createAllHandlers>;
export let receiver: ReturnType<typeof startReceiver>;
export let secrets: WebhookSecretStore;
export let secretsFile: string;
export let staff: string;
let dispatch: ReturnType<typeof createDispatcher>;
export const day = addDays(todayIn('America/Toronto', Date.now()), 20);

export const verifier = async (endpointId: string) => {
  const secret = (await secrets.read())[endpointId]?.current ?? '';
  return new Webhook(secret);
};
export const at = (path: string) => receiver.received.filter((entry) => entry.path === path);

export const book = async (options: { qty?: number } = {}) => {
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

export const staffPost = (path: string, body = '') =>
  invoke(handlers[resolveGroup('POST', `/api/3.0/${path}`).group], {
    method: 'POST',
    path,
    body,
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization: staff },
  });

/** Runs the dispatcher until nothing is due; what the runs did, summed (the Lambda's metrics count these). */
export const drain = async () => {
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

/**
 * Sets the world up before the file's tests; before each, drains what is due and forgets what the receiver
 * got. The dispatcher runs on the file's clock, which a test moves ahead to pass retry delays; the handlers
 * run on it too with `handlersOnClock` (events dated by it), else on the wall clock.
 */
export function setUpWebhooksWorld(clock: () => number, options: { handlersOnClock?: boolean } = {}): void {
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
    staff = await staffBasic(db, { label: 'desk' });
    handlers = createAllHandlers(testDeps(db, options.handlersOnClock ? { clock } : {}));
    dispatch = createDispatcher({ db, secrets, policy: 'local', clock, random: () => 0.5 });
  });

  afterAll(async () => {
    await new Promise<void>((done) => receiver.server.close(() => done()));
    if (secretsFile) rmSync(dirname(secretsFile), { recursive: true, force: true });
  });

  beforeEach(async () => {
    await drain();
    receiver.received.length = 0;
    for (const path of Object.keys(receiver.script)) delete receiver.script[path];
  });
}
