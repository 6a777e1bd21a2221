import { readFileSync } from 'node:fs';
import type { DbUsage } from '#infra/local/db-usage.ts';

/** What the runner started with DYNAMODB_USAGE_FILE writes: its requests and its handlers' DynamoDB usage. */
export interface UsageSnapshot extends DbUsage {
  /** Requests the handlers have started. */
  served: number;
  /** Requests being handled when the file was written. */
  inFlight: number;
}

/** A scenario's DynamoDB usage: totals over its requests, and the same per request. */
export interface ScenarioUsage {
  /** Requests the runner served during the scenario. */
  requests: number;
  /** DynamoDB calls in all. */
  calls: number;
  /** DynamoDB calls by operation (GetItem, Query, TransactWriteItems…). */
  callsByOperation: Record<string, number>;
  /** Calls that failed (failed conditions, cancelled transactions), for which DynamoDB reports no capacity. */
  failedCalls: number;
  /** Successful calls that reported no capacity. */
  unreportedCalls: number;
  /** Write units added to transactions DynamoDB Local under-reports (see DbUsage.wcuAdded). */
  wcuAdded: number;
  callsPerRequest: number;
  rcuPerRequest: number;
  wcuPerRequest: number;
}

/** How long the counts must hold still, with nothing in flight, to be a scenario's end (the file lags 50 ms). */
const SETTLE_MS = 250;

const readUsage = (file: string): UsageSnapshot | undefined => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as UsageSnapshot;
  } catch {
    return undefined;
  }
};

const totalCalls = (usage: DbUsage) => Object.values(usage.calls).reduce((sum, count) => sum + count, 0);
const sameCounts = (a: UsageSnapshot, b: UsageSnapshot) =>
  a.served === b.served && totalCalls(a) === totalCalls(b) && a.failed === b.failed;

/**
 * The runner's counts once every request is done and it has served at least `served` requests: autocannon
 * stops at its deadline with requests still in flight, and the runner finishes them (and calls DynamoDB for
 * them) afterwards. The runner does not rewrite the file while requests are in flight, so a file that still
 * says none are may be the one it wrote before the load began: the requests the client saw answered tell.
 */
export async function settledUsage(file: string, served = 0, timeoutMs = 30_000): Promise<UsageSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let previous: UsageSnapshot | undefined;
  while (Date.now() < deadline) {
    const current = readUsage(file);
    if (
      current &&
      previous &&
      current.inFlight === 0 &&
      current.served >= served &&
      sameCounts(previous, current)
    )
      return current;
    previous = current;
    await new Promise((wake) => setTimeout(wake, SETTLE_MS));
  }
  throw new Error(`DynamoDB usage in ${file} did not settle in ${timeoutMs} ms`);
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** The usage between two snapshots, per request rounded to 3 places (what the cost is computed from). */
export function usageBetween(before: UsageSnapshot, after: UsageSnapshot): ScenarioUsage {
  const requests = after.served - before.served;
  const calls = totalCalls(after) - totalCalls(before);
  const per = (value: number) => (requests ? round(value / requests, 3) : 0);
  const callsByOperation = Object.fromEntries(
    Object.entries(after.calls)
      .map(([operation, count]) => [operation, count - (before.calls[operation] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
  return {
    requests,
    calls,
    callsByOperation,
    failedCalls: after.failed - before.failed,
    unreportedCalls: after.unreported - before.unreported,
    wcuAdded: round(after.wcuAdded - before.wcuAdded, 3),
    callsPerRequest: per(calls),
    rcuPerRequest: per(after.rcu - before.rcu),
    wcuPerRequest: per(after.wcu - before.wcu),
  };
}
