import { randomUUID } from 'node:crypto';
import { costPer1kRequests } from './cost.ts';
import { processCpuMs, startCpuMeter } from './cpu.ts';
import type { Row } from './report.ts';
import type { BenchServer } from './server.ts';
import { settledUsage, usageBetween } from './usage.ts';

// What the payment rows (test/bench/payments.ts, payment-webhooks.ts) share: a load of their own, with each
// request's time (the issue asks the 95th percentile, which autocannon does not give), sessions to book,
// the widget's create, and a run measured between two settled snapshots of the runner's DynamoDB usage and
// the stand-in's calls.

/** What a payment row adds to a scenario row: the percentile the issue asks, the provider's calls, the outcomes. */
export interface PaymentFigures {
  p95: number;
  /** DynamoDB write calls (PutItem, UpdateItem, DeleteItem, TransactWriteItems) per request. */
  writeCallsPerRequest: number;
  /** The stand-in's API calls per request, and all of them by method and path. */
  providerCallsPerRequest: number;
  providerCalls: Record<string, number>;
  /** CPU ms per request of the stand-in's process (Stripe's side, in no other column). */
  providerCpu?: number;
  /** What the webhook route answered, by outcome. */
  outcomes?: Record<string, number>;
}

/** A payment row: a scenario row with its payment figures. */
export type PaymentRow = Row & { payment: PaymentFigures };

const WRITE_OPERATIONS = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];

/** Runs `work` over `tasks` on `concurrency` workers; each task's time is what `work` says it took. */
export async function drive<T>(
  tasks: T[],
  concurrency: number,
  work: (task: T) => Promise<{ ms: number; ok: boolean; outcome?: string }>,
) {
  const queue = [...tasks];
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
      for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
        const done = await work(task);
        latencies.push(done.ms);
        if (!done.ok) errors += 1;
        if (done.outcome) outcomes[done.outcome] = (outcomes[done.outcome] ?? 0) + 1;
      }
    }),
  );
  return { latencies, outcomes, errors, seconds: (performance.now() - started) / 1000 };
}

const percentile = (sorted: number[], q: number) =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0) * 10) /
  10;

/** One address per guest of the payment rows (198.18.0.0/15, for benchmarks), apart from the scenarios'. */
let guests = 0;
const nextGuest = () => {
  guests += 1;
  return `198.${18 + ((guests >> 16) & 1)}.${(guests >> 8) & 255}.${guests & 255}`;
};

/** A runner the payment rows load: its API base, usage file and process. */
export interface PaymentsRunner {
  server: BenchServer;
  usageFile: string;
}

/** An open session of a guest, to book. */
export interface OpenSession {
  id: string;
  client: string;
}

/** Opens `count` sessions of one SLIP each, `concurrency` at a time, each from a guest of its own (untimed). */
export async function openSessions(base: string, slip: string, count: number, concurrency: number) {
  const sessions: OpenSession[] = [];
  await drive(
    Array.from({ length: count }, (_, index) => index),
    concurrency,
    async () => {
      const client = nextGuest();
      const answer = await fetch(`${base}/booking/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client },
        body: `slip[]=${slip}`,
      });
      const body = (await answer.json()) as { booking?: { session?: { id?: string } } };
      const id = body.booking?.session?.id;
      if (answer.status !== 200 || !id) throw new Error(`no session to book: ${JSON.stringify(body)}`);
      sessions.push({ id, client });
      return { ms: 0, ok: true };
    },
  );
  return sessions;
}

/** A booking the create answered: its code, and the checkout its guest is sent to when a payment is due. */
export interface Created {
  code: string;
  checkoutId?: string;
}

/** A create as the widget sends it (widget/src/api.ts `book`): JSON, the session, the form, a fresh key. */
export async function createBooking(base: string, session: OpenSession) {
  const started = performance.now();
  const answer = await fetch(`${base}/booking/create`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': `bench-${randomUUID()}`,
      'x-forwarded-for': session.client,
    },
    body: JSON.stringify({
      session_id: session.id,
      form: { customer_name: 'Bench', customer_email: 'bench@example.com' },
    }),
  });
  const text = await answer.text();
  const ms = performance.now() - started;
  const booking =
    answer.status === 200
      ? (JSON.parse(text) as { booking?: { code?: string; payment_url?: string } }).booking
      : undefined;
  const checkoutId = /\/c\/pay\/(cs_[A-Za-z0-9_]+)/.exec(booking?.payment_url ?? '')?.[1];
  return {
    ms,
    ok: answer.status === 200 && Boolean(booking?.code),
    created: booking?.code ? { code: booking.code, ...(checkoutId ? { checkoutId } : {}) } : undefined,
  };
}

/** The stand-in's API calls so far, by method and path (nothing when the runner has no provider). */
async function providerCalls(standIn: string | undefined): Promise<Record<string, number>> {
  if (!standIn) return {};
  return ((await (await fetch(`${standIn}/_bench/calls`)).json()) as { calls: Record<string, number> }).calls;
}

const callsBetween = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([call, count]) => [call, count - (before[call] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );

/**
 * Measures one timed run on a runner: its DynamoDB usage, the stand-in's calls and every process's CPU
 * between the two settled snapshots, and the latencies the run measured.
 */
export async function measuredRun(
  runner: PaymentsRunner,
  options: { standIn?: BenchServer; dynamoPid?: number },
  run: () => Promise<Awaited<ReturnType<typeof drive>>>,
) {
  const standInBase = options.standIn?.base;
  const standInPid = options.standIn?.child.pid;
  const before = await settledUsage(runner.usageFile);
  const callsBefore = await providerCalls(standInBase);
  const providerCpuBefore = standInPid === undefined ? undefined : processCpuMs(standInPid);
  const cpu = startCpuMeter({ server: runner.server.child.pid, dynamoDb: options.dynamoPid });
  const driven = await run();
  const requests = driven.latencies.length;
  const serviceCpu = cpu(requests);
  const providerCpuAfter = standInPid === undefined ? undefined : processCpuMs(standInPid);
  const after = await settledUsage(runner.usageFile, before.served + requests);
  const calls = callsBetween(callsBefore, await providerCalls(standInBase));
  const usage = usageBetween(before, after);
  const sorted = [...driven.latencies].sort((a, b) => a - b);
  const mean = Math.round((sorted.reduce((sum, ms) => sum + ms, 0) / (requests || 1)) * 100) / 100;
  const per = (total: number) => (requests ? Math.round((total / requests) * 1000) / 1000 : 0);
  const writes = WRITE_OPERATIONS.reduce(
    (sum, operation) => sum + (usage.callsByOperation[operation] ?? 0),
    0,
  );
  return {
    rps: Math.round((requests / driven.seconds) * 10) / 10,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: percentile(sorted, 1),
    mean,
    errors: driven.errors,
    usage,
    cpu: serviceCpu,
    cost: costPer1kRequests({ rcu: usage.rcuPerRequest, wcu: usage.wcuPerRequest, meanMs: mean }),
    payment: {
      p95: percentile(sorted, 0.95),
      writeCallsPerRequest: per(writes),
      providerCallsPerRequest: per(Object.values(calls).reduce((sum, count) => sum + count, 0)),
      providerCalls: calls,
      ...(providerCpuBefore !== undefined && providerCpuAfter !== undefined
        ? { providerCpu: per(providerCpuAfter - providerCpuBefore) }
        : {}),
      ...(Object.keys(driven.outcomes).length ? { outcomes: driven.outcomes } : {}),
    },
  };
}
