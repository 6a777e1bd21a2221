import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { countDbUsage, emptyDbUsage } from '#infra/local/db-usage.ts';
import { freePort, type LocalDynamo, startLocalDynamo } from '#infra/local/dynamodb.ts';
import { hashToken } from '#lib/access/secrets.ts';
import { rotateFeedToken } from '#lib/channels/feed-tokens.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn, type Ymd } from '#lib/kernel/dates.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { type BundleResult, measureBundles, stripeSdkPlaces, synthFunctions } from './bundles.ts';
import { benchChannelsOnly, type ChannelRound, channelTable, measureChannelRounds } from './channels.ts';
import { benchColdStarts, type ColdResult } from './cold.ts';
import { costPer1kRequests } from './cost.ts';
import { startCpuMeter } from './cpu.ts';
import { floorCalls, measureFloor, warmUntilSettled } from './floor.ts';
import { type HostileRead, hostileTable, measureHostileReads } from './hostile-feeds.ts';
import type { PaymentRow } from './payment-load.ts';
import { measurePayments, paymentTable } from './payments.ts';
import { bundleTable, coldTable, cpuTable, type Row, scenarioTable, writeResults } from './report.ts';
import { loadScenarios, raceFor, serviceBodies } from './scenarios.ts';
import { startServer, stopServer } from './server.ts';
import { measureSweeperFlood, sweeperTable } from './sweeper.ts';
import { benchTenant, CONTENDED_ITEM, CONTENDED_STOCK, FEED_ITEM } from './tenant.ts';
import { settledUsage, type UsageSnapshot, usageBetween } from './usage.ts';

// npm run bench: HTTP load against the local stack (the same handlers as in AWS), each scenario beside
// the bare DynamoDB Local calls it cannot avoid, its DynamoDB calls and capacity per request as the
// runner counted them, its on-demand cost, and the size and import time of each function bundle.
// Knobs: BENCH_SIZES (20,200), BENCH_CONCURRENCY (8), BENCH_SECONDS (8), DYNAMODB_ENDPOINT, BENCH_CPU_PROF
// (a directory: the runner writes a CPU profile there), BENCH_ONLY (scenarios whose name contains it; no race,
// no channel rounds). After the sizes, one round of channel sync at 50 channels × 365 days (test/bench/channels.ts)
// and the sweeper clearing 10,000 expired carts (test/bench/sweeper.ts; 1,000 in a quick run).
// `npm run bench -- --cold`: only the cold starts (test/bench/cold.ts; BENCH_COLD_RUNS, 15), which a full run
// measures after the bundles.
// `npm run bench -- --steady`: a full run without the bundles and cold starts (old and new side by side).
// `npm run bench -- --channels`: only the channel sync rounds and the hostile feeds' reads (issue 41).
// `npm run bench -- --quick`: a smoke check in under a minute (20 items, 2 s a scenario, 1 s floors, no bundles,
// no ceiling unless `--ceiling`).
// After each size's scenarios, the payment rows (issue 43, test/bench/payments.ts): a create with a deposit due
// beside one without, and the provider's webhook route; BENCH_ONLY=payments runs only them. Knobs:
// BENCH_PAYMENT_CREATES (40 a second of BENCH_SECONDS), BENCH_WEBHOOK_EVENTS (20 a second, each row),
// BENCH_WEBHOOK_CONCURRENCY (1,4,16).

