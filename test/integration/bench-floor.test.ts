import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { hashToken } from '#lib/access/secrets.ts';
import { rotateFeedToken } from '#lib/channels/feed-tokens.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, daysBetween, todayIn, type Ymd } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { type FloorRequest, floorCalls } from '#test/bench/floor.ts';
import { benchTenant, FEED_ITEM } from '#test/bench/tenant.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, watchCommands } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';

// The benchmark's ratio divides a scenario's throughput by its floor's: the floor must make the calls the
// service makes for the same request, no fewer and no lighter, or the ratio flatters (or wrongs) our code.

/** What a call costs DynamoDB, without the keys: its operation, and a transaction's actions. */
interface CallShape {
  call: string;
  /** A query's index and the days its sort-key range spans. */
  range?: string;
  actions?: { kind: string; indexes: number; bytes: number }[];
}

type Input = Record<string, unknown> & {
  TransactItems?: Record<string, { Item?: Record<string, unknown>; UpdateExpression?: string }>[];
  ExpressionAttributeValues?: Record<string, string>;
};

function shapeOf(name: string, input: Input): CallShape {
  const call = name.replace(/Command$/, '');
  if (input.TransactItems) {
    return {
      call,
      actions: input.TransactItems.map((action) => {
        const [kind, body] = Object.entries(action)[0] as [string, NonNullable<(typeof action)[string]>];
        // Index keys written: a Put's gsiNpk attributes, an Update's SET of them (a REMOVE writes an index too).
        const indexes = body.Item
          ? Object.keys(body.Item).filter((attribute) => /^gsi\dpk$/.test(attribute)).length
          : (body.UpdateExpression?.match(/gsi\dpk/g) ?? []).length;
        return { kind, indexes, bytes: JSON.stringify(body).length };
      }),
    };
  }
  const values = input.ExpressionAttributeValues ?? {};
  // A counter query by item (`:first`/`:last`) or by month on the span index (`:from`/`:to`).
  const [first, last] = [values[':first'] ?? values[':from'], values[':last'] ?? values[':to']];
  if (call === 'Query' && first && last) {
    return {
      call,
      range: `${String(input.IndexName ?? 'table')} ${daysBetween(first.slice(0, 8), last.slice(0, 8)) + 1}`,
    };
  }
  return { call };
}

/** A view of a table that keeps the shape of every call sent through it. */
function recordShapes(db: Db): { db: Db; shapes: CallShape[] } {
  const shapes: CallShape[] = [];
  return { db: watchCommands(db, (name, input) => shapes.push(shapeOf(name, input as Input))), shapes };
}

const form = 'application/x-www-form-urlencoded';
const byCall = (a: Pick<CallShape, 'call' | 'range'>, b: Pick<CallShape, 'call' | 'range'>) =>
  `${a.call}${a.range}`.localeCompare(`${b.call}${b.range}`);

