import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { logger } from '#lib/runtime/logger.ts';
import { replayWebhook } from '#lib/webhooks/admin.ts';
import { listDeliveriesOfEndpoint } from '#lib/webhooks/delivery-repository.ts';
import { getEndpoint } from '#lib/webhooks/endpoint-repository.ts';
import { postWebhook } from '#lib/webhooks/send.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';
import {
  at,
  base,
  book,
  day,
  drain,
  inChunks,
  port,
  putRawEvent,
  receiver,
  setUpWebhookAttacksWorld,
  staffGet,
  staffPost,
  typeOf,
  world,
} from '#test/support/webhook-attacks-world.ts';

// Adversarial tests of what webhooks send and accept (issue 12): size limits, payloads and signatures,
// secrets, targets, bad input and the tenant file. The receiver, the worlds and the findings:
// test/support/webhook-attacks-world.ts.

setUpWebhookAttacksWorld();

describe('size limits', () => {
  it('books, voids and revives a cart at its item-date limit with 10 endpoints subscribed', async () => {
    const ids = Array.from({ length: 10 }, (_, index) => `e${index}`);
    const w = await world({ webhooks: ids.map((id) => ({ id, url: `${base}/${id}`, events: ['*'] })) });
    // 47 days: the longest run a budgeted cart holds of an item without max_len (its three stay zones).
    const created = await book(w, { slip: `start_date=${day}&end_date=${addDays(day, 46)}` });
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

  it('keeps a booking changeable with an endpoint subscribed, however many long notes it has', {
    timeout: 90_000,
  }, async () => {
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

describe('a replay against the deadline', () => {
  it('stops between batches when time runs short and says where to go on, never running into the timeout', async () => {
    const w = await world({ webhooks: [{ id: 'all', url: `${base}/all`, events: ['*'] }] });
    const first = Date.UTC(2026, 0, 5);
    const ids = Array.from({ length: 35 }, (_, index) => `late-${index}`);
    // One event a second, queued only for another endpoint: only the replay queues them for this one.
    await inChunks(ids, 10, (id) =>
      putRawEvent(w.db, { id, bookingId: 3, at: first + ids.indexOf(id) * 1000, endpointIds: ['other'] }),
    );
    const replay = (since: number, remainingMs?: () => number) =>
      replayWebhook(w.db, { endpointId: 'all', since, now: Date.now(), retentionDays: 30, remainingMs });
    const short = await replay(first, () => 0);
    expect(short).toMatchObject({ events: 10, truncated: true, last: first + 9_000 });
    const rest = await replay(Math.floor((short.last as number) / 1000) * 1000);
    expect(rest).toMatchObject({ events: 26, truncated: false });
    const { rows } = await listDeliveriesOfEndpoint(w.db, { endpointId: 'all', skip: 0, take: 100 });
    expect(new Set(rows.map((row) => row.event_id))).toEqual(new Set(ids));
  });
});
