import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { build } from 'esbuild';
import { DROPPED_LABELS, FUNCTION_BUNDLING } from '#infra/constructs/functions.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { generateSlipSecret } from '#lib/slip/keys.ts';
import { makeEvent } from '#test/support/events.ts';
import type { SynthedFunction } from './bundles.ts';
import { type ColdCase, type ColdResponse, coldCases, coldStart, type RunOnce } from './cold-cases.ts';
import type { FloorScript } from './cold-floor-handler.ts';
import { paymentColdCases } from './cold-payment-cases.ts';
import { batchCalls, startRecordingProxy } from './cold-recorder.ts';
import { benchTenant } from './tenant.ts';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

/**
 * Bundles `entry` with esbuild and the options every function is bundled with (FUNCTION_BUNDLING, as
 * NodejsFunction passes them), into `dir`/index.mjs; by default the floor's handler
 * (test/bench/cold-floor-handler.ts).
 */
export async function buildFloorBundle(
  dir: string,
  entry = join(here, 'cold-floor-handler.ts'),
): Promise<string> {
  const outfile = join(dir, 'index.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: FUNCTION_BUNDLING.target,
    format: FUNCTION_BUNDLING.format === 'esm' ? 'esm' : 'cjs',
    minify: FUNCTION_BUNDLING.minify,
    sourcemap: FUNCTION_BUNDLING.sourceMap,
    sourcesContent: FUNCTION_BUNDLING.sourcesContent,
    mainFields: FUNCTION_BUNDLING.mainFields,
    external: FUNCTION_BUNDLING.externalModules,
    banner: { js: FUNCTION_BUNDLING.banner },
    dropLabels: DROPPED_LABELS,
    logLevel: 'warning',
  });
  return outfile;
}

/** What one cold process measured: import (init), import and first answer, resident memory after it. */
export interface ProbeResult {
  initMs: number;
  firstMs: number;
  rssBytes: number;
  response: ColdResponse;
}

// The timed process: the event is read before the clock starts; the clock runs from before the import
// of the bundle to the handler's answer. Powertools may print metrics: the result is the marked line.
const PROBE = `
import { readFileSync } from 'node:fs';
const event = JSON.parse(readFileSync(process.env.COLD_EVENT, 'utf8'));
const context = { functionName: 'cold', awsRequestId: event.requestContext.requestId, getRemainingTimeInMillis: () => 10000 };
const started = performance.now();
const { handler } = await import(process.env.COLD_BUNDLE);
const imported = performance.now();
const response = await handler(event, context);
const answered = performance.now();
const rssBytes = process.memoryUsage().rss;
process.stdout.write('\\nCOLD_RESULT ' + JSON.stringify({ initMs: imported - started, firstMs: answered - started, rssBytes, response }) + '\\n');
process.exit(0);
`;

/** Runs one fresh Node process that imports `bundle` and answers `event` once. */
export async function probeColdStart(options: {
  bundle: string;
  event: APIGatewayProxyEventV2;
  env: Record<string, string>;
  dir: string;
}): Promise<ProbeResult> {
  const eventFile = join(options.dir, `event-${randomUUID()}.json`);
  writeFileSync(eventFile, JSON.stringify(options.event));
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE], {
    env: { ...options.env, COLD_BUNDLE: options.bundle, COLD_EVENT: eventFile },
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = stdout.split('\n').find((text) => text.startsWith('COLD_RESULT '));
  if (!line) throw new Error(`no result from ${options.bundle}: ${stdout.slice(0, 500)}`);
  return JSON.parse(line.slice('COLD_RESULT '.length)) as ProbeResult;
}

/**
 * Runs `bundle` once on `event` in a cold process whose DynamoDB endpoint is a recording proxy, and
 * makes the floor's script of it: the same calls, the same answer. With `provider`, the payment provider's
 * API (STRIPE_API_BASE) is recorded too, its calls in turn with DynamoDB's.
 */
export async function recordFloorScript(options: {
  bundle: string;
  event: APIGatewayProxyEventV2;
  env: Record<string, string>;
  dir: string;
  provider?: string | undefined;
}): Promise<FloorScript> {
  const proxy = await startRecordingProxy(options.env.DYNAMODB_ENDPOINT ?? '');
  const provider = options.provider ? await startRecordingProxy(options.provider, true) : undefined;
  try {
    const result = await probeColdStart({
      ...options,
      env: {
        ...options.env,
        DYNAMODB_ENDPOINT: proxy.endpoint,
        ...(provider ? { STRIPE_API_BASE: provider.endpoint } : {}),
      },
    });
    const calls = [...proxy.calls, ...(provider?.calls ?? [])];
    const failed = calls.filter((call) => call.status < 200 || call.status > 299);
    if (failed.length) throw new Error(`recorded calls failed: ${failed.map((c) => c.operation).join(', ')}`);
    return { batches: batchCalls(calls), response: result.response };
  } finally {
    await proxy.stop();
    await provider?.stop();
  }
}

