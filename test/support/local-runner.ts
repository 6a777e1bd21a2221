import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';

/** A `npm start` process group started by a test. */
export interface RunningService {
  child: ChildProcess;
  base: string;
  output: () => string;
}

const TSX = 'node_modules/.bin/tsx';
// tsx's launcher is a Node process of its own that starts a second one to run the script: loading the
// script's Node with tsx's hooks instead saves that process (a start to its stop, measured alone: 2.0 s of
// CPU against 2.4).
const WITH_TSX = ['--import', 'tsx'];

/** Starts a command of the local runner in its own process group and waits for its `listening on` line. */
async function launch(options: {
  command: string;
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
}): Promise<RunningService> {
  const child = spawn(options.command, options.args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...options.env },
  });
  let log = '';
  child.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + options.timeoutMs;
  while (!/listening on (\S+)/.test(log)) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${log}`);
    if (Date.now() > deadline) throw new Error(`npm start did not listen in time: ${log}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
  const base = /listening on (\S+)/.exec(log)?.[1] ?? '';
  return { child, base, output: () => log };
}

/**
 * Starts the local runner (one Node process running infra/local/start.ts with tsx's hooks) in its own process
 * group and waits until it listens.
 */
export const startService = (env: Record<string, string>, timeoutMs = 90_000): Promise<RunningService> =>
  launch({ command: process.execPath, args: [...WITH_TSX, 'infra/local/start.ts'], env, timeoutMs });

/**
 * Starts the local runner under tsx's launcher (tsx, then the Node process of start.ts), as `npm start` runs
 * it below npm: for the tests of what happens when that launcher goes.
 */
export const startServiceUnderTsx = (
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<RunningService> => launch({ command: TSX, args: ['infra/local/start.ts'], env, timeoutMs });

/** Starts `npm start` itself (npm, then tsx, then the Node process of start.ts), as a developer does. */
export const startNpmStart = (env: Record<string, string>, timeoutMs = 90_000): Promise<RunningService> =>
  launch({ command: 'npm', args: ['start'], env, timeoutMs });

/** Whether any process of the group is still alive. */
export function groupAlive(pid: number): boolean {
  try {
    return execFileSync('ps', ['-o', 'pid=', '-g', String(pid)], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

/** Sends SIGTERM to the whole group (as a terminal or the smoke check does) and waits for it to end. */
export async function stopService(service: RunningService, timeoutMs = 20_000): Promise<boolean> {
  const pid = service.child.pid as number;
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return true;
  }
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(-pid, 'SIGKILL');
      return false;
    }
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return true;
}

/**
 * Folders a test file makes under the system's temporary folder (DATA_DIRs, a PATH), removed together once
 * nothing runs on them.
 */
export function tempDirs(): { make: (prefix: string) => string; made: () => string[]; remove: () => void } {
  const made: string[] = [];
  return {
    made: () => [...made],
    make: (prefix) => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    remove: () => {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The service the tests of one file share: see `setUpService`. */
export interface FileService {
  /** The API's base URL, once the service listens. */
  readonly base: string;
  /** Its own DynamoDB table. */
  readonly tableName: string;
  /** What it has written so far. */
  output: () => string;
}

/**
 * Starts the local runner before the tests of the file that calls it (on a free port of 127.0.0.1, with the
 * test run's DynamoDB Local, a fresh DATA_DIR and its own table, both named after `name`, and `env` on top)
 * and stops it after them, removing its DATA_DIR.
 */
export function setUpService(name: string, env: Record<string, string> = {}): FileService {
  const tableName = `${name}-${randomUUID()}`;
  let service: RunningService | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
    service = await startService({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      TABLE_NAME: tableName,
      ...env,
    });
  }, 120_000);

  afterAll(async () => {
    // A DATA_DIR is kept when something may still use it: a start that failed, a stop that had to SIGKILL.
    if (service && (await stopService(service)) && dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const started = () => {
    if (!service) throw new Error(`the service "${name}" has not started`);
    return service;
  };

  return {
    get base() {
      return started().base;
    },
    tableName,
    output: () => started().output(),
  };
}

/** Runs a project CLI (with tsx's hooks) with extra environment and returns its output. */
export function runCli(script: string, args: string[], env: Record<string, string>): string {
  return execFileSync(process.execPath, [...WITH_TSX, script, ...args], {
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
}

/** The processes running now, with their parent and command line (zombies have no command line). */
function listProcesses(): { pid: number; ppid: number; args: string }[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] ?? '' }));
}

/** The DynamoDB Local (Java) processes working on `dataDir`: so parallel runs never confuse each other. */
export function dynamoProcessesOf(dataDir: string): number[] {
  return listProcesses()
    .filter((entry) => entry.args.includes('DynamoDBLocal.jar') && entry.args.includes(dataDir))
    .map((entry) => entry.pid);
}

/**
 * The Node process that runs infra/local/start.ts below `topPid` (npm, tsx's launcher): the deepest one
 * whose command line names the script, as tsx's launcher names it too.
 */
export function startScriptPid(topPid: number): number | undefined {
  const processes = listProcesses();
  const below = new Set([topPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of processes) {
      if (below.has(entry.ppid) && !below.has(entry.pid)) {
        below.add(entry.pid);
        grew = true;
      }
    }
  }
  const runners = processes.filter(
    (entry) => below.has(entry.pid) && entry.args.includes('infra/local/start.ts'),
  );
  return runners.find((entry) => !runners.some((other) => other.ppid === entry.pid))?.pid;
}

/** The processes of a group that still run (zombies left to an init that does not reap them are gone). */
export const liveInGroup = (pid: number): string[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=,args=', '-g', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^\d+\s+Z/.test(line));
  } catch {
    return [];
  }
};

/** The live processes whose command line names `text` (DynamoDB Local's -dbPath under DATA_DIR). */
export const liveNaming = (text: string): string[] =>
  execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes(text) && !/^\d+\s+Z/.test(line));