const QUICK = process.argv.includes('--quick');
const COLD_ONLY = process.argv.includes('--cold');
const STEADY = process.argv.includes('--steady');
const CHANNELS_ONLY = process.argv.includes('--channels');
const SIZES = (process.env.BENCH_SIZES ?? (QUICK ? '20' : '20,200')).split(',').map(Number);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '8').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 8));
// A quick run is a smoke check: one-second floors (noisier ratios) keep it under a minute.
const FLOOR_SECONDS = QUICK ? 1 : Math.min(SECONDS, 5);
const WARM_UP_SECONDS = QUICK ? 1 : 2;
// Before any of that, DynamoDB Local's floors run in rounds until their rates settle (its JIT); no round
// starts after this many seconds: a quick run only starts it.
const DYNAMO_WARM_UP_MAX_SECONDS = QUICK ? 4 : 120;
// The ceiling runs every scenario again against a server that makes only the floor's calls: in full runs,
// or in a quick one with --ceiling.
const CEILING = !QUICK || process.argv.includes('--ceiling');
const ONLY = process.env.BENCH_ONLY;
/** The payment rows' names, which BENCH_ONLY may pick (or `payments`, all of them). */
const PAYMENT_NAMES = ['payments', 'create, no payment due', 'create, 30 % deposit due', 'webhook: '];
const PAYMENTS = !ONLY || PAYMENT_NAMES.some((name) => name.includes(ONLY));
const PAYMENT_CREATES = Number(process.env.BENCH_PAYMENT_CREATES ?? Math.max(40, 40 * SECONDS));
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? Math.max(40, 20 * SECONDS));
const WEBHOOK_CONCURRENCY = (process.env.BENCH_WEBHOOK_CONCURRENCY ?? '1,4,16').split(',').map(Number);
/**
 * What the payment measurements found wrong (a duplicate that cost more than its refused claim and its read,
 * the Stripe SDK where it must not be, or missing where it must): the run fails on any, after writing its
 * results.
 */
const paymentChecks: string[] = [];
const say = (line: string) => process.stdout.write(`${line}\n`);

/** Latency figures, DynamoDB usage and cost of one autocannon run between two usage snapshots. */
function measured(result: autocannon.Result, before: UsageSnapshot, after: UsageSnapshot) {
  const usage = usageBetween(before, after);
  const mean = Math.round(result.latency.mean * 100) / 100;
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    mean,
    usage,
    cost: costPer1kRequests({ rcu: usage.rcuPerRequest, wcu: usage.wcuPerRequest, meanMs: mean }),
  };
}

