import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, startLocalDynamo } from '#infra/local/dynamodb.ts';
import { rotateFeedToken } from '#lib/channels/feed-tokens.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { loadScenarios } from './scenarios.ts';
import { type BenchServer, startServer, stopServer } from './server.ts';
import { benchTenant, FEED_ITEM } from './tenant.ts';

// `npm run bench:side-by-side -- <older checkout>`: the steady-state scenarios against this checkout's
// runner and an older one's (issue 33: no scenario may lose more than 10 %), both started on the same
// DynamoDB Local and the same tenant table, taking turns: each round runs a scenario on one and then on the
// other, which goes first alternating, so an hour's drift in this VM's speed falls on both alike.
// Knobs: BENCH_SIZES (20,200), BENCH_SECONDS (8), BENCH_ROUNDS (4), BENCH_CONCURRENCY (8), BENCH_ONLY (the
// scenarios whose name contains it).

const older = resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('Give the older checkout: npm run bench:side-by-side -- /tmp/old');
const SIZES = (process.env.BENCH_SIZES ?? '20,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONCURRENCY ?? 8);
const say = (line: string) => process.stdout.write(`${line}\n`);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

interface Side {
  name: 'old' | 'new';
  server: BenchServer;
  slip: string;
}

async function startSide(
  name: Side['name'],
  env: Record<string, string>,
  rated: string,
  tenant: ReturnType<typeof benchTenant>,
): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), `side-${name}-`));
  const port = await freePort();
  // The older checkout's schema refuses keys it never knew: its file leaves out a payment setting that takes
  // none (issue 43's default, the behaviour from before payments).
  const { payment, ...settings } = tenant.settings;
  const file = join(dir, 'tenant.json');
  writeFileSync(
    file,
    JSON.stringify(name === 'old' && payment.take === 'none' ? { ...tenant, settings } : tenant),
  );
  const server = await startServer(
    { ...env, PORT: String(port), DATA_DIR: dir, TENANT_FILE: file },
    name === 'old' ? join(older, 'infra/local/start.ts') : 'infra/local/start.ts',
    name === 'old' ? older : undefined,
  );
  const answer = (await (await fetch(`${server.base}/item/1?${rated}`)).json()) as {
    item: { rate: { slip: string } };
  };
  return { name, server, slip: answer.item.rate.slip };
}

const dynamo = await startLocalDynamo();
const lines = [
  '| scenario | items | old req/s (median) | new req/s (median) | change | old p99 ms | new p99 ms |',
];
lines.push('|---|---|---|---|---|---|---|');
try {
  for (const size of SIZES) {
    const start = addDays(todayIn('America/Toronto', Date.now()), 60);
    const rated = `start_date=${start}&end_date=${addDays(start, 7)}&param[adults]=2&param[children]=1`;
    const tenant = benchTenant(size, start);
    const tableName = `side-${size}-${randomUUID().slice(0, 8)}`;
    const db = createDb({ endpoint: dynamo.endpoint, tableName });
    await ensureTable(db);
    await writeTenant(db, tenant, Date.now());
    const feedToken = await rotateFeedToken(db, {
      scope: { kind: 'item', itemId: FEED_ITEM },
      now: Date.now(),
    });
    const env = {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      TABLE_NAME: tableName,
      SWEEP_INTERVAL_MS: '60000',
      TRUSTED_PROXIES: '127.0.0.1',
    };
    const sides = [await startSide('old', env, rated, tenant), await startSide('new', env, rated, tenant)];
    try {
      const scenariosOf = (side: Side, seconds: number) =>
        loadScenarios({
          base: side.server.base,
          rated,
          start,
          slip: side.slip,
          feed: `/item/${FEED_ITEM}/ical?token=${feedToken}`,
          seconds,
        });
      say(`${size} items: warming both`);
      for (const side of sides) for (const scenario of scenariosOf(side, 2)) await scenario.run(CONNECTIONS);
      const names = scenariosOf(sides[0] as Side, SECONDS).map((scenario) => scenario.name);
      for (const [index, name] of names.entries()) {
        if (process.env.BENCH_ONLY && !name.includes(process.env.BENCH_ONLY)) continue;
        const seen: Record<Side['name'], { rps: number; p99: number; errors: number }[]> = {
          old: [],
          new: [],
        };
        for (let round = 0; round < ROUNDS; round += 1) {
          const order = (round + index) % 2 === 0 ? sides : [...sides].reverse();
          for (const side of order) {
            const scenario = scenariosOf(side, SECONDS)[index];
            if (!scenario) continue;
            const result = await scenario.run(CONNECTIONS);
            seen[side.name].push({
              rps: result.requests.average / (scenario.per ?? 1),
              p99: result.latency.p99,
              errors: result.errors + result.timeouts + result.non2xx,
            });
          }
        }
        const rps = (side: Side['name']) => median(seen[side].map((one) => one.rps));
        const p99 = (side: Side['name']) => median(seen[side].map((one) => one.p99));
        const change = (100 * (rps('new') - rps('old'))) / rps('old');
        // A side that answers errors is fast for nothing: its errors are said beside its rates.
        const errors = (side: Side['name']) => seen[side].reduce((sum, one) => sum + one.errors, 0);
        const each = (side: Side['name']) =>
          `${seen[side].map((one) => Math.round(one.rps)).join(', ')}${errors(side) ? ` (${errors(side)} errors)` : ''}`;
        say(`  ${name}: old ${each('old')}; new ${each('new')} (${change.toFixed(1)} %)`);
        lines.push(
          `| ${name} | ${size} | ${Math.round(rps('old'))} | ${Math.round(rps('new'))} | ${change >= 0 ? '+' : ''}${change.toFixed(1)} % | ${p99('old')} | ${p99('new')} |`,
        );
      }
    } finally {
      for (const side of sides) await stopServer(side.server.child);
    }
  }
} finally {
  await dynamo.stop();
}
say(
  `\nSide by side ${new Date().toISOString()}: ${ROUNDS} rounds of ${SECONDS} s each, c=${CONNECTIONS}, old = ${older}`,
);
for (const line of lines) say(line);
