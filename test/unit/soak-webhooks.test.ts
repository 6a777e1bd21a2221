import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateWebhookSecret, signedHeaders } from '#lib/webhooks/sign.ts';
import { auditWebhooks, type RecordedEvent } from '#test/soak/audit-webhooks.ts';
import {
  type Arrival,
  readArrivals,
  type SoakReceiver,
  startSoakReceiver,
  writeArrivals,
} from '#test/soak/receiver.ts';

// The soak's webhook audit (test/soak/audit-webhooks.ts) on arrivals signed as the service signs them, and
// its receiver (test/soak/receiver.ts) switched between its modes over the loopback.

const secret = generateWebhookSecret();
const otherSecret = generateWebhookSecret();
/** Two hours ago: every arrival is far older than the package's five-minute tolerance when audited. */
const T0 = Date.now() - 2 * 3_600_000;

const makeEvent = (overrides: Partial<RecordedEvent> = {}): RecordedEvent => ({
  event_id: 'evt-1',
  type: 'booking.created',
  booking_id: 1,
  sequence: 1,
  at: T0,
  ...overrides,
});

const bodyOf = (event: RecordedEvent) =>
  JSON.stringify({
    type: event.type,
    timestamp: new Date(event.at).toISOString(),
    data: {
      event: { event_id: event.event_id, type: event.type },
      booking: { booking_id: event.booking_id },
    },
  });

/** An attempt as the dispatcher makes it: signed at `sentAt` with `secret`, received a second later. */
const makeArrival = (
  event: RecordedEvent,
  overrides: Partial<Arrival> & {
    sentAt?: number;
    signWith?: string | { current: string; previous: string };
  } = {},
): Arrival => {
  const { sentAt = event.at, signWith = secret, ...rest } = overrides;
  const body = rest.body ?? bodyOf(event);
  const secrets =
    typeof signWith === 'string' ? { current: signWith } : { ...signWith, previous_until: sentAt + 60_000 };
  const headers = signedHeaders({ messageId: event.event_id, body, secrets, now: sentAt });
  return {
    id: headers['webhook-id'] ?? '',
    timestamp: headers['webhook-timestamp'] ?? '',
    signature: headers['webhook-signature'] ?? '',
    body,
    at: sentAt + 1_000,
    answered: 200,
    ...rest,
  };
};

/** Three events of booking 1 and two of booking 2, each event a second after the one before. */
const history = (): RecordedEvent[] => [
  makeEvent({ event_id: 'b1-1', booking_id: 1, sequence: 1, at: T0 }),
  makeEvent({ event_id: 'b2-1', booking_id: 2, sequence: 1, at: T0 + 1_000 }),
  makeEvent({ event_id: 'b1-2', booking_id: 1, sequence: 2, at: T0 + 2_000, type: 'booking.note_added' }),
  makeEvent({ event_id: 'b1-3', booking_id: 1, sequence: 3, at: T0 + 3_000, type: 'booking.status_changed' }),
  makeEvent({ event_id: 'b2-2', booking_id: 2, sequence: 2, at: T0 + 4_000, type: 'booking.checked_in' }),
];
const byId = (events: RecordedEvent[], id: string): RecordedEvent => {
  const event = events.find((candidate) => candidate.event_id === id);
  if (!event) throw new Error(`no event ${id}`);
  return event;
};

