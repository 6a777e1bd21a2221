import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyDbUsage } from '#infra/local/db-usage.ts';
import { COST_DECIMALS, costPer1kRequests, LAMBDA_MEMORY_MB } from '#test/bench/cost.ts';
import { duplicateCostProblem } from '#test/bench/payment-webhooks.ts';
import { type ScenarioUsage, settledUsage, type UsageSnapshot, usageBetween } from '#test/bench/usage.ts';

// The benchmark's cost per 1,000 requests (issue 16, point 3): DynamoDB from capacity units, Lambda from
// mean duration × memory plus the invocation, the HTTP API per request; the parts add up to the total.

const sumOfParts = (cost: { dynamodb: number; lambda: number; api: number }) =>
  (cost.dynamodb + cost.lambda + cost.api).toFixed(COST_DECIMALS);

describe('cost per 1,000 requests', () => {
  it('prices one read unit, one write unit and 100 ms at 512 MB', () => {
    expect(costPer1kRequests({ rcu: 1, wcu: 1, meanMs: 100 })).toEqual({
      // 1,000 × ($0.125 + $0.625) per million units
      dynamodb: 0.00075,
      // 1,000 × (0.1 s × 0.5 GB × $0.0000133334 + $0.0000002)
      lambda: 0.000867,
      // 1,000 × $0.000001
      api: 0.001,
      total: 0.002617,
    });
  });

  it('charges the invocation and the API request when nothing else is used', () => {
    expect(costPer1kRequests({ rcu: 0, wcu: 0, meanMs: 0 })).toEqual({
      dynamodb: 0,
      lambda: 0.0002,
      api: 0.001,
      total: 0.0012,
    });
  });

  it('reproduces a measured row: add a SLIP, 1.042 RCU, 33 WCU and 286.18 ms a request', () => {
    expect(costPer1kRequests({ rcu: 1.042, wcu: 33, meanMs: 286.18 })).toEqual({
      dynamodb: 0.020755,
      lambda: 0.002108,
      api: 0.001,
      total: 0.023863,
    });
  });

  it('bills duration by memory: one second at 512 MB is half a GB-second, at 1024 MB a whole one', () => {
    // 1,000 × (0.5 GB-s × $0.0000133334 + $0.0000002) and 1,000 × (1 GB-s × $0.0000133334 + $0.0000002)
    expect(costPer1kRequests({ rcu: 0, wcu: 0, meanMs: 1000, memoryMb: 512 }).lambda).toBe(0.006867);
    expect(costPer1kRequests({ rcu: 0, wcu: 0, meanMs: 1000, memoryMb: 1024 }).lambda).toBe(0.013533);
  });

  it.each([
    { rcu: 0.5, wcu: 1, meanMs: 17.3 },
    { rcu: 1.415, wcu: 18.237, meanMs: 300.4 },
    { rcu: 10.125, wcu: 1, meanMs: 1348.77 },
    { rcu: 0.333, wcu: 0.333, meanMs: 0.333 },
    { rcu: 0.55, wcu: 1.8, meanMs: 1918.42 },
  ])('adds the parts up to the total for $rcu RCU, $wcu WCU, $meanMs ms', (usage) => {
    const cost = costPer1kRequests(usage);
    expect(sumOfParts(cost)).toBe(cost.total.toFixed(COST_DECIMALS));
    expect(Number(cost.total.toFixed(COST_DECIMALS))).toBe(cost.total);
  });

  it('uses the memory the functions are deployed with', () => {
    const source = readFileSync('infra/constructs/functions.ts', 'utf8');
    const sizes = [...source.matchAll(/memorySize:\s*(\d+)/g)].map((match) => Number(match[1]));
    expect(sizes.length).toBeGreaterThan(0);
    for (const size of sizes) expect(size).toBe(LAMBDA_MEMORY_MB);
  });
});

const snapshot = (overrides: Partial<UsageSnapshot> = {}): UsageSnapshot => ({
  ...emptyDbUsage(),
  served: 0,
  inFlight: 0,
  ...overrides,
});

describe('usage between two snapshots', () => {
  it('divides the calls and capacity of the scenario by the requests it served', () => {
    const before = snapshot({ served: 10, calls: { Query: 10, UpdateItem: 10 }, rcu: 5, wcu: 10 });
    const after = snapshot({
      served: 13,
      calls: { Query: 16, UpdateItem: 13, TransactWriteItems: 1 },
      failed: 1,
      rcu: 6.5,
      wcu: 13 + 32,
      wcuAdded: 26,
    });
    expect(usageBetween(before, after)).toEqual({
      requests: 3,
      calls: 10,
      callsByOperation: { Query: 6, UpdateItem: 3, TransactWriteItems: 1 },
      failedCalls: 1,
      unreportedCalls: 0,
      wcuAdded: 26,
      callsPerRequest: 3.333,
      rcuPerRequest: 0.5,
      wcuPerRequest: 11.667,
    });
  });

  it('reports nothing per request when no request was served', () => {
    const usage = usageBetween(snapshot({ served: 4 }), snapshot({ served: 4 }));
    expect(usage).toMatchObject({ requests: 0, calls: 0, callsPerRequest: 0, rcuPerRequest: 0 });
  });

  it('waits for the file to count the requests the client saw answered, not the file written before them', async () => {
    // The runner does not rewrite its file while requests are in flight: after a load on a slow machine, the
    // file still says none are, as it did before the load began, and a scenario read from it served nothing.
    const file = join(mkdtempSync(join(tmpdir(), 'usage-')), 'usage.json');
    const write = (served: number) => writeFileSync(file, JSON.stringify(snapshot({ served, rcu: served })));
    write(4);
    const later = setTimeout(() => write(9), 600);
    try {
      expect((await settledUsage(file, 9, 10_000)).served).toBe(9);
    } finally {
      clearTimeout(later);
    }
  });
});

describe("the bench's check of a duplicate webhook delivery", () => {
  const duplicates = (overrides: Partial<ScenarioUsage> = {}): ScenarioUsage => ({
    requests: 160,
    calls: 320,
    callsByOperation: { PutItem: 160, GetItem: 160 },
    failedCalls: 160,
    unreportedCalls: 0,
    wcuAdded: 0,
    callsPerRequest: 2,
    rcuPerRequest: 1,
    wcuPerRequest: 0,
    ...overrides,
  });

  it("passes a refused claim and a read of the claim, as main's lease makes each duplicate cost", () => {
    expect(duplicateCostProblem(duplicates(), 0)).toBeUndefined();
  });

  it.each([
    [
      'a write beyond the refused claim',
      { calls: 480, callsByOperation: { PutItem: 160, GetItem: 160, UpdateItem: 160 } },
    ],
    ['a claim taken instead of refused', { failedCalls: 0 }],
    ['a second read', { calls: 480, callsByOperation: { PutItem: 160, GetItem: 320 } }],
    ['no read of the claim', { calls: 160, callsByOperation: { PutItem: 160 } }],
  ])('names %s', (_, overrides) => {
    expect(duplicateCostProblem(duplicates(overrides), 0)).toMatch(/160 duplicates cost/);
  });

  it('names a duplicate that asked the provider', () => {
    expect(duplicateCostProblem(duplicates(), 1)).toMatch(/1 provider calls per delivery/);
  });
});
