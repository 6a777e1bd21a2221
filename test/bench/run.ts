import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import { freePort, type LocalDynamo, startLocalDynamo } from '#infra/local/dynamodb.ts';
import { addDays, todayIn } from '#lib/core/dates.ts';
import { createDb } from '#lib/db/client.ts';
import { ITEM_PARTITION, itemKey, sessionKey, stockKey } from '#lib/db/keys.ts';
import { ensureTable } from '#lib/db/table-admin.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { runReconcile } from '#lib/domain/reconcile-run.ts';
import { benchTenant, CONTENDED_ITEM, CONTENDED_STOCK } from './tenant.ts';

// npm run bench: HTTP load against the local stack (the same handlers as in AWS), each scenario beside
// the bare DynamoDB Local calls it cannot avoid, and the size and import time of each function bundle.
// Knobs: BENCH_SIZES (20,200), BENCH_CONCURRENCY (8), BENCH_SECONDS (8), DYNAMODB_ENDPOINT.

const SIZES = (process.env.BENCH_SIZES ?? '20,200').split(',').map(Number);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '8').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const say = (line: string) => process.stdout.write(`${line}\n`);

interface Row {
  scenario: string;
  items: number;
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  floor?: number;
  ratio?: number;
  note?: string;
}

let nextClient = 0;

/** Gives each autocannon connection a client address of its own (and the scenario's headers). */
const asClients = (headers: Record<string, string> = {}) => ({
  setupClient: (client: { setHeaders: (headers: Record<string, string>) => void }) => {
    nextClient += 1;
    client.setHeaders({
      ...headers,
      'x-forwarded-for': `10.${(nextClient >> 16) & 255}.${(nextClient >> 8) & 255}.${nextClient & 255}`,
    });
  },
});

