import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '#infra/local/dynamodb.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Ymd } from '#lib/kernel/dates.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import {
  type Created,
  createBooking,
  drive,
  measuredRun,
  openSessions,
  type PaymentRow,
  type PaymentsRunner,
} from './payment-load.ts';
import { measureWebhooks } from './payment-webhooks.ts';
import { type BenchServer, startServer, stopServer } from './server.ts';
import { benchTenant } from './tenant.ts';

// Issue 43, "Measured": a booking/create with a deposit due beside the same create of a tenant that takes no
// payment (time, DynamoDB writes and capacity, the provider's calls per create), and the provider's webhook
// route under load: signed events posted as Stripe posts them, each read back from the stand-in, at a few
// concurrencies, and duplicates apart (a refused claim and a read of it, no read-back). docs/benchmark.md, "Payments".

/** The deposit the paying copy of the bench tenant takes (the demo's kind of setting). */
export const BENCH_PAYMENT = { take: 'deposit', deposit: { percent: 30 } } as const;

/** The creates of a row: `count` sessions opened first (untimed), then booked `concurrency` at a time. */
async function createRow(
  runner: PaymentsRunner,
  options: {
    scenario: string;
    size: number;
    slip: string;
    count: number;
    concurrency: number;
    standIn?: BenchServer;
    dynamoPid?: number;
  },
): Promise<{ row: PaymentRow; created: Created[] }> {
  const base = runner.server.base;
  const sessions = await openSessions(base, options.slip, options.count, options.concurrency);
  const created: Created[] = [];
  const figures = await measuredRun(runner, options, () =>
    drive(sessions, options.concurrency, async (session) => {
      const done = await createBooking(base, session);
      if (done.created) created.push(done.created);
      // A paying tenant's create that opened no checkout (the provider failed) is not the row's create.
      return { ...done, ok: done.ok && (!options.standIn || Boolean(done.created?.checkoutId)) };
    }),
  );
  return {
    row: { scenario: options.scenario, items: options.size, concurrency: options.concurrency, ...figures },
    created,
  };
}

/** The bench's own keys for the stand-in (any well-formed key will do: the stand-in holds callers to it). */
const benchKeys = () => ({
  secretKey: `sk_test_bench${randomBytes(12).toString('hex')}`,
  webhookSecret: `whsec_bench${randomBytes(12).toString('hex')}`,
});

/**
 * The payment rows at one size: the create on `plain` (the bench tenant, no payment) and on a paying copy of
 * the tenant (a runner of its own, its provider the stand-in), then the webhook route of the paying runner.
 */