/** Median and 90th percentile of some figures. */
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  const round = (value: number) => Math.round(value * 10) / 10;
  return { median: round(at(0.5)), p90: round(at(0.9)) };
};

/** One function's cold start beside its floor's. */
export interface ColdResult {
  function: string;
  request: string;
  runs: number;
  bundleKB: number;
  initMs: { median: number; p90: number };
  firstAnswerMs: { median: number; p90: number };
  rssMB: { median: number; p90: number };
  floor: {
    bundleKB: number;
    initMs: { median: number; p90: number };
    firstAnswerMs: { median: number; p90: number };
    rssMB: { median: number; p90: number };
    calls: string[];
  };
  /** Function ÷ floor: bundle size, median init, median first answer. */
  ratio: { bundle: number; init: number; firstAnswer: number };
  /** Issue 33's targets, for later work: the first answer's and the bundle's ratio at most. */
  target: { firstAnswer: number; bundle: number };
}

const FIRST_ANSWER_TARGET: Record<string, number> = { Items: 1.3, Session: 1.3, Bookings: 1.5, Meta: 1.5 };

/**
 * Measures each case's function and its floor in `runs` alternating fresh processes each (function,
 * floor, function, floor …) against the table in `env` (TABLE_NAME, DYNAMODB_ENDPOINT): every answer
 * must be a 200, and the floor's the recorded bytes with the case's substitutions.
 */
export async function measureColdStarts(options: {
  functions: SynthedFunction[];
  cases: ColdCase[];
  env: Record<string, string>;
  runs: number;
  say?: (line: string) => void;
}): Promise<ColdResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  const plainFloor = await buildFloorBundle(dir);
  // The floor of a case that calls the payment provider replays its calls too (issue 43).
  const providerFloor = options.cases.some((one) => one.env?.STRIPE_API_BASE)
    ? await buildFloorBundle(join(dir, 'provider'), join(here, 'cold-floor-provider-handler.ts'))
    : plainFloor;
  const results: ColdResult[] = [];
  for (const [caseIndex, coldCase] of options.cases.entries()) {
    const fn = options.functions.find((one) => one.function === coldCase.function);
    if (!fn) throw new Error(`no bundle for ${coldCase.function}`);
    // The function's environment as the stack gives it (NODE_OPTIONS, Powertools), then the local table's
    // and the case's own.
    const env = {
      PATH: process.env.PATH ?? '',
      ...fn.environment,
      ...options.env,
      ...coldCase.env,
    };
    const provider = coldCase.env?.STRIPE_API_BASE;
    const floorBundle = provider ? providerFloor : plainFloor;
    // Recorded from a run of its own (index 0); the timed runs are 1 … runs.
    const recordedEvent = await coldCase.event(0);
    const script = await recordFloorScript({ bundle: fn.file, event: recordedEvent, env, dir, provider });
    if ((script.response as { statusCode?: number }).statusCode !== 200)
      throw new Error(
        `${coldCase.function} ${coldCase.request} answered ${JSON.stringify(script.response).slice(0, 300)}`,
      );
    const recordedIp = recordedEvent.requestContext.http.sourceIp;
    const own: ProbeResult[] = [];
    const floor: ProbeResult[] = [];
    for (let index = 1; index <= options.runs; index += 1) {
      const event = await coldCase.event(index);
      const result = await probeColdStart({ bundle: fn.file, event, env, dir });
      if (result.response.statusCode !== 200)
        throw new Error(
          `${coldCase.function} run ${index} answered ${JSON.stringify(result.response).slice(0, 300)}`,
        );
      own.push(result);
      // The floor's run as the function's: its calls carry its own client address where they carried the
      // recording's (the client's request count and budget), so each run counts a client of its own too; and
      // the case's own substitutions, in its calls and its answer alike. Not the function's run's address: a
      // cart's first hold guesses that it starts its client's holding (issue 41), so an add from the address
      // whose cart the function's run left holding the nights would be refused.
      const floorEvent = await coldCase.event(options.runs + index);
      const replaced: [string, string][] = [
        [recordedIp, floorEvent.requestContext.http.sourceIp],
        ...(coldCase.substitutions?.({ event: recordedEvent, script }, { event: floorEvent, index }) ?? []),
      ];
      const scriptFile = join(dir, `floor-${caseIndex}-${index}.json`);
      const text = replaced.reduce((all, [from, to]) => all.split(from).join(to), JSON.stringify(script));
      writeFileSync(scriptFile, text);
      const floorResult = await probeColdStart({
        bundle: floorBundle,
        event: floorEvent,
        env: { ...env, COLD_FLOOR_SCRIPT: scriptFile },
        dir,
      });
      if (JSON.stringify(floorResult.response) !== JSON.stringify((JSON.parse(text) as FloorScript).response))
        throw new Error(
          `the floor of ${coldCase.function} ${coldCase.request} answered other bytes than the function's recording`,
        );
      floor.push(floorResult);
    }
    const kb = (file: string) => Math.round(statSync(file).size / 102.4) / 10;
    const figures = (results: ProbeResult[]) => ({
      initMs: spread(results.map((one) => one.initMs)),
      firstAnswerMs: spread(results.map((one) => one.firstMs)),
      rssMB: spread(results.map((one) => one.rssBytes / 1024 / 1024)),
    });
    const mine = figures(own);
    const floors = figures(floor);
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    results.push({
      function: coldCase.function,
      request: coldCase.request,
      runs: options.runs,
      bundleKB: kb(fn.file),
      ...mine,
      floor: {
        bundleKB: kb(floorBundle),
        ...floors,
        calls: script.batches.map((batch) => batch.map((call) => call.operation).join(' + ')),
      },
      ratio: {
        bundle: ratio(kb(fn.file), kb(floorBundle)),
        init: ratio(mine.initMs.median, floors.initMs.median),
        firstAnswer: ratio(mine.firstAnswerMs.median, floors.firstAnswerMs.median),
      },
      target: { firstAnswer: FIRST_ANSWER_TARGET[coldCase.function] ?? 1.5, bundle: 1.5 },
    });
    options.say?.(
      `  ${coldCase.function} ${coldCase.request}: first answer ${mine.firstAnswerMs.median} ms (floor ${floors.firstAnswerMs.median} ms)`,
    );
  }
  return results;
}

