import { randomUUID } from 'node:crypto';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { type BookingState, type ChangeSeen, cancelOwn, changeOwn } from './manage-traffic.ts';
import { type PaymentChoice, settle } from './provider.ts';
import { SOAK_ITEMS } from './tenant.ts';
import { ADMIN, type StandInAddress } from './world.ts';

// The soak's traffic: seeded, bounded, at a fixed concurrency, from many client addresses. Guests rate,
// add, alter, abandon, clear, end and create (with an Idempotency-Key, retrying on a network error or a
// 5xx as a careful client would), pay, then some change or cancel their booking from its manage link
// (manage-traffic.ts); staff change statuses, add notes, check in and out. Every call and every booking a
// client was told about goes into the ledger the audits read.

/** A small seeded generator (mulberry32): the same seed, the same traffic. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T,
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof seeded>;

/** One call as a careful client made it: every attempt's answer (0 for a network error) and when. */
export interface Call {
  route: string;
  startedAt: number;
  endedAt: number;
  statuses: number[];
  /** When each attempt that failed (5xx or network) was seen to fail. */
  failedAt: number[];
  /**
   * Those of `failedAt` that were the service's 503 `busy` naming the payment provider (`data.provider`): it
   * passes on the provider's outage, with a Retry-After, rather than failing itself.
   */
  providerBusyAt?: number[];
  ok: boolean;
}

/** A booking a client was told about: what `booking/create` answered. */
export interface Acknowledged {
  key: string;
  session: string;
  code: string;
  bookingId: number;
  total: string;
  statusId: string;
  lines: { itemId: number; qty: number }[];
  at: number;
}

/** Everything the traffic did, for the audits. */
export interface Ledger {
  calls: Call[];
  acknowledged: Acknowledged[];
  /** Sessions a client asked to book (acknowledged or not). */
  attempted: Set<string>;
  /** Bookings whose status staff changed after they were created. */
  restatused: Set<string>;
  /** Bookings that awaited payment when created, and what their guest did about it. */
  paying: Map<string, PaymentChoice>;
  /** Bookings their guest cancelled (issue 44), with the refund the cancel answered, in minor units. */
  guestCancelled: Map<string, string>;
  /** Every change a guest tried from their manage link (issue 44), and how it ended. */
  changes: ChangeSeen[];
  /** Bookings their guest changed: each state they were told it has (the create's first); the last is now. */
  changed: Map<string, BookingState[]>;
}

export const emptyLedger = (): Ledger => ({
  calls: [],
  acknowledged: [],
  attempted: new Set(),
  restatused: new Set(),
  paying: new Map(),
  guestCancelled: new Map(),
  changes: [],
  changed: new Map(),
});

export const STAFF = `Basic ${Buffer.from(`${ADMIN.key}:${ADMIN.secret}`).toString('base64')}`;
export const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/** The client's answer to a call, after its retries: the last status and JSON body (or none). */
export interface Answer {
  status: number;
  json: Record<string, any> | undefined;
}

/**
 * Makes a call as a careful client: a network error, a 5xx or a 409 `in_progress` is retried with backoff
 * (the same Idempotency-Key, if any) for up to `patienceMs`; the chain is recorded in the ledger.
 */
