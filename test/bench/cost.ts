// AWS list prices, us-east-1, on-demand, as published in 2025 (free tiers and volume discounts left out):
// DynamoDB https://aws.amazon.com/dynamodb/pricing/on-demand/ , Lambda https://aws.amazon.com/lambda/pricing/
// (Arm), API Gateway https://aws.amazon.com/api-gateway/pricing/ (HTTP APIs, first 300 million a month).

/** DynamoDB on-demand, US$ per write request unit ($0.625 per million; us-east-1, 2025). */
export const DYNAMODB_WRU_USD = 0.625e-6;
/** DynamoDB on-demand, US$ per read request unit ($0.125 per million; us-east-1, 2025). */
export const DYNAMODB_RRU_USD = 0.125e-6;
/** Lambda on Arm (arm64), US$ per GB-second of duration (us-east-1, 2025). */
export const LAMBDA_ARM_GB_SECOND_USD = 0.0000133334;
/** Lambda, US$ per invocation ($0.20 per million; us-east-1, 2025). */
export const LAMBDA_REQUEST_USD = 0.2e-6;
/** API Gateway HTTP API, US$ per request of up to 512 KB ($1.00 per million; us-east-1, 2025). */
export const HTTP_API_REQUEST_USD = 1.0e-6;
/**
 * The functions' memory in MB: `memorySize` in infra/constructs/functions.ts, which exports no constant
 * (test/unit/bench-cost.test.ts fails when the two differ).
 */
export const LAMBDA_MEMORY_MB = 512;

/** What one request consumed on average, as the benchmark measured it. */
export interface RequestUsage {
  /** Read capacity units per request (on demand: read request units). */
  rcu: number;
  /** Write capacity units per request (on demand: write request units). */
  wcu: number;
  /** Mean latency per request in ms, taken as the Lambda's billed duration. */
  meanMs: number;
  /** Lambda memory in MB; LAMBDA_MEMORY_MB unless given. */
  memoryMb?: number;
}

/** US$ per 1,000 requests, by service, and their sum. */
export interface CostPer1k {
  dynamodb: number;
  lambda: number;
  api: number;
  total: number;
}

/** Decimal places of every cost: a millionth of a dollar per 1,000 requests (a dollar per billion). */
export const COST_DECIMALS = 6;
const SCALE = 10 ** COST_DECIMALS;

/**
 * The on-demand cost of 1,000 requests: DynamoDB from the capacity units (DynamoDB reports consumed
 * capacity in units, and on demand bills one request unit per unit), Lambda from duration × memory plus
 * the invocation, and the HTTP API request. Each part is rounded to COST_DECIMALS and the total is their
 * sum, so the parts always add up to it.
 */
export function costPer1kRequests(usage: RequestUsage): CostPer1k {
  const memoryGb = (usage.memoryMb ?? LAMBDA_MEMORY_MB) / 1024;
  const round = (usd: number) => Math.round(usd * 1000 * SCALE);
  const dynamodb = round(usage.rcu * DYNAMODB_RRU_USD + usage.wcu * DYNAMODB_WRU_USD);
  const lambda = round((usage.meanMs / 1000) * memoryGb * LAMBDA_ARM_GB_SECOND_USD + LAMBDA_REQUEST_USD);
  const api = round(HTTP_API_REQUEST_USD);
  // Summed as integers (millionths), so the total is exactly the parts' sum, free of float residue.
  return {
    dynamodb: dynamodb / SCALE,
    lambda: lambda / SCALE,
    api: api / SCALE,
    total: (dynamodb + lambda + api) / SCALE,
  };
}