const startServer = async (env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> => {
  const child = spawn('node_modules/.bin/tsx', ['infra/local/start.ts'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      ...env,
    },
  });
  let log = '';
  child.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + 60_000;
  while (!/listening on (\S+)/.test(log)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start: ${log}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return { child, base: /listening on (\S+)/.exec(log)?.[1] ?? '' };
};

const stopServer = async (child: ChildProcess) => {
  process.kill(-(child.pid as number), 'SIGTERM');
  await new Promise((done) => child.once('exit', done));
};

/** Runs `work` on `concurrency` workers for `seconds`, and returns completed operations per second. */
async function measureFloor(
  concurrency: number,
  seconds: number,
  work: () => Promise<unknown>,
): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await work();
        done += 1;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

const summarize = (result: autocannon.Result) => ({
  rps: Math.round(result.requests.average),
  p50: result.latency.p50,
  p99: result.latency.p99,
  max: result.latency.max,
  errors: result.errors + result.timeouts + result.non2xx,
});

const form = 'application/x-www-form-urlencoded';

async function benchSize(options: { size: number; endpoint: string }): Promise<Row[]> {
  const { size } = options;
  const start = addDays(todayIn('America/Toronto', Date.now()), 60);
  const end = addDays(start, 7);
  const tenant = benchTenant(size, start);
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const tenantFile = join(dir, 'tenant.json');
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
  });
  const base = server.base;
  const rated = `start_date=${start}&end_date=${end}&param[adults]=2&param[children]=1`;
  const slipOf = async (itemId: number, query: string) => {
    const body = (await (await fetch(`${base}/item/${itemId}?${query}`)).json()) as {
      item: { rate: { slip: string } };
    };
    return body.item.rate.slip;
  };
  const slip = await slipOf(1, rated);
  const rows: Row[] = [];

  // The DynamoDB calls each scenario cannot avoid, for the floor.
  const queryItems = () =>
    db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': ITEM_PARTITION },
      }),
    );
  const getItem = () => db.client.send(new GetCommand({ TableName: db.tableName, Key: itemKey(1) }));
  const queryStock = (itemId: number, last = end) =>
    db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: { ':pk': `STOCK#${itemId}`, ':a': start, ':b': last },
      }),
    );
  const holdTransaction = () =>
    db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          ...Array.from({ length: 7 }, (_, night) => ({
            Update: {
              TableName: db.tableName,
              Key: stockKey(2, addDays(start, night)),
              UpdateExpression: 'SET used = if_not_exists(used, :zero) + :one',
              ConditionExpression: 'attribute_not_exists(used) OR used <= :room',
              ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':room': 99_999_999 },
            },
          })),
          { Put: { TableName: db.tableName, Item: { ...sessionKey(randomUUID()), entity: 'floor' } } },
        ],
      }),
    );
  const createTransaction = () =>
    db.client.send(
      new TransactWriteCommand({
        TransactItems: ['a', 'b', 'c', 'd'].map((kind) => ({
          Put: { TableName: db.tableName, Item: { pk: `FLOOR#${randomUUID()}`, sk: kind, entity: 'floor' } },
        })),
      }),
    );
  const floors: Record<string, () => Promise<unknown>> = {
    'unrated list': queryItems,
    'rated list, 7 nights': () =>
      Promise.all([queryItems(), ...Array.from({ length: size }, (_, i) => queryStock(i + 1))]),
    'rated item, 7 nights': () => Promise.all([getItem(), queryStock(1)]),
    'calendar, 90 days': () => Promise.all([getItem(), queryStock(1, addDays(start, 90))]),
    'add a SLIP': async () => {
      await getItem();
      await holdTransaction();
    },
    'full flow (rate, add, create)': async () => {
      await Promise.all([getItem(), queryStock(1)]);
      await holdTransaction();
      await createTransaction();
    },
  };

  const scenarios: {
    name: string;
    run: (connections: number) => Promise<autocannon.Result>;
    per?: number;
  }[] = [
    {
      name: 'unrated list',
      run: (connections) =>
        autocannon({ url: `${base}/item`, connections, duration: SECONDS, ...asClients() }),
    },
    {
      name: 'rated list, 7 nights',
      run: (connections) =>
        autocannon({ url: `${base}/item?${rated}`, connections, duration: SECONDS, ...asClients() }),
    },
    {
      name: 'rated item, 7 nights',
      run: (connections) =>
        autocannon({ url: `${base}/item/1?${rated}`, connections, duration: SECONDS, ...asClients() }),
    },
    {
      name: 'calendar, 90 days',
      run: (connections) =>
        autocannon({
          url: `${base}/item/1/cal?start_date=${start}&end_date=${addDays(start, 89)}`,
          connections,
          duration: SECONDS,
          ...asClients(),
        }),
    },
    {
      name: 'add a SLIP',
      run: (connections) =>
        autocannon({
          url: `${base}/booking/session`,
          connections,
          duration: SECONDS,
          method: 'POST',
          body: `slip[]=${slip}`,
          ...asClients({ 'content-type': form }),
        }),
    },
    {
      name: 'full flow (rate, add, create)',
      per: 3,
      run: (connections) =>
        autocannon({
          url: base,
          connections,
          duration: SECONDS,
          // The client's headers go on every request of the flow (a request's own headers would replace them).
          ...asClients({ 'content-type': form }),
          requests: [
            {
              method: 'GET',
              path: `/api/3.0/item/1?${rated}`,
              onResponse: (_status, body, context) => {
                (context as Record<string, unknown>).slip = JSON.parse(body).item?.rate?.slip;
              },
            },
            {
              method: 'POST',
              path: '/api/3.0/booking/session',
              setupRequest: (request, context) => ({
                ...request,
                body: `slip[]=${(context as Record<string, unknown>).slip}`,
              }),
              onResponse: (_status, body, context) => {
                (context as Record<string, unknown>).session = JSON.parse(body).booking?.session?.id;
              },
            },
            {
              method: 'POST',
              path: '/api/3.0/booking/create',
              setupRequest: (request, context) => ({
                ...request,
                body: `session_id=${(context as Record<string, unknown>).session}&form[customer_name]=Bench&form[customer_email]=bench@example.com`,
              }),
            },
          ],
        }),
    },
  ];

  for (const connections of CONCURRENCY) {
    for (const scenario of scenarios) {
      const result = summarize(await scenario.run(connections));
      const floor = await measureFloor(
        connections,
        Math.min(SECONDS, 5),
        floors[scenario.name] as () => Promise<unknown>,
      );
      const throughput = result.rps / (scenario.per ?? 1);
      rows.push({
        scenario: scenario.name,
        items: size,
        concurrency: connections,
        ...result,
        floor: Math.round(floor),
        ratio: Math.round((throughput / floor) * 100) / 100,
        ...(scenario.per ? { note: `${Math.round(throughput)} flows/s` } : {}),
      });
      say(`  ${size} items, c=${connections}: ${scenario.name}: ${result.rps} req/s, p99 ${result.p99} ms`);
    }
  }

  // Contention: 100 clients race once each for the 10 units of one item-date.
  const contended = await slipOf(CONTENDED_ITEM, `date=${start}&param[adults]=1`);
  const started = Date.now();
  const race = await autocannon({
    url: `${base}/booking/session`,
    connections: 100,
    amount: 100,
    method: 'POST',
    body: `slip[]=${contended}`,
    ...asClients({ 'content-type': form }),
  });
  const seconds = (Date.now() - started) / 1000;
  const won = race['2xx'];
  const audit = await runReconcile(db, { fix: false, now: Date.now() });
  const oversold = audit.discrepancies.filter((entry) => entry.used > entry.capacity).length;
  rows.push({
    scenario: 'contention: 100 clients, 10 units',
    items: size,
    concurrency: 100,
    rps: Math.round(100 / seconds),
    p50: race.latency.p50,
    p99: race.latency.p99,
    max: race.latency.max,
    errors: race.errors + race.timeouts,
    note: `${won} held (of ${CONTENDED_STOCK}), ${race.non2xx} refused, ${oversold} oversold, ${audit.discrepancies.length} discrepancies`,
  });
  await stopServer(server.child);
  return rows;
}

