import { randomUUID } from 'node:crypto';
import { getCustomerIdByEmail } from '#lib/bookings/customer-repository.ts';
import { nextId } from '#lib/bookings/id-counter-repository.ts';
import { getFeedToken } from '#lib/channels/feed-token-repository.ts';
import { getItemsById } from '#lib/config/repository.ts';
import { addDays, todayIn, type Ymd } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { sessionKey } from '#lib/kernel/storage/keys.ts';
import { type TransactItem, transact } from '#lib/kernel/storage/transact.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import { countRequestInWindow } from '#lib/limits/repository.ts';
import {
  claimClientSessionAction,
  claimUnpaidBookingAction,
  dropClientSessionAction,
  holdClientUnitsAction,
  keepClientUnitsAction,
} from '#lib/sessions/budget-repository.ts';
import { bookSessionAction, getSession, type StoredSession } from '#lib/sessions/repository.ts';
import { holdZoneAction, leaveZonesAfterBooking } from '#lib/sessions/zone-repository.ts';
import { zonesOfHolds } from '#lib/sessions/zones.ts';
import {
  counterId,
  holdStockAction,
  monthsOfRanges,
  queryStockMonth,
  queryStockRange,
} from '#lib/stock/repository.ts';
import { nthStart } from './scenarios.ts';
import { FEED_DAYS, FEED_ITEM } from './tenant.ts';

/**
 * Filler bytes of the floor's records that stand for the service's session (one line of 7 nights), booking,
 * booking code and booking event, so each write is about as large as the service's: its cost in DynamoDB
 * (and its write units) grows with the item's size. `bench-floor.test.ts` holds them to the service's.
 */
export const FLOOR_BYTES = { session: 1160, booking: 1690, code: 0, event: 150 };

/**
 * Runs `work` on `concurrency` workers for `seconds`, and returns completed operations per second. The
 * clock (milliseconds) is the wall clock's unless a test brings its own.
 */
export async function measureFloor(
  concurrency: number,
  seconds: number,
  work: () => Promise<unknown>,
  clock: () => number = Date.now,
): Promise<number> {
  const until = clock() + seconds * 1000;
  let done = 0;
  const started = clock();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (clock() < until) {
        await work();
        done += 1;
      }
    }),
  );
  return done / ((clock() - started) / 1000);
}

/**
 * Whether DynamoDB Local has warmed up: the last round's floor rates within `tolerance` of the round's
 * before it, on the geometric mean of their ratios (one noisy floor does not decide it alone).
 */
export function hasSettled(previous: number[], current: number[], tolerance = 0.07): boolean {
  if (previous.length === 0 || previous.length !== current.length) return false;
  const logs = current.map((rate, i) => Math.log(rate / (previous[i] as number)));
  const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
  return Number.isFinite(mean) && Math.abs(mean) <= Math.log(1 + tolerance);
}

/**
 * Runs the floors in rounds until their rates settle (`hasSettled`); no round starts after `maxSeconds`.
 * DynamoDB Local is a JVM: from a cold start it spends 30 to 40 s of load compiling, its CPU per call
 * falling from about 11 ms to under 1 (docs/performance.md). A scenario measured before that, beside a floor measured after
 * it, would be charged for the JIT.
 *
 * Each floor runs `roundSeconds` a round, longer when the floors are few: a round lasts at least
 * `minRoundSeconds`. The JIT's gain is slow (a few per cent a second), so two short rounds in a row can
 * agree within the tolerance while the rates are still climbing: one floor's two 1 s rounds "settled"
 * after 5 s with Java still at three times its warm CPU per call.
 */
export async function warmUntilSettled(
  works: (() => Promise<unknown>)[],
  options: {
    concurrency: number;
    roundSeconds: number;
    minRoundSeconds?: number;
    maxSeconds: number;
    clock?: () => number;
  },
): Promise<{ seconds: number; settled: boolean }> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const elapsed = () => (clock() - started) / 1000;
  const seconds = Math.max(options.roundSeconds, (options.minRoundSeconds ?? 0) / works.length);
  let previous: number[] = [];
  while (elapsed() < options.maxSeconds) {
    const current: number[] = [];
    for (const work of works) current.push(await measureFloor(options.concurrency, seconds, work, clock));
    if (hasSettled(previous, current)) return { seconds: elapsed(), settled: true };
    previous = current;
  }
  return { seconds: elapsed(), settled: false };
}

/** The bare DynamoDB calls of one kind of request. */
export type FloorRequest =
  | 'unratedList'
  | 'ratedList'
  | 'ratedItem'
  | 'calendar'
  | 'channelFeed'
  | 'addSlip'
  | 'create';

/**
 * The bare DynamoDB calls each request cannot avoid (`requests`), and each scenario's, by scenario name,
 * for its floor (`scenarios`).
 */
