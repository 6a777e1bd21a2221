import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, inject } from 'vitest';
import { basic, readJson } from '#test/support/events.ts';
import { type FileService, setUpService } from '#test/support/local-runner.ts';
import { startReceiver } from '#test/support/webhook-receiver.ts';

// The world of the issue 41 review's HTTP attacks: `npm start` (the local runner) with a copy of the demo
// tenant whose channels read feeds from a server of the test's own, and a webhook receiver subscribed to
// every event. Everything is driven over HTTP or through the project's CLIs, as an adversary would.

const run = promisify(execFile);

/** What the feed server answers for one feed: a body (200), or a status without one; after `delayMs`. */
export interface FeedAnswer {
  body?: string;
  status?: number;
  delayMs?: number;
}

/** A feed server on the loopback: `feeds[name]` is what `/<anything>/<name>.ics` answers. */
export async function startFeedServer() {
  const feeds: Record<string, FeedAnswer> = {};
  const server: Server = createServer((request, response) => {
    const name =
      (request.url ?? '')
        .split('?')[0]
        ?.split('/')
        .pop()
        ?.replace(/\.ics$/, '') ?? '';
    const answer = feeds[name];
    setTimeout(() => {
      if (!answer || answer.body === undefined) {
        response.writeHead(answer?.status ?? 404, { 'content-type': 'text/plain' });
        response.end('no calendar here');
        return;
      }
      response.writeHead(answer.status ?? 200, { 'content-type': 'text/calendar; charset=utf-8' });
      response.end(answer.body);
    }, answer?.delayMs ?? 0);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const port = (server.address() as AddressInfo).port;
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));
  // Secrets in the path and the query, as Google and Airbnb put them.
  const urlOf = (name: string) =>
    `http://127.0.0.1:${port}/calendar/private-s3cr3tp4th${name}/basic/${name}.ics?s=s3cr3tqu3ry`;
  return { feeds, urlOf };
}

/** The staff credential of the review's runner. */
export const ADMIN = { key: 'review41-admin', secret: 'review41-admin-secret-long-enough' };
export const STAFF = { authorization: basic(ADMIN.key, ADMIN.secret) };

/** A channel of the review tenant: its id and the demo item it blocks. */
export interface ReviewChannel {
  id: string;
  item_id: number;
}

/**
 * Starts the local runner with the demo tenant, `channels` reading the feed server (each feed named after
 * its channel), a receiver subscribed to every event, and `settings` merged over the demo's.
 */