/** The environment of the cold processes for a local table: dummy credentials, inline SLIP keys. */
export const coldEnv = (options: { endpoint: string; tableName: string }): Record<string, string> => ({
  TABLE_NAME: options.tableName,
  DYNAMODB_ENDPOINT: options.endpoint,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  PUBLIC_URL: 'https://bench.example.com',
  TENANT: 'bench',
  SLIP_KEYS: generateSlipSecret(),
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

/** The cold benchmark on a table of its own: the 20-item bench tenant, BENCH_COLD_RUNS (15) runs a case. */
export async function benchColdStarts(options: {
  endpoint: string;
  functions: SynthedFunction[];
  say?: (line: string) => void;
}): Promise<ColdResult[]> {
  const start = coldStart();
  const tableName = `bench-cold-${randomUUID().slice(0, 8)}`;
  const db = createDb({ endpoint: options.endpoint, tableName });
  await ensureTable(db);
  await writeTenant(db, benchTenant(20, start), Date.now());
  const runs = Number(process.env.BENCH_COLD_RUNS ?? 15);
  const env = coldEnv({ endpoint: options.endpoint, tableName });
  if (!(runs >= 1)) throw new Error('BENCH_COLD_RUNS must be a positive number');
  const dir = mkdtempSync(join(tmpdir(), 'bench-cold-prepare-'));
  // Untimed runs that prepare the timed ones (a SLIP, open sessions to book), each a process of its own.
  const runOnce: RunOnce = async (fn, event, caseEnv) =>
    (
      await probeColdStart({
        bundle: fn.file,
        event,
        env: { PATH: process.env.PATH ?? '', ...fn.environment, ...env, ...caseEnv },
        dir,
      })
    ).response;
  const items = options.functions.find((one) => one.function === 'Items');
  if (!items) throw new Error('no bundle for Items');
  // The SLIP every add-a-SLIP run adds and every create books: a rated item's, from the items bundle.
  const rated = await runOnce(
    items,
    makeEvent({ path: 'item/2', query: `start_date=${start}&end_date=${addDays(start, 7)}&param[adults]=2` }),
  );
  const slip = (JSON.parse(rated.body ?? '{}') as { item: { rate: { slip: string } } }).item.rate.slip;
  const cases = await coldCases({ start, slip, functions: options.functions, runOnce });
  // Issue 43: the paying tenant's create and the provider's webhook, beside the stand-in for Stripe.
  const { endpoint, functions } = options;
  const payments = await paymentColdCases({ endpoint, start, slip, env, functions, runOnce });
  try {
    return await measureColdStarts({
      functions,
      cases: [...cases, ...payments.cases],
      env,
      runs,
      ...(options.say ? { say: options.say } : {}),
    });
  } finally {
    await payments.stop();
  }
}
