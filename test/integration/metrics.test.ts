import type { Metrics } from '@aws-lambda-powertools/metrics';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import { createCredential } from '#lib/access/credential-admin.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { METRIC, METRICS_NAMESPACE } from '#lib/kernel/metric-names.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createMetrics, meterAnswer, meterOf } from '#lib/runtime/metrics.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, watchCommands } from '#test/support/dynamo.ts';
import { basic, invoke } from '#test/support/events.ts';
import { sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

interface Emf {
  _aws: {
    CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }>;
  };
  [key: string]: unknown;
}

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let client: ReturnType<typeof sessionClient>;
let metrics: Metrics;
/** Every embedded-metric-format document the handlers flushed, as CloudWatch would read it from the log. */
let flushed: Emf[] = [];
const day = addDays(todayIn('America/Toronto', Date.now()), 40);
/** The handlers' clock: it stands still but for what a test moves it by. */
let now = Date.now();
/** How far each transaction the handlers write moves their clock (the time DynamoDB takes, as a test sets it). */
let transactionMs = 0;

/** The values of a metric across what was flushed, each checked for its namespace and dimensions. */
const valuesOf = (name: string): number[] =>
  flushed.flatMap((document) => {
    const directive = document._aws.CloudWatchMetrics[0];
    if (!directive?.Metrics.some((metric) => metric.Name === name)) return [];
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    expect(directive.Dimensions).toEqual([['service', 'tenant']]);
    expect(document).toMatchObject({ service: 'booking-api', tenant: 'metrics' });
    return [document[name]].flat() as number[];
  });

beforeAll(async () => {
  db = await createTestDb('metrics');
  await writeTenant(
    db,
    makeTenant(
      makeTenantJson({
        tenant: 'metrics',
        settings: { booking_code_prefix: 'MET', limits: { requests_per_minute: 8 } },
        items: [
          makeItem({ item_id: 1, stock: 4 }),
          makeItem({ item_id: 2, sku: 'last', name: 'Last', stock: 1 }),
        ],
        accounts: [{ account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada' }],
      }),
    ),
    Date.now(),
  );
  metrics = createMetrics('metrics');
  // What logMetrics flushes after each invocation, captured instead of written to stdout.
  metrics.publishStoredMetrics = () => {
    if (metrics.hasStoredMetrics()) flushed.push(metrics.serializeMetrics() as unknown as Emf);
    metrics.clearMetrics();
    return metrics;
  };
  const timed = watchCommands(db, (name) => {
    if (name === 'TransactWriteCommand') now += transactionMs;
  });
  handlers = createAllHandlers({ ...testDeps(timed, { clock: () => now }), metrics });
  client = sessionClient(handlers);
});

beforeEach(() => {
  flushed = [];
});

describe('the metrics of the API (Powertools, embedded metric format)', () => {
  it('counts holds made and holds refused for want of stock, flushed with every answer', async () => {
    const slip = await client.slip(2, `date=${day}&param[qty]=1`);
    expect((await client.add([slip])).status).toBe(200);
    expect(valuesOf(METRIC.holdsMade)).toEqual([1]);
    const again = await client.slip(2, `date=${day}&param[qty]=1`).catch(() => undefined);
    // Sold out: no SLIP to rate; an old SLIP of the last unit is refused with 409 unavailable.
    expect(again).toBeUndefined();
    const refused = await client.add([slip]);
    expect(refused.json.request.error.id).toBe('unavailable');
    expect(valuesOf(METRIC.holdsRefusedUnavailable)).toEqual([1]);
  });

  it('times the rated list (not the unrated one) and booking/create, and counts bookings and status changes', async () => {
    await invoke(handlers.items, { path: 'item' });
    expect(valuesOf(METRIC.ratedListLatency)).toEqual([]);
    await invoke(handlers.items, { path: 'item', query: `date=${addDays(day, 1)}` });
    expect(valuesOf(METRIC.ratedListLatency)).toHaveLength(1);

    const slip = await client.slip(1, `date=${addDays(day, 1)}&param[qty]=1`);
    const session = sessionOf(await client.add([slip]));
    // The booking's transaction takes 1.5 s of the handlers' clock; nothing else moves it.
    transactionMs = 1_500;
    const created = await invoke(handlers.bookings, {
      method: 'POST',
      path: 'booking/create',
      body: `session_id=${session.id}&form[customer_name]=Ada&form[customer_email]=ada@example.com`,
      contentType: 'application/x-www-form-urlencoded',
    });
    transactionMs = 0;
    expect(created.status).toBe(200);
    expect(valuesOf(METRIC.bookingsCreated)).toEqual([1]);
    expect(valuesOf(METRIC.bookingCreateLatency)).toEqual([1_500]);

    const { key, secret } = await createCredential(db, {
      accountId: 1,
      onBehalf: false,
      label: 'desk',
      now: Date.now(),
    });
    const updated = await invoke(handlers.bookings, {
      method: 'POST',
      path: `booking/${created.json.booking.code}/update`,
      query: 'status_id=PAID',
      headers: { authorization: basic(key, secret) },
    });
    expect(updated.status).toBe(200);
    expect(valuesOf(METRIC.statusChanges)).toEqual([1]);
  });

  it("counts the 429s of the service's own limits", async () => {
    const statuses: number[] = [];
    for (let call = 0; call < 10; call += 1)
      statuses.push((await invoke(handlers.meta, { path: 'company', sourceIp: '198.18.0.7' })).status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(valuesOf(METRIC.throttled)).toHaveLength(statuses.filter((status) => status === 429).length);
  });
});

describe('what each answer reports', () => {
  const recorded: Array<[string, number]> = [];
  const meter = meterOf({
    addMetric: (name: string, _unit: unknown, value: number) => recorded.push([name, value]),
  });

  it('names each refusal once, by its error id and route', () => {
    recorded.length = 0;
    meterAnswer(meter, { route: 'session.write', errorId: 'hold_limit', ms: 3 });
    meterAnswer(meter, { route: 'booking.update', errorId: 'busy', ms: 3 });
    meterAnswer(meter, { route: 'session.write', errorId: 'unavailable', ms: 3 });
    // Refused at create is not a hold refused: the cart's holds were already counted.
    meterAnswer(meter, { route: 'booking.create', errorId: 'unavailable', ms: 7 });
    meterAnswer(meter, { route: 'item.list', errorId: 'validation_error', ms: 1 });
    expect(recorded).toEqual([
      [METRIC.holdsRefusedHoldLimit, 1],
      [METRIC.busy, 1],
      [METRIC.holdsRefusedUnavailable, 1],
      [METRIC.bookingCreateLatency, 7],
    ]);
  });
});

describe("the sweeper's metrics", () => {
  it('flushes nothing after a sweep with nothing to release, and the releases after one that released', async () => {
    // The carts held by the tests above are still live now: nothing to release.
    await createSweeper({ db, meter: meterOf(metrics) })();
    metrics.publishStoredMetrics();
    expect(flushed).toEqual([]);

    // Two hours on, they have expired: the sweep releases them and says so, with no lag left behind.
    const later = Date.now() + 2 * 3_600_000;
    const report = await createSweeper({ db, meter: meterOf(metrics), clock: () => later })();
    metrics.publishStoredMetrics();
    expect(report).toMatchObject({ complete: true, lagSeconds: 0 });
    expect(report.released).toBeGreaterThan(0);
    expect(valuesOf(METRIC.sweeperReleases)).toEqual([report.released]);
    expect(valuesOf(METRIC.sweeperLagSeconds)).toEqual([]);
  });
});