export function floorCalls(
  db: Db,
  options: { size: number; start: Ymd; end: Ymd; feedTokenHash: string },
): {
  requests: Record<FloorRequest, () => Promise<unknown>>;
  scenarios: Record<string, () => Promise<unknown>>;
} {
  const { size, start, end } = options;
  // One item's counters over a span, as the service reads them for a rated item or a calendar.
  const queryStock = (itemId: number, last = addDays(end, -1)) =>
    queryStockRange(db, { itemId, first: start, last });
  // A list of 7 nights from `first`: the span index answers every item's counters over the span's days in
  // one query a month, read by month when the months are fewer than the items, as the service does
  // (readStock).
  const queryListStock = (first = start) => {
    const last = addDays(first, 6);
    const months = monthsOfRanges([{ first, last }]);
    return months.length < size
      ? months.map((span) => queryStockMonth(db, span))
      : Array.from({ length: size }, (_, i) => queryStockRange(db, { itemId: i + 1, first, last }));
  };
  // The new-dates list asks its dates in turn, as its scenario does.
  let lists = 0;
  // Every public request counts against its client's limit (a POST against its write limit too): the
  // service's conditional write, for one of eight clients as the benchmark's eight connections are.
  let calls = 0;
  const client = () => `floor-${calls++ % 8}`;
  const countRequest = (write = false) =>
    countRequestInWindow(db, {
      client: client(),
      windowStart: Math.floor(Date.now() / 60_000) * 60,
      windowSeconds: 60,
      budgets: { requests: 1_000_000_000, ...(write ? { writes: 1_000_000_000 } : {}) },
    });
  // The service's own transaction actions, marked as the floor's (`entity`), so neither the reconcile
  // check nor the race's audit counts them as the service's stock or client budgets.
  const markedFloor = (action: TransactItem): TransactItem => {
    const update = action.Update as NonNullable<TransactItem['Update']>;
    return {
      Update: {
        ...update,
        ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':entity': 'floor' },
      },
    };
  };
  // A record of the floor's own standing for one of the service's: about as large, with as many index
  // keys (each index is a write of its own), under keys that no reader of the service's looks at.
  const floorRecord = (
    key: { pk: string; sk: string },
    options: { bytes: number; indexes: number; openSession?: string },
  ) => ({
    ...key,
    entity: 'floor',
    ...Object.fromEntries(
      Array.from({ length: options.indexes }, (_, index) => [
        [`gsi${index + 1}pk`, `FLOOR#${index + 1}`],
        [`gsi${index + 1}sk`, randomUUID()],
      ]).flat(),
    ),
    ...(options.openSession
      ? { id: options.openSession, version: 1, status: 'open', expires_at: 4_102_444_800 }
      : {}),
    data: 'x'.repeat(options.bytes),
  });
  const nights = Array.from({ length: 7 }, (_, night) => addDays(start, night));
  const nowSeconds = () => unixSeconds(Date.now());
  // Sessions the floor's adds opened, for its creates to book (in the flow, or at the ceiling's server).
  const open: { id: string; client: string; zoneIds: string[] }[] = [];
  // The adds so far: each add's budget records are a client's of its own (named about as long as an address),
  // in this process (the ceiling's server is another, on the same table).
  let adds = 0;
  const instance = randomUUID().slice(0, 4);
  // An add: its client's count; its item as the table holds it now (a hold decides from a consistent read,
  // issue 41); one transaction of the nights' counters, the client's budget for each night and its set of
  // sessions, and the session; then the line's availability for the answer.
  const addSlip = async () => {
    // The add's budget records are a client's of its own: each add's first hold of the nights starts that
    // client's holding of them (issue 41's guess, `period: start`), which fails for a client whose records
    // another of its carts holds. The request count stays one of the eight clients'.
    adds += 1;
    const who = `floor-${instance}-${adds}`;
    await countRequest(true);
    const items = await getItemsById(db, [2], { consistent: true });
    const sessionId = `floor-${randomUUID()}`;
    // And the client's holding of the stay zones the nights are in starts (review of issue 41).
    const zones = zonesOfHolds(Object.fromEntries(nights.map((night) => [counterId(2, night), 1])), items);
    await transact(db, [
      ...nights.flatMap((night) => [
        markedFloor(holdStockAction(db, { itemId: 2, slot: night, units: 1, capacity: 100_000_000 })),
        markedFloor(
          holdClientUnitsAction(db, {
            client: who,
            counterId: counterId(2, night),
            units: 1,
            allowance: 100_000_000,
            nowSeconds: nowSeconds(),
            // The service's hold waits for the client's re-hold cooldown in the same condition, and records
            // that the client's holding of the night starts (issue 41).
            cooldownSession: sessionId,
            period: { kind: 'start', since: nowSeconds() },
          }),
        ),
      ]),
      ...[...zones.keys()].map((zoneId) =>
        markedFloor(
          holdZoneAction(db, {
            client: who,
            zoneId,
            cart: sessionId,
            period: { kind: 'start', since: nowSeconds() },
            nowSeconds: nowSeconds(),
          }),
        ),
      ),
      markedFloor(
        claimClientSessionAction(db, { client: who, sessionId, max: 1_000_000, nowSeconds: nowSeconds() }),
      ),
      {
        Put: {
          TableName: db.tableName,
          Item: floorRecord(sessionKey(sessionId), {
            bytes: FLOOR_BYTES.session,
            indexes: 1,
            openSession: sessionId,
          }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
    await queryStock(2);
    // Kept for a create; an add-only run keeps the last thousand.
    if (open.push({ id: sessionId, client: who, zoneIds: [...zones.keys()] }) > 1000) open.shift();
  };
  // A booking of an open session: its client's count, the next booking number, the session, the customer
  // by email; then one transaction that books the session, puts the booking and its code, gives the
  // session's units counted against the client as an unpaid booking's, and keeps the booking's event.
  const create = async () => {
    const session = open.shift();
    if (!session) throw new Error('the floor books a session one of its adds opened: add first');
    await countRequest(true);
    // Three reads that need nothing of each other: at once.
    const [stored] = await Promise.all([
      getSession(db, session.id),
      getCustomerIdByEmail(db, 'bench@example.com'),
      nextId(db, 'booking', Date.now()),
    ]);
    // New records are put only if new, as the service's booking and code are; its event is put as it is.
    const record = (kind: string, bytes: number, options: { indexes?: number; new?: boolean } = {}) => ({
      Put: {
        TableName: db.tableName,
        Item: floorRecord(
          { pk: `FLOOR#${randomUUID()}`, sk: kind },
          { bytes, indexes: options.indexes ?? 0 },
        ),
        ...(options.new === false ? {} : { ConditionExpression: 'attribute_not_exists(pk)' }),
      },
    });
    await transact(db, [
      bookSessionAction(db, {
        session: stored as StoredSession,
        bookingId: 0,
        nowSeconds: nowSeconds(),
        nowMs: Date.now(),
      }),
      record('BOOKING', FLOOR_BYTES.booking, { indexes: 3 }),
      record('CODE', FLOOR_BYTES.code),
      // An unpaid customer's booking counts itself, is marked for the voider, and keeps its units counted
      // against the client.
      markedFloor(claimUnpaidBookingAction(db, { client: session.client, max: 1_000_000 })),
      {
        Put: {
          TableName: db.tableName,
          Item: {
            pk: 'FLOOR#UNPAID',
            sk: `${String(nowSeconds()).padStart(12, '0')}#${randomUUID().slice(0, 10)}`,
            entity: 'floor',
            booking_id: 1,
          },
        },
      },
      dropClientSessionAction(db, { client: session.client, sessionId: session.id }),
      ...nights.map((night) =>
        keepClientUnitsAction(db, {
          client: session.client,
          counterId: counterId(2, night),
          cart: session.id,
        }),
      ),
      record('EVENT', FLOOR_BYTES.event, { new: false }),
    ]);
    // Then the booked cart leaves the client's stay zones, one update each (review of issue 41).
    await leaveZonesAfterBooking(db, { client: session.client, cart: session.id, zoneIds: session.zoneIds });
  };
  // The count comes first: a refused request does nothing else (issue 9). Then the request's own calls,
  // those that need nothing of each other at once.
  const counted =
    (work: () => Promise<unknown>, write = false) =>
    async () => {
      await countRequest(write);
      return work();
    };
  const requests = {
    // The items function keeps the catalogue until the tenant is loaded again: a list cannot avoid only
    // its client's count (and, rated, the counters).
    unratedList: () => countRequest(),
    ratedList: counted(() => Promise.all(queryListStock())),
    // One item, rated or its calendar: the item comes from the kept catalogue too.
    ratedItem: counted(() => queryStock(1)),
    calendar: counted(() => queryStock(1, addDays(start, 89))),
    // A channel feed: its token, and the item's counters over the 365 days it lists, in one query.
    channelFeed: counted(() => {
      const today = todayIn('America/Toronto', Date.now());
      return Promise.all([
        getFeedToken(db, options.feedTokenHash),
        queryStockRange(db, { itemId: FEED_ITEM, first: today, last: addDays(today, FEED_DAYS) }),
      ]);
    }),
    // An add: the item comes from the session function's kept catalogue.
    addSlip,
    create,
  };
  return {
    requests,
    scenarios: {
      'unrated list': requests.unratedList,
      'rated list, 7 nights': requests.ratedList,
      'rated list, 7 nights, new dates': counted(() => Promise.all(queryListStock(nthStart(start, lists++)))),
      'rated item, 7 nights': requests.ratedItem,
      'calendar, 90 days': requests.calendar,
      'channel feed, 365 days': requests.channelFeed,
      'add a SLIP': requests.addSlip,
      'full flow (rate, add, create)': async () => {
        // The add step reads the item as the add-a-SLIP scenario's does.
        await requests.ratedItem();
        await requests.addSlip();
        await requests.create();
      },
    },
  };
}