export async function call(
  ledger: Ledger,
  options: {
    base: string;
    route: string;
    path: string;
    method?: 'GET' | 'POST';
    form?: Record<string, string | string[]>;
    headers?: Record<string, string>;
    patienceMs?: number;
  },
): Promise<Answer> {
  const record: Call = {
    route: options.route,
    startedAt: Date.now(),
    endedAt: 0,
    statuses: [],
    failedAt: [],
    ok: false,
  };
  ledger.calls.push(record);
  const body = options.form
    ? new URLSearchParams(
        Object.entries(options.form).flatMap(([name, value]) =>
          [value].flat().map((entry) => [name, entry] as [string, string]),
        ),
      ).toString()
    : undefined;
  const deadline = Date.now() + (options.patienceMs ?? 90_000);
  for (let attempt = 0; ; attempt += 1) {
    let answer: Answer;
    try {
      const response = await fetch(`${options.base}/${options.path}`, {
        method: options.method ?? (body ? 'POST' : 'GET'),
        headers: {
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...options.headers,
        },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      const text = await response.text();
      let json: Record<string, any> | undefined;
      try {
        json = JSON.parse(text) as Record<string, any>;
      } catch {
        json = undefined;
      }
      answer = { status: response.status, json };
    } catch {
      answer = { status: 0, json: undefined };
    }
    record.statuses.push(answer.status);
    const inProgress = answer.status === 409 && answer.json?.request?.error?.id === 'in_progress';
    const retry = answer.status === 0 || answer.status >= 500 || inProgress;
    // When the failure was seen: a call in flight when a process is killed fails at that moment.
    if (answer.status === 0 || answer.status >= 500) record.failedAt.push(Date.now());
    const error = answer.json?.request?.error;
    if (answer.status === 503 && error?.id === 'busy' && error.data?.provider)
      record.providerBusyAt = [...(record.providerBusyAt ?? []), record.failedAt.at(-1) as number];
    if (!retry || Date.now() > deadline) {
      record.endedAt = Date.now();
      record.ok = !retry;
      return answer;
    }
    await sleep(Math.min(5_000, 250 * 2 ** Math.min(attempt, 5)));
  }
}

/** The traffic's view of the calendar: the next weeks, where the soak's guests book. */
export const dayOf = (offset: number) => addDays(todayIn('America/Toronto', Date.now()), 7 + offset);

/**
 * A guest: rates an item, adds it, perhaps alters or adds more, then abandons, clears, ends or books; a booking
 * that awaits payment is then paid, declined or abandoned on the stand-in's checkout (`settle`).
 */
export async function guest(
  ledger: Ledger,
  options: { base: string; standIn: StandInAddress; random: Random; address: string },
): Promise<void> {
  const { base, random, address } = options;
  const headers = { 'x-forwarded-for': address };
  const item = random.pick(SOAK_ITEMS);
  const first = random.int(21);
  const span = item.unit === 'N' ? 1 + random.int(3) : random.int(2);
  // A party of two now and then (two kayaks, both cabins): a party a guest can later make smaller.
  const party = random.chance(0.2) ? 2 : 1;
  const query = `start_date=${dayOf(first)}&end_date=${dayOf(first + span)}&param[qty]=${party}`;
  const rated = await call(ledger, {
    base,
    route: 'item.get',
    path: `item/${item.item_id}?${query}`,
    headers,
  });
  const slip = rated.json?.item?.rate?.slip as string | undefined;
  if (!slip) return;
  const added = await call(ledger, {
    base,
    route: 'session.add',
    path: 'booking/session',
    form: { 'slip[]': slip },
    headers,
  });
  const session = added.json?.booking?.session as
    | { id?: string; items?: Record<string, unknown> }
    | undefined;
  if (added.status !== 200 || !session?.id) return;
  const sessionId = session.id;
  let qty = 1;
  if (random.chance(0.2)) {
    const line = Object.keys(session.items ?? {})[0];
    if (line) {
      const altered = await call(ledger, {
        base,
        route: 'session.alter',
        path: 'booking/session',
        form: { session_id: sessionId, [`alter[${line}]`]: '2' },
        headers,
      });
      if (altered.status === 200) qty = 2;
    }
  }
  const ending = random.next();
  if (ending < 0.15) return; // Abandoned: the sweeper gives the stock back.
  if (ending < 0.25) {
    await call(ledger, {
      base,
      route: 'session.clear',
      path: 'booking/session/clear',
      form: { session_id: sessionId },
      headers,
    });
    return;
  }
  if (ending < 0.35) {
    await call(ledger, {
      base,
      route: 'session.end',
      path: 'booking/session/end',
      form: { session_id: sessionId },
      headers,
    });
    return;
  }
  ledger.attempted.add(sessionId);
  const book = async () => {
    const key = randomUUID();
    const created = await call(ledger, {
      base,
      route: 'booking.create',
      path: 'booking/create',
      form: {
        session_id: sessionId,
        'form[customer_name]': `Guest ${address}`,
        'form[customer_email]': `guest-${address.replaceAll('.', '-')}@example.com`,
      },
      headers: { ...headers, 'idempotency-key': key },
    });
    const booking = created.json?.booking;
    if (created.status !== 200 || !booking?.code) return undefined;
    ledger.acknowledged.push({
      key,
      session: sessionId,
      code: String(booking.code),
      bookingId: Number(booking.booking_id),
      total: String(booking.total),
      statusId: String(booking.status_id),
      lines: [{ itemId: item.item_id, qty }],
      at: Date.now(),
    });
    return booking as {
      code: string;
      token: string;
      total: string;
      payment_url?: string;
      payment_status?: string;
    };
  };
  let booking = await book();
  if (!booking?.payment_status) return;
  // The provider failed at create: the guest tries again, as the widget's "Try again" does (a new key).
  if (!booking.payment_url) {
    await sleep(2_000);
    booking = (await book()) ?? booking;
  }
  const paid = await settle(ledger, options.standIn, random, booking.payment_url);
  ledger.paying.set(booking.code, paid);
  const manage = { base, standIn: options.standIn, random, headers };
  if (random.chance(GUEST_CHANGE_SHARE))
    await changeOwn(ledger, manage, {
      code: booking.code,
      token: booking.token,
      total: booking.total,
      item,
      first,
      span,
      party,
      lineQty: qty,
      paid: paid === 'paid' || paid === 'declined, then paid',
    });
  if (random.chance(GUEST_CANCEL_SHARE)) await cancelOwn(ledger, manage, booking);
}

/** The share of paying guests who then change their booking from its manage link (issue 44). */
const GUEST_CHANGE_SHARE = 0.15;
/** The share of paying guests who then cancel their booking from its manage link (issue 44). */
const GUEST_CANCEL_SHARE = 0.15;

/** Staff: reads the newest bookings and changes one (a status, a note, a check-in or -out). */
export async function staff(ledger: Ledger, base: string, random: Random): Promise<void> {
  const headers = { authorization: STAFF };
  const listed = await call(ledger, { base, route: 'booking.list', path: 'booking?limit=20', headers });
  const codes = Object.values((listed.json?.['booking/index'] ?? {}) as Record<string, { code?: string }>)
    .map((entry) => entry.code)
    .filter((code): code is string => typeof code === 'string');
  if (codes.length === 0) return;
  const code = random.pick(codes);
  const action = random.next();
  if (action < 0.4) {
    const status = random.pick(['PAID', 'HOLD', 'VOID', 'PAID', 'CANCELLED']);
    const answer = await call(ledger, {
      base,
      route: 'booking.update',
      path: `booking/${code}/update`,
      form: { status_id: status },
      headers,
    });
    if (answer.status === 200) ledger.restatused.add(code);
  } else if (action < 0.7) {
    await call(ledger, {
      base,
      route: 'booking.note',
      path: `booking/${code}/note`,
      form: { body: `soak note ${random.int(1_000_000)}` },
      headers,
    });
  } else {
    const which = random.chance(0.5) ? 'checkin' : 'checkout';
    await call(ledger, {
      base,
      route: `booking.${which}`,
      path: `booking/${code}/${which}`,
      form: { note: '0' },
      headers,
    });
  }
}
