import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, type LocalDynamo, startLocalDynamo } from '#infra/local/dynamodb.ts';
import type { Tenant } from '#lib/config/tenant-schema.ts';
import { createDb, type Db } from '#lib/kernel/storage/database.ts';
import { startServer } from '#test/bench/server.ts';

// The soak's processes: DynamoDB Local with its data on disk, and the local runner as a process of its own,
// each killed and started again on the same data, port and table by the fault schedule.

export const ADMIN = { key: 'soak-admin', secret: 'soak-admin-secret-0123456789' };

/** The running service: where it listens, and how to kill, stop or start its two processes again. */
export interface SoakWorld {
  base: string;
  db: Db;
  dataDir: string;
  /** The runner's stand-in for Stripe (it lives in the runner's process, on a port kept across restarts). */
  standIn: StandInAddress;
  /** Kills the runner with SIGKILL (no shutdown of any kind). */
  killRunner(): void;
  /** Stops the runner with SIGTERM and waits for it to exit. */
  stopRunner(): Promise<void>;
  /** Starts the runner again on the same data, optionally with other environment (a stopped sweeper). */
  startRunner(env?: Record<string, string>): Promise<void>;
  killDynamo(): Promise<void>;
  startDynamo(): Promise<void>;
  stop(): Promise<void>;
}

/** Where the soak reaches the runner's stand-in for Stripe: its base and the key its API and controls take. */
export interface StandInAddress {
  url: string;
  secretKey: string;
}

/**
 * The stand-in's key, read from its files in the runner's data directory: the snapshot once it was folded,
 * else the journal's first line that carries it (written before its first answer; it never changes).
 */
function standInKey(dataDir: string): string | undefined {
  const file = join(dataDir, 'stripe-stand-in.json');
  const lines = [
    ...(existsSync(file) ? [readFileSync(file, 'utf8')] : []),
    ...(existsSync(`${file}.journal`) ? readFileSync(`${file}.journal`, 'utf8').split('\n') : []),
  ];
  for (const line of lines) {
    try {
      const parsed = JSON.parse(line) as { secretKey?: string; meta?: { secretKey?: string } };
      const key = parsed.secretKey ?? parsed.meta?.secretKey;
      if (key) return key;
    } catch {
      // A line torn by a kill, or the journal's empty last line.
    }
  }
  return undefined;
}

export async function startWorld(options: { dir: string; tenant: Tenant }): Promise<SoakWorld> {
  const dynamoDir = join(options.dir, 'dynamodb');
  const dynamoPort = await freePort();
  const port = await freePort();
  const standInPort = await freePort();
  const tenantFile = join(options.dir, 'tenant.json');
  writeFileSync(tenantFile, JSON.stringify(options.tenant));
  let dynamo: LocalDynamo | undefined = await startLocalDynamo({ dataDir: dynamoDir, port: dynamoPort });
  const endpoint = dynamo.endpoint;
  const tableName = 'booking-soak';
  let runner: ChildProcess | undefined;
  const baseEnv = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: join(options.dir, 'runner'),
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: tableName,
    TENANT_FILE: tenantFile,
    ADMIN_API_KEY: ADMIN.key,
    ADMIN_API_SECRET: ADMIN.secret,
    SWEEP_INTERVAL_MS: '5000',
    WEBHOOK_INTERVAL_MS: '500',
    CHANNEL_SYNC_INTERVAL_MS: '5000',
    // Every guest comes through this proxy with an address of its own in X-Forwarded-For.
    TRUSTED_PROXIES: '127.0.0.1',
    // The tenant takes a deposit: with no Stripe keys, the runner starts its stand-in, as `npm start` does, on
    // a port of its own that a restart keeps (the checkouts' addresses name it).
    STRIPE_SECRET_KEY: '',
    STRIPE_WEBHOOK_SECRET: '',
    STRIPE_API_BASE: '',
    STRIPE_STANDIN_HOST: '127.0.0.1',
    STRIPE_STANDIN_PORT: String(standInPort),
  };
  const startRunner = async (env: Record<string, string> = {}) => {
    runner = (await startServer({ ...baseEnv, ...env })).child;
  };
  await startRunner();
  let secretKey = standInKey(baseEnv.DATA_DIR);
  for (let waited = 0; !secretKey && waited < 30_000; waited += 100) {
    await new Promise((wake) => setTimeout(wake, 100));
    secretKey = standInKey(baseEnv.DATA_DIR);
  }
  if (!secretKey) throw new Error('the runner did not start its stand-in for Stripe');
  const killGroup = (child: ChildProcess | undefined) => {
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  };
  const stopRunner = async () => {
    const child = runner;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  };
  return {
    base: `http://127.0.0.1:${port}/api/3.0`,
    db: createDb({ endpoint, tableName }),
    dataDir: baseEnv.DATA_DIR,
    standIn: { url: `http://127.0.0.1:${standInPort}`, secretKey },
    killRunner: () => killGroup(runner),
    stopRunner,
    startRunner,
    killDynamo: async () => {
      const killed = dynamo;
      dynamo = undefined;
      killed?.process.kill('SIGKILL');
      // Waits for Java to be gone and ends its watchdog.
      await killed?.stop();
    },
    startDynamo: async () => {
      dynamo = await startLocalDynamo({ dataDir: dynamoDir, port: dynamoPort });
    },
    stop: async () => {
      await stopRunner();
      await dynamo?.stop();
    },
  };
}
