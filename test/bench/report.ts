import { writeFileSync } from 'node:fs';
import type { BundleResult } from './bundles.ts';
import type { ChannelRound } from './channels.ts';
import type { ColdResult } from './cold.ts';
import {
  type CostPer1k,
  DYNAMODB_RRU_USD,
  DYNAMODB_WRU_USD,
  HTTP_API_REQUEST_USD,
  LAMBDA_ARM_GB_SECOND_USD,
  LAMBDA_MEMORY_MB,
  LAMBDA_REQUEST_USD,
} from './cost.ts';
import type { CpuPerRequest } from './cpu.ts';
import type { HostileRead } from './hostile-feeds.ts';
import type { SweeperFlood } from './sweeper.ts';
import type { ScenarioUsage } from './usage.ts';

/** One scenario's result at one size and concurrency: load, floor, DynamoDB usage and cost. */
export interface Row {
  scenario: string;
  items: number;
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Mean latency in ms, the Lambda duration the cost assumes. */
  mean: number;
  errors: number;
  floor?: number;
  ratio?: number;
  /** The ratio a server doing only the floor's calls and sending the service's bytes reached (its ceiling). */
  ceiling?: number;
  usage: ScenarioUsage;
  /** CPU ms per request of the runner, DynamoDB Local and autocannon during the scenario. */
  cpu?: CpuPerRequest;
  /** The same at the ceiling's server. */
  ceilingCpu?: CpuPerRequest;
  /** CPU ms of DynamoDB Local and of the benchmark making the floor's calls, per request they stand for. */
  floorCpu?: CpuPerRequest;
  /** US$ per 1,000 requests by service; `total` is the table's `$/1k req`. */
  cost: CostPer1k;
  note?: string;
}

const HEADER = [
  'scenario',
  'items',
  'c',
  'req/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'errors',
  'floor/s',
  'ratio',
  'ceiling',
  'calls/req',
  'RCU/req',
  'WCU/req',
  '$/1k req',
  'note',
];

/** What the table notes about a row's usage besides the scenario's own note. */
const usageNote = (usage: ScenarioUsage) =>
  [
    usage.failedCalls ? `${usage.failedCalls} failed DynamoDB calls (no capacity reported)` : '',
    usage.unreportedCalls ? `${usage.unreportedCalls} calls without capacity` : '',
  ].filter(Boolean);

/** The scenarios as a Markdown table, one line each. */
export function scenarioTable(rows: Row[]): string[] {
  const line = (cells: (string | number | undefined)[]) =>
    `| ${cells.map((cell) => cell ?? '').join(' | ')} |`;
  return [
    line(HEADER),
    `|${HEADER.map(() => '---').join('|')}|`,
    ...rows.map((row) =>
      line([
        row.scenario,
        row.items,
        row.concurrency,
        row.rps,
        row.p50,
        row.p99,
        row.max,
        row.errors,
        row.floor,
        row.ratio,
        row.ceiling,
        row.usage.callsPerRequest,
        row.usage.rcuPerRequest,
        row.usage.wcuPerRequest,
        row.cost.total.toFixed(6),
        [row.note ?? '', ...usageNote(row.usage)].filter(Boolean).join('; '),
      ]),
    ),
  ];
}

/**
 * Where each scenario's CPU went, in ms per request: the server under load, DynamoDB Local's Java and
 * the benchmark's own process (autocannon, or the floor's SDK calls; a flow's floor is per request of its
 * three). The runner's CPU above the ceiling server's is what the service's own code costs.
 */
export function cpuTable(rows: Row[]): string[] {
  const cells = (cpu: CpuPerRequest | undefined, server = true) =>
    cpu ? [...(server ? [cpu.server] : []), cpu.dynamoDb, cpu.load] : server ? ['', '', ''] : ['', ''];
  const measured = rows.filter((row) => row.cpu);
  if (!measured.length) return [];
  return [
    '| scenario | items | runner | DDB Local | autocannon | ceiling server | DDB Local | autocannon | floor: DDB Local | floor: SDK calls |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...measured.map(
      (row) =>
        `| ${[row.scenario, row.items, ...cells(row.cpu), ...cells(row.ceilingCpu), ...cells(row.floorCpu, false)].map((cell) => cell ?? '').join(' | ')} |`,
    ),
  ];
}

/** The cold starts as a Markdown table. */
export function coldTable(results: ColdResult[]): string[] {
  const pair = (figures: { median: number; p90: number }) => `${figures.median} / ${figures.p90}`;
  return [
    '| function | request | bundle KB | init ms (median / p90) | first answer ms (median / p90) | RSS MB (median) | floor bundle KB | floor init ms | floor first answer ms | floor RSS MB | bundle ratio (target ≤) | init ratio | first-answer ratio (target ≤) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (one) =>
        `| ${[
          one.function,
          one.request,
          one.bundleKB,
          pair(one.initMs),
          pair(one.firstAnswerMs),
          Math.round(one.rssMB.median),
          one.floor.bundleKB,
          pair(one.floor.initMs),
          pair(one.floor.firstAnswerMs),
          Math.round(one.floor.rssMB.median),
          `${one.ratio.bundle} (${one.target.bundle})`,
          one.ratio.init,
          `${one.ratio.firstAnswer} (${one.target.firstAnswer})`,
        ].join(' | ')} |`,
    ),
  ];
}

/** The bundles as a Markdown table. */
export function bundleTable(bundles: BundleResult[]): string[] {
  return [
    '| function | minified bytes | import ms (median of 5) |',
    '|---|---|---|',
    ...bundles.map((bundle) => `| ${bundle.function} | ${bundle.bytes} | ${bundle.importMs} |`),
  ];
}

/** Writes bench-results.json: the run's settings, the prices the costs use, every row and the bundles. */
export function writeResults(
  file: string,
  results: {
    date: string;
    quick: boolean;
    seconds: number;
    rows: Row[];
    bundles: BundleResult[];
    channelRounds: ChannelRound[];
    /** The hostile feeds' reads (issue 41), after the channel rounds. */
    hostileReads?: HostileRead[];
    /** The sweeper clearing a flood of expired carts (not with BENCH_ONLY). */
    sweeperFlood?: SweeperFlood;
    /** The cold starts (`--cold`, or a full run): each function beside its floor. */
    cold?: ColdResult[];
    /** What the payment rows found wrong (issue 43: a duplicate costs a refused claim and its read): none. */
    paymentChecks?: string[];
  },
): void {
  const prices = {
    source: 'AWS on-demand list prices, us-east-1, 2025 (test/bench/cost.ts)',
    dynamodbReadRequestUnit: DYNAMODB_RRU_USD,
    dynamodbWriteRequestUnit: DYNAMODB_WRU_USD,
    lambdaArmGbSecond: LAMBDA_ARM_GB_SECOND_USD,
    lambdaRequest: LAMBDA_REQUEST_USD,
    httpApiRequest: HTTP_API_REQUEST_USD,
    lambdaMemoryMb: LAMBDA_MEMORY_MB,
  };
  writeFileSync(file, `${JSON.stringify({ ...results, prices }, null, 2)}\n`);
}