describe('auditWebhooks', () => {
  it('passes a history delivered in order through refusals, hangs and duplicates, audited hours later', () => {
    const recorded = history();
    const event = (id: string) => byId(recorded, id);
    const arrivals = [
      makeArrival(event('b1-1'), { answered: 503 }),
      makeArrival(event('b2-1'), { answered: 'hung' }),
      makeArrival(event('b1-1'), { sentAt: T0 + 5_000 }),
      makeArrival(event('b2-1'), { sentAt: T0 + 15_000 }),
      makeArrival(event('b1-2'), { sentAt: T0 + 16_000 }),
      // A replay: the same event again, after later ones, is a duplicate and not out of order.
      makeArrival(event('b1-1'), { sentAt: T0 + 17_000 }),
      makeArrival(event('b1-3'), { sentAt: T0 + 18_000 }),
      makeArrival(event('b2-2'), { sentAt: T0 + 19_000 }),
    ];
    expect(auditWebhooks({ recorded, arrivals, secret })).toEqual({
      ok: true,
      events: 5,
      delivered: 5,
      problems: [],
    });
    // The package itself refuses the same arrival now: its tolerance counts from the verifier's clock.
    const first = arrivals[2] as Arrival;
    const headers = {
      'webhook-id': first.id,
      'webhook-timestamp': first.timestamp,
      'webhook-signature': first.signature,
    };
    expect(() => new Webhook(secret).verify(first.body, headers)).toThrow('Message timestamp too old');
  });

  it('agrees with the package on an arrival audited as it arrives', () => {
    const event = makeEvent({ at: Date.now() });
    const arrival = makeArrival(event, { at: Date.now() });
    const headers = {
      'webhook-id': arrival.id,
      'webhook-timestamp': arrival.timestamp,
      'webhook-signature': arrival.signature,
    };
    expect(new Webhook(secret).verify(arrival.body, headers)).toMatchObject({ type: event.type });
    expect(auditWebhooks({ recorded: [event], arrivals: [arrival], secret }).ok).toBe(true);
    const forged = { ...arrival, body: arrival.body.replace('booking_id":1', 'booking_id":2') };
    expect(() => new Webhook(secret).verify(forged.body, headers)).toThrow('No matching signature found');
    expect(auditWebhooks({ recorded: [event], arrivals: [forged], secret }).problems).toEqual([
      'bad signature: evt-1: no v1 signature matches the secret',
    ]);
  });

  it('names an event that never arrived, and one that was only ever refused', () => {
    const recorded = history();
    const arrivals = recorded
      .filter((event) => event.event_id !== 'b1-3')
      .map((event) => makeArrival(event, { answered: event.event_id === 'b2-2' ? 503 : 200 }));
    arrivals.push(makeArrival(byId(recorded, 'b2-2'), { answered: 'hung', sentAt: T0 + 20_000 }));
    const result = auditWebhooks({ recorded, arrivals, secret });
    expect(result).toMatchObject({ ok: false, events: 5, delivered: 3 });
    expect(result.problems).toEqual([
      'never delivered: b1-3 booking.status_changed booking 1',
      'never delivered: b2-2 booking.checked_in booking 2 (2 arrivals, none answered 2xx)',
    ]);
  });

  it('names an arrival whose webhook-id the service never recorded', () => {
    const recorded = history();
    const arrivals = recorded.map((event) => makeArrival(event));
    const stranger = makeEvent({ event_id: 'evt-ghost', booking_id: 9 });
    arrivals.push(makeArrival(stranger), makeArrival(stranger, { answered: 503 }));
    arrivals.push({ ...makeArrival(stranger), id: '' });
    expect(auditWebhooks({ recorded, arrivals, secret }).problems).toEqual([
      'arrived but never recorded: evt-ghost (2 arrivals)',
      'arrived but never recorded: (no webhook-id)',
      'bad signature: (no webhook-id): missing webhook headers',
    ]);
  });

  it('names each arrival that would not verify: another secret, a changed body, a timestamp off by over 5 minutes', () => {
    const event = makeEvent();
    const good = makeArrival(event);
    const cases: [Arrival, string][] = [
      [makeArrival(event, { signWith: otherSecret }), 'no v1 signature matches the secret'],
      [{ ...good, body: `${good.body} ` }, 'no v1 signature matches the secret'],
      [{ ...good, signature: good.signature.replace('v1,', 'v2,') }, 'no v1 signature matches the secret'],
      [{ ...good, signature: '' }, 'missing webhook headers'],
      [{ ...good, timestamp: `${good.timestamp}x` }, `timestamp "${good.timestamp}x" is not Unix seconds`],
      // Signed at T0 and received 301 s later: the package's 300 s tolerance at the receiver would refuse it.
      [{ ...good, at: T0 + 301_000 }, 'signed 301 s before it arrived'],
      [{ ...good, at: T0 - 301_000 }, 'signed 301 s after it arrived'],
    ];
    for (const [arrival, why] of cases) {
      const result = auditWebhooks({ recorded: [event], arrivals: [good, arrival], secret });
      expect(result.problems, why).toEqual([`bad signature: evt-1: ${why}`]);
    }
    // To the last millisecond of the tolerance's last second, either way, it verifies.
    const signedAt = Number(good.timestamp) * 1000;
    for (const at of [signedAt + 300_999, signedAt - 300_000]) {
      expect(auditWebhooks({ recorded: [event], arrivals: [{ ...good, at }], secret }).ok, String(at)).toBe(
        true,
      );
    }
    expect(
      auditWebhooks({ recorded: [event], arrivals: [{ ...good, at: signedAt + 301_000 }], secret }).ok,
    ).toBe(false);
  });

  it('accepts the secret before a rotation alongside the new one, and either one alone', () => {
    const event = makeEvent();
    const rotated = makeArrival(event, { signWith: { current: otherSecret, previous: secret } });
    expect(rotated.signature.split(' ')).toHaveLength(2);
    expect(auditWebhooks({ recorded: [event], arrivals: [rotated], secret }).ok).toBe(true);
    expect(auditWebhooks({ recorded: [event], arrivals: [rotated], secret: otherSecret }).ok).toBe(true);
    const old = makeArrival(event);
    expect(auditWebhooks({ recorded: [event], arrivals: [old], secret: [otherSecret, secret] }).ok).toBe(
      true,
    );
    expect(auditWebhooks({ recorded: [event], arrivals: [old], secret: [otherSecret] }).ok).toBe(false);
  });

  it('names a body whose type or event is not the recorded one, or that is not JSON', () => {
    const event = makeEvent();
    const cases: [string, string][] = [
      [
        bodyOf({ ...event, type: 'booking.note_added' }),
        'type "booking.note_added", recorded booking.created',
      ],
      [JSON.stringify({ data: {} }), 'type undefined, recorded booking.created'],
      [bodyOf({ ...event, event_id: 'evt-2' }), 'body is event evt-2'],
      ['not json', 'body is not JSON'],
    ];
    for (const [body, why] of cases) {
      const result = auditWebhooks({ recorded: [event], arrivals: [makeArrival(event, { body })], secret });
      expect(result.problems, why).toEqual([`wrong body: evt-1: ${why}`]);
    }
  });

  it("names a booking whose events were first accepted out of their sequence, by each one's first 2xx", () => {
    const recorded = history();
    const event = (id: string) => byId(recorded, id);
    const arrivals = [
      makeArrival(event('b1-1')),
      // Sequence 2 arrives first but is refused; 3 is accepted before 2 is.
      makeArrival(event('b1-2'), { answered: 503 }),
      makeArrival(event('b1-3'), { sentAt: T0 + 4_000 }),
      makeArrival(event('b1-2'), { sentAt: T0 + 6_000 }),
      makeArrival(event('b2-2'), { sentAt: T0 + 7_000 }),
      makeArrival(event('b2-1'), { sentAt: T0 + 8_000 }),
    ];
    expect(auditWebhooks({ recorded, arrivals, secret }).problems).toEqual([
      'out of order: booking 1: sequence 3 arrived before 2 (b1-3 before b1-2)',
      'out of order: booking 2: sequence 2 arrived before 1 (b2-2 before b2-1)',
    ]);
  });

  it('judges the order by when each arrived, whatever order the list is in', () => {
    const recorded = history().filter((event) => event.booking_id === 1);
    const arrivals = recorded.map((event) => makeArrival(event, { sentAt: event.at })).reverse();
    expect(auditWebhooks({ recorded, arrivals, secret }).ok).toBe(true);
  });

  it('does not expect events recorded after `now`, and does not call them unrecorded when they arrive', () => {
    const recorded = history();
    const arrivals = recorded.filter((event) => event.at <= T0 + 2_000).map((event) => makeArrival(event));
    arrivals.push(makeArrival(byId(recorded, 'b2-2')));
    const result = auditWebhooks({ recorded, arrivals, secret, now: T0 + 2_000 });
    expect(result).toEqual({ ok: true, events: 3, delivered: 3, problems: [] });
    expect(auditWebhooks({ recorded, arrivals, secret }).problems).toEqual([
      'never delivered: b1-3 booking.status_changed booking 1',
    ]);
  });

  it('keeps at most 50 lines, each kind its share, and counts the rest', () => {
    const recorded = Array.from({ length: 100 }, (_, index) =>
      makeEvent({ event_id: `lost-${index}`, booking_id: index + 1 }),
    );
    const wrong = makeEvent({ event_id: 'typed', booking_id: 500 });
    const result = auditWebhooks({
      recorded: [...recorded, wrong],
      arrivals: [makeArrival(wrong, { body: bodyOf({ ...wrong, type: 'booking.voided' }) })],
      secret,
    });
    expect(result).toMatchObject({ ok: false, events: 101, delivered: 1 });
    expect(result.problems).toHaveLength(11);
    expect(result.problems[8]).toBe('never delivered: lost-8 booking.created booking 9');
    expect(result.problems[9]).toBe('… and 91 more (never delivered)');
    expect(result.problems[10]).toMatch(/^wrong body: typed: /);
    const many = auditWebhooks({
      recorded: [],
      arrivals: Array.from({ length: 60 }, (_, index) => ({
        ...makeArrival(makeEvent({ event_id: `x-${index}` })),
        signature: 'v1,forged',
      })),
      secret,
    });
    expect(many.problems).toHaveLength(20);
    expect(many.problems.filter((line) => line.startsWith('… and 51 more'))).toHaveLength(2);
  });
});

