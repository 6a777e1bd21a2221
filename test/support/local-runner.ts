import { type ChildProcess, execFileSync, spawn } from 'node:child_process';

/** A `npm start` process group started by a test. */
export interface RunningService {
  child: ChildProcess;
  base: string;
  output: () => string;
}

const TSX = 'node_modules/.bin/tsx';

/** Starts the local runner in its own process group and waits for its `listening on` line. */
export async function startService(env: Record<string, string>, timeoutMs = 90_000): Promise<RunningService> {
  const child = spawn(TSX, ['infra/local/start.ts'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  let log = '';
  child.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + timeoutMs;
  while (!/listening on (\S+)/.test(log)) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${log}`);
    if (Date.now() > deadline) throw new Error(`npm start did not listen in time: ${log}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
  const base = /listening on (\S+)/.exec(log)?.[1] ?? '';
  return { child, base, output: () => log };
}

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

/** Runs a project CLI (through tsx) with extra environment and returns its output. */
export function runCli(script: string, args: string[], env: Record<string, string>): string {
  return execFileSync(TSX, [script, ...args], {
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
}
