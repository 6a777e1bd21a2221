import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { basic, readJson } from '#test/support/events.ts';
import {
  liveInGroup,
  liveNaming,
  type RunningService,
  startService,
  stopService,
} from '#test/support/local-runner.ts';
import { type Arrival, startReceiver } from '#test/support/webhook-receiver.ts';

// The "How it will be checked" for webhooks, against a real `npm start` (its own DynamoDB Local
// under DATA_DIR): a receiver on the loopback subscribed through a copy of the demo tenant file.

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/** Waits (bounded in time) until `check` gives something truthy, checking every `everyMs`. */
async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'webhooks-e2e-'));
const admin = { key: 'webhooks-e2e-admin', secret: 'webhooks-e2e-secret-long-enough' };
const staff = basic(admin.key, admin.secret);
const receiver = startReceiver();
let service: RunningService | undefined;
let secret = '';
/** Unix seconds before the first booking: where the replay starts. */
let since = 0;
let code = '';

const env = (receiverPort: number) => {
  const tenant = JSON.parse(readFileSync('infra/tenants/demo.json', 'utf8')) as Record<string, any>;
  tenant.$schema = undefined;
  tenant.webhooks = [{ id: 'desk', url: `http://127.0.0.1:${receiverPort}/hook`, events: ['*'] }];
  tenant.settings.webhooks = { retry_seconds: [1, 1, 2, 2, 3] };
  const tenantFile = join(dataDir, 'tenant.json');
  writeFileSync(tenantFile, `${JSON.stringify(tenant, null, 2)}\n`);
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    TENANT_FILE: tenantFile,
    ADMIN_API_KEY: admin.key,
    ADMIN_API_SECRET: admin.secret,
    WEBHOOK_INTERVAL_MS: '250',
    // Its own DynamoDB Local under DATA_DIR, whatever the shell running the tests says.
    DYNAMODB_ENDPOINT: '',
    TABLE_NAME: '',
    WEBHOOK_SECRETS_ARN: '',
  };
};
let serviceEnv: Record<string, string> = {};

/** `npm run webhooks -- ...` on the running service's DATA_DIR, without blocking the receiver. */
const webhooksCli = async (...args: string[]): Promise<string> => {
  const { stdout } = await run('npm', ['run', '--silent', 'webhooks', '--', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...serviceEnv },
    timeout: 30_000,
  });
  return stdout;
};

