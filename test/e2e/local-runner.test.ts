import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { lockFile } from '#infra/local/data-dir-lock.ts';
import { JAVA_MISSING } from '#infra/local/dynamodb.ts';
import { basic, readJson } from '#test/support/events.ts';
import {
  groupAlive,
  type RunningService,
  runCli,
  startService,
  stopService,
  tempDirs,
} from '#test/support/local-runner.ts';

// Every folder made here goes after the tests, unless a service on it would not stop.
const dirs = tempDirs();
const dataDir = dirs.make('runner-');
const env = (port: number) => ({
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  SWEEP_INTERVAL_MS: '500',
});
const port = 20_000 + Math.floor(Math.random() * 10_000);
let running: RunningService | undefined;

/** A PATH holding node and nothing else: no java. */
const pathWithoutJava = (): string => {
  const dir = dirs.make('nojava-');
  symlinkSync(process.execPath, join(dir, 'node'));
  return dir;
};

afterAll(async () => {
  if (running && !(await stopService(running))) return;
  dirs.remove();
});

describe('npm start', () => {
  it('serves the API, keeps its data across a restart, and stops cleanly on SIGTERM', {
    timeout: 240_000,
  }, async () => {
    running = await startService(env(port));
    expect(running.base).toBe(`http://127.0.0.1:${port}/api/3.0`);
    const ping = await readJson(await fetch(`${running.base}/ping`));
    expect(ping.request.status).toBe('OK');

    // No ADMIN_API_KEY: a credential is generated once and kept under DATA_DIR.
    const admin = JSON.parse(readFileSync(join(dataDir, 'admin-credential.json'), 'utf8')) as {
      key: string;
      secret: string;
    };
    expect(running.output()).toContain(admin.key);
    const authorization = basic(admin.key, admin.secret);
    const first = await readJson(await fetch(`${running.base}/account`, { headers: { authorization } }));
    expect(first.account).toHaveLength(2);

    // The credentials CLI reaches the running service's table through DATA_DIR.
    const created = runCli('infra/cli/credentials.ts', ['create', '--account', '2', '--label', 'desk'], {
      DATA_DIR: dataDir,
    });
    const key = /key\s+(\S+)/.exec(created)?.[1] ?? '';
    const secret = /secret\s+(\S+)/.exec(created)?.[1] ?? '';
    expect(
      (await fetch(`${running.base}/account`, { headers: { authorization: basic(key, secret) } })).status,
    ).toBe(200);
    const listed = runCli('infra/cli/credentials.ts', ['list'], { DATA_DIR: dataDir });
    expect(listed).toContain(key);
    expect(listed).not.toContain(secret);

    const pid = running.child.pid as number;
    expect(await stopService(running)).toBe(true);
    expect(groupAlive(pid)).toBe(false);
    // A clean stop lets go of DATA_DIR: its lock and the connection file the CLIs read are gone.
    expect(existsSync(lockFile(dataDir))).toBe(false);
    expect(existsSync(join(dataDir, 'connection.json'))).toBe(false);

    running = await startService(env(port));
    expect(running.output()).not.toContain(admin.secret);
    const again = await readJson(await fetch(`${running.base}/account`, { headers: { authorization } }));
    expect(again.account[0].date_created).toBe(first.account[0].date_created);
    expect(
      (await fetch(`${running.base}/account`, { headers: { authorization: basic(key, secret) } })).status,
    ).toBe(200);
    expect(await stopService(running)).toBe(true);
    running = undefined;
  });

  it('exits with one line saying how to install Java when java is missing', () => {
    const result = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'infra/local/start.ts'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: pathWithoutJava(),
        DATA_DIR: dirs.make('runner-'),
        DYNAMODB_ENDPOINT: '',
      },
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(JAVA_MISSING);
  });

  it('uses DYNAMODB_ENDPOINT instead of starting its own engine (no Java needed)', {
    timeout: 120_000,
  }, async () => {
    const service = await startService({
      ...env(port + 1),
      DATA_DIR: dirs.make('runner-'),
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      TABLE_NAME: `runner-${port}`,
      PATH: pathWithoutJava(),
    });
    try {
      const company = await readJson(await fetch(`${service.base}/company`));
      expect(company.company.name).toBe('Loon Lake Lodge');
    } finally {
      expect(await stopService(service)).toBe(true);
    }
  });
});