describe('the benchmark floor', () => {
  let service: ReturnType<typeof recordShapes>;
  let floor: ReturnType<typeof recordShapes>;
  let handlers: ReturnType<typeof createAllHandlers>;
  let requests: Record<FloorRequest, () => Promise<unknown>>;
  let start: Ymd;
  let rated: string;
  let client = 0;
  let feedToken: string;

  beforeAll(async () => {
    const db = await createTestDb('floor');
    start = addDays(todayIn('America/Toronto', Date.now()), 60);
    const end = addDays(start, 7);
    await writeTenant(db, benchTenant(20, start), Date.now());
    service = recordShapes(db);
    floor = recordShapes(db);
    // As the benchmark's runner: the configuration and catalogue kept between requests.
    handlers = createAllHandlers({ ...testDeps(service.db), configTtlMs: 60_000 });
    feedToken = await rotateFeedToken(db, { scope: { kind: 'item', itemId: FEED_ITEM }, now: Date.now() });
    requests = floorCalls(floor.db, { size: 20, start, end, feedTokenHash: hashToken(feedToken) }).requests;
    rated = `start_date=${start}&end_date=${end}&param[adults]=2&param[children]=1`;
  });

  /** The service's calls for one request, after the first (which reads the configuration and catalogue). */
  const serviceShapes = async (send: (sourceIp: string) => Promise<{ status: number }>) => {
    const sourceIp = `198.51.100.${++client}`;
    service.shapes.length = 0;
    expect((await send(sourceIp)).status).toBe(200);
    return [...service.shapes];
  };
  const floorShapes = async (request: FloorRequest) => {
    floor.shapes.length = 0;
    await requests[request]();
    return [...floor.shapes];
  };
  const get =
    (path: string, query = '') =>
    (sourceIp: string) =>
      invoke(path.endsWith('/ical') ? handlers.channels : handlers.items, { path, query, sourceIp });

  it.each([
    ['unratedList', 'item', ''],
    ['ratedList', 'item', 'rated'],
    ['ratedItem', 'item/1', 'rated'],
    ['calendar', 'item/1/cal', 'calendar'],
    ['channelFeed', `item/${FEED_ITEM}/ical`, 'feed'],
  ] as const)('reads as the service does: %s', async (request, path, query) => {
    const search =
      query === 'rated'
        ? rated
        : query === 'calendar'
          ? `start_date=${start}&end_date=${addDays(start, 89)}`
          : query === 'feed'
            ? `token=${feedToken}`
            : '';
    await serviceShapes(get(path, search));
    const expected = await serviceShapes(get(path, search));
    expect((await floorShapes(request)).sort(byCall)).toEqual(expected.sort(byCall));
  });

  it('adds and books again and again, as the benchmark runs it (each add a client of its own, in every process)', async () => {
    // Issue 41's guess that a cart's first hold starts its client's holding refused a second add by the same
    // client while its first cart held the nights: the floor's own warm-up failed at once.
    for (let round = 0; round < 10; round += 1) {
      await requests.addSlip();
      await requests.addSlip();
      await requests.create();
    }
    // And the floors of two processes on one table (the benchmark's and the ceiling's server), each holding.
    const end = addDays(start, 7);
    const [one, two] = [1, 2].map(
      () => floorCalls(floor.db, { size: 20, start, end, feedTokenHash: hashToken(feedToken) }).requests,
    );
    await one?.addSlip();
    await two?.addSlip();
    await two?.create();
  });

  it('writes as the service does for an add and a booking: the same calls, actions and index writes, about as large', async () => {
    const slip = async () =>
      (await invoke(handlers.items, { path: 'item/1', query: rated })).json.item.rate.slip;
    const addWith = (rated: string) => (sourceIp: string) =>
      invoke(handlers.session, {
        method: 'POST',
        path: 'booking/session',
        body: `slip[]=${encodeURIComponent(rated)}`,
        contentType: form,
        sourceIp,
      });
    const book = async (sourceIp: string) => {
      const added = await addWith(await slip())(sourceIp);
      service.shapes.length = 0;
      return invoke(handlers.bookings, {
        method: 'POST',
        path: 'booking/create',
        body: `session_id=${added.json.booking.session.id}&form[customer_name]=Bench&form[customer_email]=bench@example.com`,
        contentType: form,
        sourceIp,
      });
    };
    // The first booking creates the benchmark's one customer; every later one finds it.
    await serviceShapes(book);
    const comparisons = [
      {
        name: 'add',
        service: await serviceShapes(addWith(await slip())),
        floor: await floorShapes('addSlip'),
      },
      { name: 'create', service: await serviceShapes(book), floor: await floorShapes('create') },
    ];
    for (const { name, service: expected, floor: actual } of comparisons) {
      const strip = (shapes: CallShape[]) =>
        shapes.map((shape) => ({
          ...shape,
          ...(shape.actions ? { actions: shape.actions.map(({ bytes: _, ...rest }) => rest) } : {}),
        }));
      expect(strip(actual).sort(byCall), name).toEqual(strip(expected).sort(byCall));
      const sizes = (shapes: CallShape[]) =>
        shapes.flatMap((shape) => shape.actions ?? []).map((a) => a.bytes);
      const [ours, theirs] = [sizes(actual), sizes(expected)];
      // Each action within 15 % of the service's size: a write's cost grows with the item's size.
      theirs.forEach((bytes, index) => {
        const ratio = (ours[index] ?? 0) / bytes;
        expect(
          Math.abs(ratio - 1),
          `${name}, action ${index}: ${ours[index]} bytes for ${bytes}`,
        ).toBeLessThan(0.15);
      });
    }
  });
});