const base = () => service?.base ?? '';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const post = (path: string, fields: Record<string, string>, authorization?: string) =>
  fetch(`${base()}/${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization ? { authorization } : {}),
    },
    body: form(fields),
  });

/** Books a kayak about 30 days ahead as a widget would: rate, add the SLIP to a session, create. */
const book = async (): Promise<string> => {
  const day = addDays(todayIn('America/Toronto', Date.now()), 30);
  const rated = await readJson(await fetch(`${base()}/item/3?date=${day}&param[qty]=1`));
  const slip = rated.item?.rate?.slip as string | undefined;
  expect(slip, JSON.stringify(rated)).toBeTruthy();
  const session = await readJson(await post('booking/session', { 'slip[]': slip ?? '' }));
  const sessionId = session.booking?.session?.id as string | undefined;
  expect(sessionId, JSON.stringify(session)).toBeTruthy();
  const created = await post('booking/create', {
    session_id: sessionId ?? '',
    'form[customer_name]': 'Ada Lovelace',
    'form[customer_email]': 'ada@example.com',
  });
  const json = await readJson(created);
  expect(created.status, JSON.stringify(json)).toBe(200);
  return json.booking.code as string;
};

const staffPost = async (path: string, fields: Record<string, string>) => {
  const response = await post(path, fields, staff);
  const json = await readJson(response);
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json;
};

const verify = (arrival: Arrival) =>
  new Webhook(secret).verify(arrival.body, arrival.headers) as {
    type: string;
    data: { event: { event_id: string; type: string }; booking: { code: string } };
  };

/** The webhook-ids in the order they first arrived. */
const firstIds = (arrivals: Arrival[]) => [...new Set(arrivals.map((arrival) => arrival.id))];
const accepted = (id: string) => receiver.arrivals.filter((a) => a.id === id && a.status === 200);

beforeAll(async () => {
  await new Promise<void>((done) => receiver.server.listen(0, '127.0.0.1', done));
  serviceEnv = env((receiver.server.address() as AddressInfo).port);
  service = await startService(serviceEnv);
  expect(service.output()).toContain('webhook secrets created for desk');
  secret = (await webhooksCli('secret', 'desk')).trim().split('\n')[0] ?? '';
  expect(secret).toMatch(/^whsec_/);
}, 120_000);

afterAll(async () => {
  const stopped = service ? await stopService(service) : true;
  receiver.server.closeAllConnections();
  await new Promise<void>((done) => receiver.server.close(() => done()));
  // DATA_DIR holds DynamoDB Local's files: kept only when something may still use it.
  if (stopped) rmSync(dataDir, { recursive: true, force: true });
});

describe('webhooks through npm start', () => {
  it('sends every booking change signed so standardwebhooks verifies it, each booking in order', {
    timeout: 30_000,
  }, async () => {
    since = Math.floor(Date.now() / 1000) - 1;
    code = await book();
    await staffPost(`booking/${code}/note`, { body: 'Arriving by canoe' });
    await staffPost(`booking/${code}/update`, { status_id: 'HOLD' });

    const ofBooking = await waitFor('three events of the booking', () => {
      const arrivals = receiver.arrivals.filter((arrival) => arrival.code === code);
      return firstIds(arrivals).length >= 3 && arrivals;
    });
    expect(ofBooking.map((arrival) => arrival.type)).toEqual([
      'booking.created',
      'booking.note_added',
      'booking.status_changed',
    ]);
    for (const arrival of ofBooking) {
      expect(arrival.status).toBe(200);
      const payload = verify(arrival);
      expect(payload.data.event.event_id).toBe(arrival.id);
      expect(payload.data.event.type).toBe(arrival.type);
      expect(payload.data.booking.code).toBe(code);
    }
    expect(() =>
      new Webhook(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`).verify(
        ofBooking[0]?.body ?? '',
        ofBooking[0]?.headers ?? {},
      ),
    ).toThrow();
  });

  it('retries a refused delivery with the same webhook-id until the receiver takes it', {
    timeout: 30_000,
  }, async () => {
    const before = receiver.arrivals.length;
    receiver.state.answer = (arrival) =>
      arrival.type === 'booking.note_added' && arrival.attempt <= 2 ? 500 : 200;
    try {
      await staffPost(`booking/${code}/note`, { body: 'Needs a second paddle' });
      const attempts = await waitFor('a note refused twice, then accepted', () => {
        const notes = receiver.arrivals
          .slice(before)
          .filter((arrival) => arrival.type === 'booking.note_added');
        return notes.some((arrival) => arrival.status === 200) && notes;
      });
      expect(attempts.map((arrival) => arrival.status)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((arrival) => arrival.id)).size).toBe(1);
      for (const arrival of attempts) expect(verify(arrival).data.event.event_id).toBe(arrival.id);
      // The retry schedule says 1 s (±10 %) after each refusal, counted from when the attempt began.
      const gaps = attempts.slice(1).map((arrival, index) => arrival.at - (attempts[index]?.at ?? 0));
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(600);
      const line = (await webhooksCli('deliveries', 'desk'))
        .split('\n')
        .find((l) => l.startsWith(attempts[0]?.id ?? '?'));
      expect(line).toMatch(/delivered {2}attempts \[\S+ 500, \S+ 500, \S+ 200\]/);
    } finally {
      receiver.state.answer = () => 200;
    }
  });

  it('delivers what was pending when the service was killed with SIGKILL once it is started again', {
    timeout: 60_000,
  }, async () => {
    const running = service as RunningService;
    const pid = running.child.pid as number;
    const before = receiver.arrivals.length;
    receiver.state.answer = () => 503;
    await staffPost(`booking/${code}/update`, { status_id: 'PAID' });
    const first = await waitFor('a refused status change', () =>
      receiver.arrivals.slice(before).find((arrival) => arrival.type === 'booking.status_changed'),
    );
    const id = first.id;
    // Kill between two attempts, not while one is in flight (an attempt cut short holds its delivery for
    // the 30 s lease, by design): once the service has recorded every refusal the receiver gave as a
    // failure of a delivery still pending, and well before the next retry (>= 0.9 s after the last one
    // began). Read through the API, not the webhooks CLI: a tsx process takes seconds on a busy machine,
    // while the whole retry schedule is 9 s (the CLI's lines are checked in the retry test above).
    const refusals = () => receiver.arrivals.filter((arrival) => arrival.id === id);
    await waitFor(
      'a moment between two attempts',
      async () => {
        const sent = refusals();
        const response = await fetch(`${base()}/webhook/desk/delivery?limit=50`, {
          headers: { authorization: staff },
        });
        const { deliveries } = await readJson(response);
        const delivery = (deliveries as { event_id: string; status: string; failures: number }[]).find(
          (entry) => entry.event_id === id,
        );
        return (
          delivery?.status === 'pending' &&
          delivery.failures >= 1 &&
          delivery.failures === sent.length &&
          Date.now() - (sent.at(-1)?.at ?? 0) < 500
        );
      },
      10_000,
      40,
    );
    process.kill(-pid, 'SIGKILL');
    await waitFor('the killed group to be gone', () => liveInGroup(pid).length === 0, 10_000);
    await waitFor(
      'no DynamoDB Local left on DATA_DIR',
      () => liveNaming(join(dataDir, 'dynamodb')).length === 0,
      10_000,
    );
    service = undefined;
    const refused = refusals();
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.every((arrival) => arrival.status === 503)).toBe(true);

    receiver.state.answer = () => 200;
    const restartedAt = Date.now();
    service = await startService(serviceEnv);
    const arrived = await waitFor('the pending status change after the restart', () => accepted(id)[0]);
    expect(arrived.at).toBeGreaterThanOrEqual(restartedAt);
    expect(arrived.attempt).toBe(refused.length + 1);
    const payload = verify(arrived);
    expect(payload).toMatchObject({ type: 'booking.status_changed', data: { booking: { code } } });
    expect(payload.data.event.event_id).toBe(id);
  });

  it('replays what happened since a time with the same event ids', { timeout: 30_000 }, async () => {
    const earlier = firstIds(receiver.arrivals);
    const counts = new Map(earlier.map((id) => [id, accepted(id).length]));
    const output = await webhooksCli('replay', 'desk', String(since));
    expect(output).toContain(`${earlier.length} events queued again for desk`);
    await waitFor('every earlier event again', () =>
      earlier.every((id) => accepted(id).length > (counts.get(id) ?? 0)),
    );
    const ofBooking = receiver.arrivals.filter((arrival) => arrival.code === code && arrival.status === 200);
    const replayed = ofBooking.filter((arrival) => accepted(arrival.id).indexOf(arrival) > 0);
    // The same events again, by id; a first delivery that needed a retry arrived after a later event, so
    // the first arrivals' order is not the events' order, and only the ids are compared.
    expect([...new Set(replayed.map((arrival) => arrival.id))].sort()).toEqual([...earlier].sort());
    for (const arrival of replayed) expect(verify(arrival).data.event.event_id).toBe(arrival.id);
  });

  it('stops cleanly', { timeout: 30_000 }, async () => {
    const running = service as RunningService;
    expect(await stopService(running)).toBe(true);
    service = undefined;
    expect(liveNaming(join(dataDir, 'dynamodb'))).toEqual([]);
  });
});
