import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Arrival } from './receiver.ts';

// The soak's webhook audit (issue 31): what one endpoint received, judged against the events the service
// committed to its outbox. Pure: the harness reads both (read-recorded-events.ts, the receiver's arrivals)
// and passes them in.

/** An event the service committed for delivery (a `webhook_event` record of the outbox). */
export interface RecordedEvent {
  event_id: string;
  type: string;
  /** 0 for an event about no booking (`webhook.disabled`, channel events). */
  booking_id: number;
  /** The booking's version after the change: the order its events must arrive in. */
  sequence: number;
  /** When the event happened (milliseconds since the epoch). */
  at: number;
}

/** The audit's verdict: `problems` is empty when `ok`, at most 50 lines otherwise. */
export interface WebhookAuditResult {
  ok: boolean;
  /** Recorded events audited. */
  events: number;
  /** Of those, how many arrived at least once with a 2xx answer. */
  delivered: number;
  problems: string[];
}

/** The package's `WEBHOOK_TOLERANCE_IN_SECONDS`: how far a timestamp may be from the verifier's clock. */
const TOLERANCE_SECONDS = 5 * 60;

/** Lines kept of each kind of problem, so one flood cannot hide the other kinds (5 kinds × 10 lines). */
const LINES_PER_KIND = 9;

const KINDS = ['never delivered', 'never recorded', 'bad signature', 'wrong body', 'out of order'] as const;
type Kind = (typeof KINDS)[number];

const accepted = (arrival: Arrival) =>
  typeof arrival.answered === 'number' && arrival.answered >= 200 && arrival.answered < 300;

const arrivalsOf = (count: number) => `${count} arrival${count === 1 ? '' : 's'}`;
const times = (count: number) => (count > 1 ? ` (${arrivalsOf(count)})` : '');

/**
 * Why an arrival would not have verified with `new Webhook(secret).verify(body, headers)` when it
 * arrived, or undefined if it would have. This is the package's own check with its clock replaced by the
 * arrival's time: the signature is the package's `sign` over the arrival's id, timestamp and body, and the
 * timestamp must lie within the package's five minutes of when the request arrived, so an audit run an
 * hour later judges each arrival as the receiver would have at that moment.
 */
function signatureProblem(arrival: Arrival, hooks: Webhook[]): string | undefined {
  if (!arrival.id || !arrival.timestamp || !arrival.signature) return 'missing webhook headers';
  // The package takes parseInt's reading; the specification says an integer, and so does this audit.
  if (!/^\d+$/.test(arrival.timestamp)) return `timestamp "${arrival.timestamp}" is not Unix seconds`;
  const seconds = Number(arrival.timestamp);
  const late = Math.floor(arrival.at / 1000) - seconds;
  if (late > TOLERANCE_SECONDS) return `signed ${late} s before it arrived`;
  if (-late > TOLERANCE_SECONDS) return `signed ${-late} s after it arrived`;
  const passed = arrival.signature
    .split(' ')
    .map((versioned) => versioned.split(','))
    .filter(([version]) => version === 'v1')
    .map(([, signature]) => Buffer.from(signature ?? ''));
  for (const hook of hooks) {
    const [, signature = ''] = hook.sign(arrival.id, new Date(seconds * 1000), arrival.body).split(',');
    const expected = Buffer.from(signature);
    if (passed.some((given) => given.length === expected.length && timingSafeEqual(given, expected)))
      return undefined;
  }
  return 'no v1 signature matches the secret';
}

/** What is wrong with a body for its recorded event, or undefined: its type, and its event id if it names one. */
function bodyProblem(arrival: Arrival, event: RecordedEvent): string | undefined {
  let body: { type?: unknown; data?: { event?: { event_id?: unknown } } };
  try {
    body = JSON.parse(arrival.body) as typeof body;
  } catch {
    return 'body is not JSON';
  }
  if (body?.type !== event.type) return `type ${JSON.stringify(body?.type)}, recorded ${event.type}`;
  const named = body.data?.event?.event_id;
  if (named !== undefined && named !== event.event_id) return `body is event ${String(named)}`;
  return undefined;
}

/**
 * Audits one endpoint's arrivals against the events recorded for it: every event arrived with a 2xx answer,
 * every arrival verifies with the secret (any of several, during a rotation) and is a recorded event whose
 * body has its type, and each booking's events were first accepted in the order of their sequence. With
 * `now` (when the arrivals were collected), events recorded after it are not expected yet.
 */