/** Size and import time of each function bundle as the CDK build produces it. */
function coldStarts(): { function: string; bytes: number; importMs: number }[] {
  const out = mkdtempSync(join(tmpdir(), 'bench-cdk-'));
  execFileSync('npx', ['cdk', 'synth', '-c', 'tenant=demo', '--no-notices', '-q', '-o', out], {
    stdio: 'ignore',
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
  });
  const templateFile = readdirSync(out).find((name) => name.endsWith('.template.json')) ?? '';
  const template = JSON.parse(readFileSync(join(out, templateFile), 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
  };
  const env = {
    ...process.env,
    TABLE_NAME: 'bench',
    AWS_REGION: 'us-east-1',
    SLIP_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  return Object.entries(template.Resources)
    .filter(
      ([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Metadata?.['aws:asset:path'],
    )
    .map(([id, resource]) => {
      const file = join(out, resource.Metadata?.['aws:asset:path'] ?? '', 'index.mjs');
      const times = Array.from({ length: 5 }, () =>
        Number(
          execFileSync(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`,
            ],
            { env, encoding: 'utf8' },
          ).trim(),
        ),
      ).sort((a, b) => a - b);
      return {
        function: id.replace(/^Functions/, '').replace(/[A-F0-9]{8}$/, ''),
        bytes: statSync(file).size,
        importMs: Math.round(times[2] ?? 0),
      };
    });
}

async function main() {
  const dynamo: LocalDynamo | undefined = process.env.DYNAMODB_ENDPOINT
    ? undefined
    : await startLocalDynamo();
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? (dynamo as LocalDynamo).endpoint;
  try {
    const rows: Row[] = [];
    for (const size of SIZES) {
      say(`benchmarking ${size} items`);
      rows.push(...(await benchSize({ size, endpoint })));
    }
    say('measuring function bundles');
    const bundles = coldStarts();
    const date = new Date().toISOString();
    say(`\nBenchmark ${date} (${SECONDS} s per scenario; floor = bare DynamoDB Local calls per second)`);
    say('| scenario | items | c | req/s | p50 ms | p99 ms | max ms | errors | floor/s | ratio | note |');
    say('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      say(
        `| ${row.scenario} | ${row.items} | ${row.concurrency} | ${row.rps} | ${row.p50} | ${row.p99} | ${row.max} | ${row.errors} | ${row.floor ?? ''} | ${row.ratio ?? ''} | ${row.note ?? ''} |`,
      );
    }
    say('\n| function | minified bytes | import ms (median of 5) |');
    say('|---|---|---|');
    for (const bundle of bundles) say(`| ${bundle.function} | ${bundle.bytes} | ${bundle.importMs} |`);
    writeFileSync(
      'bench-results.json',
      `${JSON.stringify({ date, seconds: SECONDS, rows, bundles }, null, 2)}\n`,
    );
    say('\nwrote bench-results.json');
  } finally {
    await dynamo?.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
