import { type ChildProcess, spawn } from 'node:child_process';

/** A local runner (`infra/local/start.ts`) the benchmark started, and the API base it listens on. */
export interface BenchServer {
  child: ChildProcess;
  base: string;
}

/**
 * Starts the local runner (or another server `script`) in a process group of its own with `env`, and waits until it listens. With
 * BENCH_CPU_PROF=<dir>, the runner writes a V8 CPU profile there when it stops (`--cpu-prof`).
 */
export async function startServer(
  env: Record<string, string>,
  script = 'infra/local/start.ts',
  /** Another checkout to run the script of (the side-by-side comparison's older commit). */
  cwd?: string,
): Promise<BenchServer> {
  const profile = process.env.BENCH_CPU_PROF;
  const args = profile
    ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, '--import', 'tsx', script]
    : ['--import', 'tsx', script];
  const child = spawn(process.execPath, args, {
    ...(cwd ? { cwd } : {}),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      ...env,
    },
  });
  let log = '';
  child.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + 60_000;
  while (!/listening on (\S+)/.test(log)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start: ${log}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return { child, base: /listening on (\S+)/.exec(log)?.[1] ?? '' };
}

/** Stops the runner's whole process group (tsx and the runner under it) and waits for it to exit. */
export async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.once('exit', done));
  process.kill(-(child.pid as number), 'SIGTERM');
  await exited;
}

let nextClient = 0;

/** Gives each autocannon connection a client address of its own (and the scenario's headers). */
export const asClients = (headers: Record<string, string> = {}) => ({
  setupClient: (client: { setHeaders: (headers: Record<string, string>) => void }) => {
    nextClient += 1;
    client.setHeaders({
      ...headers,
      'x-forwarded-for': `10.${(nextClient >> 16) & 255}.${(nextClient >> 8) & 255}.${nextClient & 255}`,
    });
  },
});