export function auditWebhooks(input: {
  recorded: RecordedEvent[];
  arrivals: Arrival[];
  secret: string | string[];
  now?: number;
}): WebhookAuditResult {
  const hooks = (Array.isArray(input.secret) ? input.secret : [input.secret]).map(
    (secret) => new Webhook(secret),
  );
  const due = input.recorded.filter((event) => input.now === undefined || event.at <= input.now);
  const recorded = new Map(due.map((event) => [event.event_id, event]));
  const everRecorded = new Set(input.recorded.map((event) => event.event_id));
  const found = new Map<Kind, string[]>(KINDS.map((kind) => [kind, []]));
  const report = (kind: Kind, line: string) => found.get(kind)?.push(line);

  // In the order they arrived (the receiver appends in that order; ties keep it).
  const arrivals = [...input.arrivals].sort((a, b) => a.at - b.at);
  const byId = new Map<string, Arrival[]>();
  for (const arrival of arrivals) {
    const same = byId.get(arrival.id);
    if (same) same.push(arrival);
    else byId.set(arrival.id, [arrival]);
  }

  let delivered = 0;
  for (const event of due) {
    const got = byId.get(event.event_id) ?? [];
    if (got.some(accepted)) {
      delivered += 1;
      continue;
    }
    const tried = got.length ? ` (${arrivalsOf(got.length)}, none answered 2xx)` : '';
    report(
      'never delivered',
      `never delivered: ${event.event_id} ${event.type} booking ${event.booking_id}${tried}`,
    );
  }

  for (const [id, got] of byId) {
    const event = recorded.get(id);
    // An event recorded after `now` that arrived anyway was recorded all the same.
    if (!event && !everRecorded.has(id))
      report('never recorded', `arrived but never recorded: ${id || '(no webhook-id)'}${times(got.length)}`);
    const bad = new Map<string, number>();
    for (const arrival of got) {
      const why = signatureProblem(arrival, hooks);
      if (why) bad.set(why, (bad.get(why) ?? 0) + 1);
    }
    for (const [why, count] of bad)
      report('bad signature', `bad signature: ${id || '(no webhook-id)'}: ${why}${times(count)}`);
    if (!event) continue;
    const wrong = new Map<string, number>();
    for (const arrival of got) {
      const why = bodyProblem(arrival, event);
      if (why) wrong.set(why, (wrong.get(why) ?? 0) + 1);
    }
    for (const [why, count] of wrong) report('wrong body', `wrong body: ${id}: ${why}${times(count)}`);
  }

  // Each booking's events by their first accepted arrival: a lower sequence after a higher one is out of order.
  const firstAccepted = new Map<string, number>();
  arrivals.forEach((arrival, index) => {
    if (accepted(arrival) && recorded.has(arrival.id) && !firstAccepted.has(arrival.id))
      firstAccepted.set(arrival.id, index);
  });
  const byBooking = new Map<number, { event: RecordedEvent; index: number }[]>();
  for (const event of due) {
    const index = firstAccepted.get(event.event_id);
    // Events about no booking all have sequence 0: there is no order among them to check.
    if (index === undefined || event.booking_id === 0) continue;
    const same = byBooking.get(event.booking_id);
    if (same) same.push({ event, index });
    else byBooking.set(event.booking_id, [{ event, index }]);
  }
  for (const [bookingId, events] of byBooking) {
    events.sort((a, b) => a.index - b.index);
    let highest: RecordedEvent | undefined;
    for (const { event } of events) {
      if (highest && event.sequence < highest.sequence)
        report(
          'out of order',
          `out of order: booking ${bookingId}: sequence ${highest.sequence} arrived before ${event.sequence} (${highest.event_id} before ${event.event_id})`,
        );
      if (!highest || event.sequence > highest.sequence) highest = event;
    }
  }

  const problems = KINDS.flatMap((kind) => {
    const lines = found.get(kind) ?? [];
    if (lines.length <= LINES_PER_KIND + 1) return lines;
    return [...lines.slice(0, LINES_PER_KIND), `… and ${lines.length - LINES_PER_KIND} more (${kind})`];
  });
  return { ok: problems.length === 0, events: due.length, delivered, problems };
}
