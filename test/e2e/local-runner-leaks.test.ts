import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { lockFile } from '#infra/local/data-dir-lock.ts';
import { isProcessAlive } from '#infra/local/processes.ts';
import { readJson } from '#test/support/events.ts';
import {
  dynamoProcessesOf,
  type RunningService,
  startNpmStart,
  startScriptPid,
  startServiceUnderTsx,
  stopService,
  tempDirs,
} from '#test/support/local-runner.ts';

// Issue 15: `npm start` never leaves DynamoDB Local behind, whichever of its Node processes (npm, tsx's
// launcher, the one running start.ts) is killed with SIGKILL, and two starts never share a DATA_DIR.
const port = 20_000 + Math.floor(Math.random() * 10_000);
const env = (dataDir: string, offset: number) => ({
  PORT: String(port + offset),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  SWEEP_INTERVAL_MS: '500',
});
const started: RunningService[] = [];
const dirs = tempDirs();
const remember = (service: RunningService) => {
  started.push(service);
  return service;
};

/** Polls `check` every 100 ms for up to `timeoutMs`; whether it came true. */
async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return true;
}

/** Runs start.ts to its end (a start that is refused exits on its own): its exit status and output. */
const runStart = (extra: Record<string, string>) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      ['node_modules/tsx/dist/cli.mjs', 'infra/local/start.ts'],
      {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...extra },
      },
      (error, stdout, stderr) => done({ status: error ? (error.code as number | null) : 0, stdout, stderr }),
    );
  });

afterAll(async () => {
  // Whatever a failed test left running goes, group and all.
  let stopped = true;
  for (const service of started) {
    if (service.child.exitCode === null && service.child.signalCode === null)
      stopped = (await stopService(service)) && stopped;
  }
  // The DATA_DIRs go once nothing runs on them; a DynamoDB Local a failed test left behind keeps its own.
  if (stopped && dirs.made().every((dir) => dynamoProcessesOf(dir).length === 0)) dirs.remove();
});

describe('npm start and its DynamoDB Local', () => {
  // Each service is ended by one of the three SIGKILLs, so Java starts three times and no more: the start
  // that takes over the stale lock is the one whose tsx process is then killed.
  it('refuses a second start on its DATA_DIR, leaves no Java when its Node process or the tsx process it runs under is SIGKILLed, and the next start takes over the stale lock', {
    timeout: 240_000,
  }, async () => {
    const dataDir = dirs.make('leaks-');
    const first = remember(await startServiceUnderTsx(env(dataDir, 0)));
    const node = startScriptPid(first.child.pid as number) as number;
    expect(node).toBeGreaterThan(0);
    expect(node).not.toBe(first.child.pid);
    expect(dynamoProcessesOf(dataDir)).toHaveLength(1);
    expect(JSON.parse(readFileSync(lockFile(dataDir), 'utf8')).pid).toBe(node);

    // A second start on the same DATA_DIR, with its own engine or an external one, says who holds it and
    // exits before starting Java or touching the data; the first keeps serving. The two are refused side by
    // side: neither takes the lock, so neither waits on the other.
    const external: Record<string, string> = {
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      TABLE_NAME: `leaks-${port}`,
    };
    const seconds = await Promise.all(
      [{}, external].map((extra) => runStart({ ...env(dataDir, 1), ...extra })),
    );
    for (const second of seconds) {
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`DATA_DIR ${dataDir} is in use by another npm start (pid ${node},`);
      expect(second.stderr).toContain('so as not to corrupt its data');
      expect(second.stdout).not.toContain('listening on');
    }
    expect(dynamoProcessesOf(dataDir)).toHaveLength(1);
    expect((await readJson(await fetch(`${first.base}/ping`))).request.status).toBe('OK');
    expect(existsSync(join(dataDir, 'connection.json'))).toBe(true);

    // SIGKILL of the Node process running start.ts alone: no handler runs, yet Java goes.
    process.kill(node, 'SIGKILL');
    expect(await waitFor(() => dynamoProcessesOf(dataDir).length === 0, 10_000)).toBe(true);
    expect(
      await waitFor(() => first.child.exitCode !== null || first.child.signalCode !== null, 10_000),
    ).toBe(true);

    // Its lock is stale now: the next start takes it over, says so, and serves the same data.
    const next = remember(await startServiceUnderTsx(env(dataDir, 0)));
    const nextNode = startScriptPid(next.child.pid as number) as number;
    expect(next.output()).toContain(`took over the stale lock ${lockFile(dataDir)} of npm start pid ${node}`);
    expect((await readJson(await fetch(`${next.base}/ping`))).request.status).toBe('OK');
    expect(dynamoProcessesOf(dataDir)).toHaveLength(1);
    expect(JSON.parse(readFileSync(lockFile(dataDir), 'utf8')).pid).toBe(nextNode);

    // SIGKILL of the tsx process it runs under: start.ts sees its parent gone and stops, Java included.
    process.kill(next.child.pid as number, 'SIGKILL');
    expect(await waitFor(() => dynamoProcessesOf(dataDir).length === 0, 10_000)).toBe(true);
    expect(await waitFor(() => !isProcessAlive(nextNode), 10_000)).toBe(true);
    expect(next.output()).toContain(`(pid ${next.child.pid}) is gone; stopping`);
    // It stopped as on SIGTERM: the lock it took over and the connection file are gone.
    expect(existsSync(lockFile(dataDir))).toBe(false);
    expect(existsSync(join(dataDir, 'connection.json'))).toBe(false);
  });

  it('stops, Java included, when npm itself is SIGKILLed', { timeout: 180_000 }, async () => {
    const dataDir = dirs.make('leaks-');
    const service = remember(await startNpmStart(env(dataDir, 3)));
    const node = startScriptPid(service.child.pid as number) as number;
    expect(node).toBeGreaterThan(0);
    expect(dynamoProcessesOf(dataDir)).toHaveLength(1);

    process.kill(service.child.pid as number, 'SIGKILL');
    expect(await waitFor(() => dynamoProcessesOf(dataDir).length === 0, 10_000)).toBe(true);
    expect(await waitFor(() => !isProcessAlive(node), 10_000)).toBe(true);
    expect(existsSync(lockFile(dataDir))).toBe(false);
  });
});