export async function measurePayments(options: {
  size: number;
  start: Ymd;
  endpoint: string;
  /** The runner of the size's scenarios: the bench tenant, which takes no payment. */
  plain: PaymentsRunner;
  /** Creates per create row, and events per webhook row. */
  creates: number;
  events: number;
  concurrency: number[];
  webhookConcurrency: number[];
  dynamoPid?: number;
  rated: string;
  say: (line: string) => void;
}): Promise<{ rows: PaymentRow[]; checks: string[] }> {
  const { size, say } = options;
  const keys = benchKeys();
  const standIn = await startServer(
    { BENCH_STRIPE_SECRET_KEY: keys.secretKey, BENCH_STRIPE_WEBHOOK_SECRET: keys.webhookSecret },
    'test/bench/stand-in.ts',
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-payments-'));
  const tenantFile = join(dir, 'tenant.json');
  const paying = benchTenant(size, options.start, BENCH_PAYMENT);
  writeFileSync(tenantFile, JSON.stringify(paying));
  const tableName = `bench-pay-${size}-${randomUUID().slice(0, 8)}`;
  const db = createDb({ endpoint: options.endpoint, tableName });
  await ensureTable(db);
  await writeTenant(db, paying, Date.now());
  const usageFile = join(dir, 'dynamodb-usage.json');
  const server = await startServer({
    PORT: String(await freePort()),
    DATA_DIR: dir,
    DYNAMODB_ENDPOINT: options.endpoint,
    TABLE_NAME: tableName,
    TENANT_FILE: tenantFile,
    SWEEP_INTERVAL_MS: '60000',
    TRUSTED_PROXIES: '127.0.0.1',
    DYNAMODB_USAGE_FILE: usageFile,
    STRIPE_SECRET_KEY: keys.secretKey,
    STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
    STRIPE_API_BASE: standIn.base,
  });
  const payingRunner: PaymentsRunner = { server, usageFile };
  const rows: PaymentRow[] = [];
  const checks: string[] = [];
  try {
    const slipOf = async (base: string) =>
      (
        (await (await fetch(`${base}/item/1?${options.rated}`)).json()) as {
          item: { rate: { slip: string } };
        }
      ).item.rate.slip;
    const slips = { plain: await slipOf(options.plain.server.base), paying: await slipOf(server.base) };
    const extra = { dynamoPid: options.dynamoPid };
    // Warm-up, not measured: the paying runner is fresh, and its first payment loads the adapter and the SDK.
    const warmUp = Math.max(8, Math.round(options.creates / 8));
    for (const [runner, slip] of [
      [options.plain, slips.plain],
      [payingRunner, slips.paying],
    ] as const)
      await createRow(runner, { scenario: 'warm-up', size, slip, count: warmUp, concurrency: 4, ...extra });
    const created: Created[] = [];
    for (const concurrency of options.concurrency) {
      const plain = await createRow(options.plain, {
        scenario: 'create, no payment due',
        size,
        slip: slips.plain,
        count: options.creates,
        concurrency,
        ...extra,
      });
      const deposit = await createRow(payingRunner, {
        scenario: `create, ${BENCH_PAYMENT.deposit.percent} % deposit due`,
        size,
        slip: slips.paying,
        count: options.creates,
        concurrency,
        standIn,
        ...extra,
      });
      created.push(...deposit.created);
      for (const { row } of [plain, deposit]) {
        rows.push(row);
        say(
          `  ${size} items, c=${concurrency}: ${row.scenario}: ${row.rps} creates/s, p95 ${row.payment.p95} ms`,
        );
      }
    }
    rows.push(
      ...(await measureWebhooks({
        runner: payingRunner,
        standIn,
        keys,
        created,
        slip: slips.paying,
        size,
        events: options.events,
        concurrency: options.webhookConcurrency,
        checks,
        ...extra,
        say,
      })),
    );
  } finally {
    await stopServer(server.child);
    await stopServer(standIn.child);
  }
  return { rows, checks };
}

/** The payment rows as a Markdown table (the scenario table has them too, without these columns). */
export function paymentTable(rows: PaymentRow[]): string[] {
  const line = (cells: (string | number | undefined)[]) =>
    `| ${cells.map((cell) => cell ?? '').join(' | ')} |`;
  const header = [
    'payments',
    'items',
    'c',
    'per s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'errors',
    'DynamoDB calls/req',
    'write calls/req',
    'RCU/req',
    'WCU/req',
    'provider calls/req',
    'runner CPU ms/req',
    'stand-in CPU ms/req',
    '$/1k req',
    'outcomes',
  ];
  return [
    line(header),
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) =>
      line([
        row.scenario,
        row.items,
        row.concurrency,
        row.rps,
        row.p50,
        row.payment.p95,
        row.p99,
        row.errors,
        row.usage.callsPerRequest,
        row.payment.writeCallsPerRequest,
        row.usage.rcuPerRequest,
        row.usage.wcuPerRequest,
        row.payment.providerCallsPerRequest,
        row.cpu?.server,
        row.payment.providerCpu,
        row.cost.total.toFixed(6),
        Object.entries(row.payment.outcomes ?? {})
          .map(([outcome, count]) => `${outcome} ${count}`)
          .join(', '),
      ]),
    ),
  ];
}