async function benchSize(options: {
  size: number;
  endpoint: string;
  /** DynamoDB Local's Java process, whose CPU each measurement counts (none when DYNAMODB_ENDPOINT names another). */
  dynamoPid?: number;
}): Promise<Row[]> {
  const { size } = options;
  const start = addDays(todayIn('America/Toronto', Date.now()), 60);
  const end = addDays(start, 7);
  const tenant = benchTenant(size, start);
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const tenantFile = join(dir, 'tenant.json');
  const usageFile = join(dir, 'dynamodb-usage.json');
  writeFileSync(tenantFile, JSON.stringify(tenant));
  const tableName = `bench-${size}-${randomUUID().slice(0, 8)}`;
  const db = createDb({ endpoint: options.endpoint, tableName });
  await ensureTable(db);
  await writeTenant(db, tenant, Date.now());
  const port = await freePort();
  const server = await startServer({
    PORT: String(port),
    DATA_DIR: dir,
    DYNAMODB_ENDPOINT: options.endpoint,
    TABLE_NAME: tableName,
    TENANT_FILE: tenantFile,
    SWEEP_INTERVAL_MS: '60000',
    // Each connection is a client of its own, named by X-Forwarded-For through this trusted proxy, as
    // real traffic is: one address per guest, not one for the whole load.
    TRUSTED_PROXIES: '127.0.0.1',
    DYNAMODB_USAGE_FILE: usageFile,
  });
  try {
    const base = server.base;
    const rated = `start_date=${start}&end_date=${end}&param[adults]=2&param[children]=1`;
    const slipOf = async (itemId: number, query: string) => {
      const body = (await (await fetch(`${base}/item/${itemId}?${query}`)).json()) as {
        item: { rate: { slip: string } };
      };
      return body.item.rate.slip;
    };
    const slip = await slipOf(1, rated);
    const feedToken = await rotateFeedToken(db, {
      scope: { kind: 'item', itemId: FEED_ITEM },
      now: Date.now(),
    });
    const feed = `/item/${FEED_ITEM}/ical?token=${feedToken}`;
    // The floor's calls carry what the runner's do under DYNAMODB_USAGE_FILE (ReturnConsumedCapacity):
    // the same calls with the same parameters, so the instrument costs both sides alike.
    const floorDb = createDb({
      endpoint: options.endpoint,
      tableName,
      instrument: countDbUsage(emptyDbUsage()),
    });
    const floors = floorCalls(floorDb, { size, start, end, feedTokenHash: hashToken(feedToken) }).scenarios;
    const rows: Row[] = [];
    const selected = loadScenarios({ base, rated, start, slip, feed, seconds: WARM_UP_SECONDS }).filter(
      (scenario) => !ONLY || scenario.name.includes(ONLY),
    );
    // The payment rows alone warm DynamoDB Local on the floors of the requests they make most: adds and creates.
    const warming = selected.length
      ? selected.map((scenario) => scenario.name)
      : ['full flow (rate, add, create)'];
    const warmed = await warmUntilSettled(
      warming.map((name) => floors[name] as () => Promise<unknown>),
      {
        concurrency: Math.max(...CONCURRENCY),
        roundSeconds: QUICK ? 0.5 : 1,
        minRoundSeconds: QUICK ? 1 : 6,
        maxSeconds: DYNAMO_WARM_UP_MAX_SECONDS,
      },
    );
    say(
      `  DynamoDB Local warmed for ${warmed.seconds.toFixed(0)} s${warmed.settled ? ', floors settled' : ''}`,
    );
    // Warm-up, not measured: the runner's JIT is cold at first, which made the first size of a run look
    // slower than the next. (The floors were warmed above.)
    // What the runner has answered, at least: its usage file is a scenario's start only once it counts them.
    let answered = (await settledUsage(usageFile)).served;
    for (const scenario of selected) {
      const result = await scenario.run(Math.max(...CONCURRENCY));
      answered += result['2xx'] + result.non2xx;
    }
    for (const connections of CONCURRENCY) {
      const scenarios = loadScenarios({ base, rated, start, slip, feed, seconds: SECONDS });
      for (const scenario of scenarios.filter((one) => !ONLY || one.name.includes(ONLY))) {
        const before = await settledUsage(usageFile, answered);
        const cpu = startCpuMeter({ server: server.child.pid, dynamoDb: options.dynamoPid });
        const result = await scenario.run(connections);
        const serviceCpu = cpu(result.requests.total);
        const after = await settledUsage(usageFile, before.served + result['2xx'] + result.non2xx);
        answered = after.served;
        const floorCpu = startCpuMeter({ dynamoDb: options.dynamoPid });
        const floorStarted = Date.now();
        const floor = await measureFloor(
          connections,
          FLOOR_SECONDS,
          floors[scenario.name] as () => Promise<unknown>,
        );
        const rps = Math.round(result.requests.average);
        const throughput = rps / (scenario.per ?? 1);
        rows.push({
          scenario: scenario.name,
          items: size,
          concurrency: connections,
          rps,
          errors: result.errors + result.timeouts + result.non2xx,
          ...measured(result, before, after),
          floor: Math.round(floor),
          cpu: serviceCpu,
          // Per request, as the scenario's: a floor operation of the flow stands for its three requests.
          floorCpu: floorCpu(Math.round((floor * (scenario.per ?? 1) * (Date.now() - floorStarted)) / 1000)),
          ratio: Math.round((throughput / floor) * 100) / 100,
          ...(scenario.per ? { note: `${Math.round(throughput)} flows/s` } : {}),
        });
        say(
          `  ${size} items, c=${connections}: ${scenario.name}: ${rps} req/s, p99 ${result.latency.p99} ms`,
        );
      }
    }

    if (CEILING) {
      const bodies = await serviceBodies({ base, rated, start, slip, feed });
      await measureCeilings(rows, {
        dir,
        dynamoPid: options.dynamoPid,
        endpoint: options.endpoint,
        tableName,
        size,
        start,
        end,
        bodies,
        rated,
        slip,
        feed,
        feedTokenHash: hashToken(feedToken),
      });
    }
    if (PAYMENTS) {
      const payments = await measurePayments({
        size,
        start,
        endpoint: options.endpoint,
        plain: { server, usageFile },
        creates: PAYMENT_CREATES,
        events: WEBHOOK_EVENTS,
        concurrency: CONCURRENCY,
        webhookConcurrency: WEBHOOK_CONCURRENCY,
        ...(options.dynamoPid === undefined ? {} : { dynamoPid: options.dynamoPid }),
        rated,
        say,
      });
      rows.push(...payments.rows);
      paymentChecks.push(...payments.checks);
    }
    if (ONLY) return rows;
    // Contention: 100 clients race once each for the 10 units of one item-date.
    const contended = await slipOf(CONTENDED_ITEM, `date=${start}&param[adults]=1`);
    const before = await settledUsage(usageFile);
    const started = Date.now();
    const race = await raceFor(base, contended);
    const seconds = (Date.now() - started) / 1000;
    const after = await settledUsage(usageFile, before.served + race['2xx'] + race.non2xx);
    const audit = await runReconcile(db, { fix: false, now: Date.now() });
    const oversold = audit.discrepancies.filter((entry) => entry.used > entry.capacity).length;
    rows.push({
      scenario: 'contention: 100 clients, 10 units',
      items: size,
      concurrency: 100,
      rps: Math.round(100 / seconds),
      errors: race.errors + race.timeouts,
      ...measured(race, before, after),
      note: `${race['2xx']} held (of ${CONTENDED_STOCK}), ${race.non2xx} refused, ${oversold} oversold, ${audit.discrepancies.length} discrepancies`,
    });
    return rows;
  } finally {
    await stopServer(server.child);
  }
}