export async function setUpChannelWorld(
  name: string,
  options: {
    channels: ReviewChannel[];
    settings?: Record<string, unknown>;
    edit?: (tenant: Record<string, any>) => void;
    env?: Record<string, string>;
  },
) {
  const feeds = await startFeedServer();
  const receiver = startReceiver();
  await new Promise<void>((listening) => receiver.server.listen(0, '127.0.0.1', listening));
  afterAll(() => new Promise<void>((closed) => receiver.server.close(() => closed())));
  const receiverPort = (receiver.server.address() as AddressInfo).port;

  const tenant = JSON.parse(readFileSync('infra/tenants/demo.json', 'utf8')) as Record<string, any>;
  tenant.$schema = undefined;
  tenant.settings = { ...tenant.settings, webhooks: { retry_seconds: [1, 1, 2] }, ...options.settings };
  tenant.webhooks = [{ id: 'desk', url: `http://127.0.0.1:${receiverPort}/hook`, events: ['*'] }];
  tenant.channels = options.channels.map((channel) => ({
    ...channel,
    url: feeds.urlOf(channel.id),
    name: `Channel ${channel.id}`,
  }));
  options.edit?.(tenant);
  const tenantFile = join(mkdtempSync(join(tmpdir(), `${name}-tenant-`)), 'tenant.json');
  writeFileSync(tenantFile, `${JSON.stringify(tenant, null, 2)}\n`);
  // The runner reads it once, as it starts.
  afterAll(() => rmSync(dirname(tenantFile), { recursive: true, force: true }));

  const service: FileService = setUpService(name, {
    TENANT_FILE: tenantFile,
    ADMIN_API_KEY: ADMIN.key,
    ADMIN_API_SECRET: ADMIN.secret,
    WEBHOOK_INTERVAL_MS: '250',
    WEBHOOK_SECRETS_ARN: '',
    // Rounds run only when a test asks for one (sync-now or the CLI).
    CHANNEL_SYNC_INTERVAL_MS: '86400000',
    // The loopback is the proxy, so X-Forwarded-For names each pretend guest.
    TRUSTED_PROXIES: '127.0.0.1',
    ...options.env,
  });

  const api = (path: string, init: RequestInit = {}) => fetch(`${service.base}/${path}`, init);
  const staff = async (path: string, method = 'GET') => {
    const response = await api(path, { method, headers: STAFF });
    return { status: response.status, headers: response.headers, json: await readJson(response) };
  };
  /**
   * One round of every enabled channel, as `npm run channels -- sync` runs it against the runner's table
   * (in a process of its own, so the receiver here keeps answering meanwhile). Answers its output.
   */
  const round = async (...args: string[]): Promise<string> => {
    const env = {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TABLE_NAME: service.tableName,
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    };
    try {
      const cli = ['infra/cli/channels.ts', 'sync', ...args];
      return (await run('node_modules/.bin/tsx', cli, { encoding: 'utf8', timeout: 120_000, env })).stdout;
    } catch (error) {
      // It exits 1 when a channel failed: its lines say which.
      return String((error as { stdout?: string }).stdout ?? error);
    }
  };
  return { service, feeds, receiver, api, staff, round };
}

/** YYYYMMDD of the date `days` after today in the demo's zone (UTC is close enough this far out). */
export const dayAhead = (days: number): string =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');

/** The day after a YYYYMMDD date. */
export const nextDay = (ymd: string): string =>
  new Date(Date.UTC(+ymd.slice(0, 4), +ymd.slice(4, 6) - 1, +ymd.slice(6, 8) + 1))
    .toISOString()
    .slice(0, 10)
    .replaceAll('-', '');

/** A calendar of one all-day event per date, as a channel lists the nights it sold. */
export const feedOfDates = (dates: string[]): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Review//EN',
    ...dates.flatMap((date) => [
      'BEGIN:VEVENT',
      `UID:${date}@review`,
      `DTSTART;VALUE=DATE:${date}`,
      `DTEND;VALUE=DATE:${nextDay(date)}`,
      'SUMMARY:Reserved',
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

/**
 * Books `item` from `start` to `end` (or for the one `start` date) as a guest at `address`: rate, add to
 * a cart, create. Answers the booking's code.
 */
export async function bookAs(
  base: string,
  options: { address: string; item: number; start: string; end?: string },
): Promise<string> {
  const headers = { 'x-forwarded-for': options.address };
  const dates = options.end ? `start_date=${options.start}&end_date=${options.end}` : `date=${options.start}`;
  const rated = await readJson(
    await fetch(`${base}/item/${options.item}?${dates}&param[adults]=1&param[qty]=1`, { headers }),
  );
  const slip = rated.item?.rate?.slip;
  if (!slip) throw new Error(`no SLIP: ${JSON.stringify(rated.item?.rate ?? rated.request)}`);
  const form = { ...headers, 'content-type': 'application/x-www-form-urlencoded' };
  const cart = await readJson(
    await fetch(`${base}/booking/session`, {
      method: 'POST',
      headers: form,
      body: `slip[]=${encodeURIComponent(slip)}`,
    }),
  );
  const made = await readJson(
    await fetch(`${base}/booking/create`, {
      method: 'POST',
      headers: form,
      body: `session_id=${cart.booking.session.id}&form[customer_name]=Review Guest&form[customer_email]=guest-${options.address}@example.com`,
    }),
  );
  const code = made.booking?.code;
  if (!code) throw new Error(`not booked: ${JSON.stringify(made.request)}`);
  return code;
}

/** Waits (bounded) until `check` answers something truthy. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}