describe('the soak receiver', () => {
  let receiver: SoakReceiver | undefined;
  afterEach(async () => {
    await receiver?.stop();
    receiver = undefined;
  });
  const dir = mkdtempSync(join(tmpdir(), 'soak-receiver-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const event = makeEvent({ at: Date.now() });
  const send = (url: string, timeoutMs = 5_000) => {
    const body = bodyOf(event);
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signedHeaders({ messageId: event.event_id, body, secrets: { current: secret }, now: Date.now() }),
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  };
  /** Whether a promise is still pending after `ms`. */
  const pendingAfter = async (promise: Promise<unknown>, ms: number) => {
    const still = Symbol('pending');
    const settled = await Promise.race([
      promise.then(
        () => 'settled',
        () => 'settled',
      ),
      new Promise((wake) => setTimeout(() => wake(still), ms)),
    ]);
    return settled === still;
  };

  it('answers 200 and records the request with its headers as sent', async () => {
    receiver = await startSoakReceiver();
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
    const before = Date.now();
    const response = await send(receiver.url);
    expect(response.status).toBe(200);
    expect(receiver.arrivals).toHaveLength(1);
    const [arrival] = receiver.arrivals as [Arrival];
    expect(arrival).toMatchObject({ id: event.event_id, body: bodyOf(event), answered: 200 });
    expect(arrival.at).toBeGreaterThanOrEqual(before);
    expect(arrival.signature).toMatch(/^v1,/);
    expect(auditWebhooks({ recorded: [event], arrivals: receiver.arrivals, secret }).ok).toBe(true);
  });

  it('answers 503 while unavailable, and 200 again once switched back', async () => {
    receiver = await startSoakReceiver();
    receiver.setMode('unavailable');
    expect((await send(receiver.url)).status).toBe(503);
    receiver.setMode('ok');
    expect((await send(receiver.url)).status).toBe(200);
    expect(receiver.arrivals.map((arrival) => arrival.answered)).toEqual([503, 200]);
  });

  it('leaves a request hanging until the mode changes, then answers it as the new mode says', async () => {
    receiver = await startSoakReceiver();
    receiver.setMode('hang');
    const sent = send(receiver.url);
    expect(await pendingAfter(sent, 300)).toBe(true);
    expect(receiver.arrivals.map((arrival) => arrival.answered)).toEqual(['hung']);
    receiver.setMode('ok');
    expect((await sent).status).toBe(200);
    expect(receiver.arrivals.map((arrival) => arrival.answered)).toEqual([200]);
  });

  it('cuts a hanging request off unanswered when it stops', async () => {
    const own = await startSoakReceiver();
    own.setMode('hang');
    const sent = send(own.url);
    expect(await pendingAfter(sent, 300)).toBe(true);
    await own.stop();
    await expect(sent).rejects.toThrow();
    expect(own.arrivals.map((arrival) => arrival.answered)).toEqual(['hung']);
  });

  it('keeps a request the sender gave up on (its timeout) as hung, even once it is back', async () => {
    receiver = await startSoakReceiver();
    receiver.setMode('hang');
    await expect(send(receiver.url, 200)).rejects.toThrow();
    // The connection's close reaches the server just after the client's abort.
    await new Promise((wake) => setTimeout(wake, 100));
    receiver.setMode('ok');
    expect(receiver.arrivals.map((arrival) => arrival.answered)).toEqual(['hung']);
    expect(auditWebhooks({ recorded: [event], arrivals: receiver.arrivals, secret }).problems).toEqual([
      'never delivered: evt-1 booking.created booking 1 (1 arrival, none answered 2xx)',
    ]);
  });

  it('listens on the port it is given', async () => {
    const first = await startSoakReceiver();
    const port = Number(new URL(first.url).port);
    await first.stop();
    receiver = await startSoakReceiver({ port });
    expect(receiver.url).toBe(`http://127.0.0.1:${port}/hook`);
    expect((await send(receiver.url)).status).toBe(200);
  });

  it('writes its arrivals to a JSONL file and reads them back', async () => {
    receiver = await startSoakReceiver();
    await send(receiver.url);
    receiver.setMode('hang');
    void send(receiver.url).catch(() => undefined);
    await expect.poll(() => receiver?.arrivals.length).toBe(2);
    const file = join(dir, 'arrivals.jsonl');
    await writeArrivals(file, receiver.arrivals);
    expect(await readArrivals(file)).toEqual(receiver.arrivals);
    writeFileSync(file, `${JSON.stringify(receiver.arrivals[0])}\n{"id":"x"}\n`);
    await expect(readArrivals(file)).rejects.toThrow(`${file}:2: not an arrival`);
  });
});