/**
 * Runs each scenario against the ceiling server (test/bench/ceiling-server.ts): the floor's calls and the
 * service's bytes, nothing else. Its ratio to the floor is the most any service could reach here, since
 * the HTTP exchange and the load generator share the machine's two cores with DynamoDB Local.
 */
async function measureCeilings(
  rows: Row[],
  options: {
    dir: string;
    endpoint: string;
    tableName: string;
    size: number;
    start: Ymd;
    end: Ymd;
    bodies: Record<string, string>;
    rated: string;
    slip: string;
    feed: string;
    feedTokenHash: string;
    dynamoPid?: number;
  },
) {
  const { dir, size, start, rated, slip, feed } = options;
  const file = join(dir, 'ceiling.json');
  writeFileSync(file, JSON.stringify(options));
  const server = await startServer({ CEILING_FILE: file }, 'test/bench/ceiling-server.ts');
  try {
    for (const connections of CONCURRENCY) {
      const scenarios = loadScenarios({ base: server.base, rated, start, slip, feed, seconds: SECONDS });
      for (const scenario of scenarios) {
        const row = rows.find(
          (entry) => entry.scenario === scenario.name && entry.concurrency === connections,
        );
        if (!row?.floor) continue;
        const cpu = startCpuMeter({ server: server.child.pid, dynamoDb: options.dynamoPid });
        const result = await scenario.run(connections);
        row.ceilingCpu = cpu(result.requests.total);
        const throughput = result.requests.average / (scenario.per ?? 1);
        row.ceiling = Math.round((throughput / row.floor) * 100) / 100;
        say(`  ${size} items, c=${connections}: ${scenario.name}: ceiling ${row.ceiling}`);
      }
    }
  } finally {
    await stopServer(server.child);
  }
}

/** `--cold`: the cold starts alone, printed and written to bench-results.json under `cold`. */
async function benchColdOnly(endpoint: string) {
  say('measuring cold starts');
  const functions = synthFunctions();
  paymentChecks.push(...stripeSdkPlaces(functions));
  const cold = await benchColdStarts({ endpoint, functions, say });
  const date = new Date().toISOString();
  say(
    `\nCold starts ${date} (fresh Node processes, function and floor alternating; DynamoDB Local on loopback)`,
  );
  for (const line of coldTable(cold)) say(line);
  writeResults('bench-results.json', {
    date,
    quick: false,
    seconds: 0,
    rows: [],
    bundles: [],
    channelRounds: [],
    cold,
    paymentChecks,
  });
  say('\nwrote bench-results.json');
  failOnPaymentChecks();
}

/** Says what the payment checks found wrong, and makes the run fail (once everything is stopped). */
function failOnPaymentChecks() {
  for (const check of paymentChecks) process.stderr.write(`payment check failed: ${check}\n`);
  if (paymentChecks.length) process.exitCode = 1;
}

async function main() {
  const began = Date.now();
  const dynamo: LocalDynamo | undefined = process.env.DYNAMODB_ENDPOINT
    ? undefined
    : await startLocalDynamo();
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? (dynamo as LocalDynamo).endpoint;
  try {
    if (COLD_ONLY) {
      await benchColdOnly(endpoint);
      return;
    }
    if (CHANNELS_ONLY) {
      await benchChannelsOnly(endpoint, say);
      return;
    }
    const rows: Row[] = [];
    for (const size of SIZES) {
      say(`benchmarking ${size} items`);
      rows.push(...(await benchSize({ size, endpoint, dynamoPid: dynamo?.process.pid })));
    }
    // One round of channel sync at 50 channels × 365 days (issue 30): its own table, the same DynamoDB Local.
    let channelRounds: ChannelRound[] = [];
    let hostileReads: HostileRead[] = [];
    if (!ONLY) {
      say('measuring channel sync rounds');
      channelRounds = await measureChannelRounds(endpoint);
      hostileReads = await measureHostileReads();
    }
    if (!ONLY) say('measuring the sweeper on a flood of expired carts');
    const sweeperFlood = ONLY ? undefined : await measureSweeperFlood(endpoint, QUICK ? 1_000 : 10_000);
    let bundles: BundleResult[] = [];
    let cold: ColdResult[] = [];
    if (!QUICK && !STEADY) {
      say('measuring function bundles');
      const functions = synthFunctions();
      bundles = measureBundles(functions);
      paymentChecks.push(...stripeSdkPlaces(functions));
      say('measuring cold starts');
      cold = await benchColdStarts({ endpoint, functions, say });
    }
    const date = new Date().toISOString();
    say(
      `\nBenchmark ${date}${QUICK ? ', quick' : ''} (${SECONDS} s per scenario; floor = bare DynamoDB Local calls per second; $ = AWS on-demand, us-east-1)`,
    );
    for (const line of scenarioTable(rows)) say(line);
    say('');
    for (const line of cpuTable(rows)) say(line);
    const paymentRows = rows.filter((row): row is PaymentRow => 'payment' in row);
    if (paymentRows.length) {
      say('');
      for (const line of paymentTable(paymentRows)) say(line);
    }
    if (channelRounds.length) {
      say('');
      for (const line of channelTable(channelRounds)) say(line);
      say('');
      for (const line of hostileTable(hostileReads)) say(line);
    }
    for (const line of sweeperFlood ? ['', ...sweeperTable(sweeperFlood)] : []) say(line);
    if (bundles.length) {
      say('');
      for (const line of bundleTable(bundles)) say(line);
    }
    if (cold.length) {
      say('');
      for (const line of coldTable(cold)) say(line);
    }
    writeResults('bench-results.json', {
      date,
      quick: QUICK,
      seconds: SECONDS,
      rows,
      bundles,
      channelRounds,
      hostileReads,
      ...(sweeperFlood ? { sweeperFlood } : {}),
      cold,
      paymentChecks,
    });
    say('\nwrote bench-results.json');
    failOnPaymentChecks();
  } finally {
    await dynamo?.stop();
  }
  say(`elapsed ${((Date.now() - began) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
