import { type FleetDeps, runFleet } from '#infra/fleet/run.ts';

/** What one `npm run fleet` run printed and returned, with what it asked to run and to wait. */
export interface FleetRun {
  code: number;
  out: string;
  err: string;
  /** The commands it ran (`cdk deploy …`), each as its argv. */
  commands: string[][];
  /** The waits it asked for, in milliseconds. */
  sleeps: number[];
}

/**
 * Runs the fleet command in `cwd` as the tests drive it: its output kept, no wait slept, every command
 * recorded and answered 0. Without `deps.connectAws` there is no AWS (so git HEAD is the default baseline).
 */
export async function runFleetIn(
  cwd: string,
  argv: string[],
  deps: Pick<Partial<FleetDeps>, 'connectAws' | 'run'> = {},
): Promise<FleetRun> {
  const run: FleetRun = { code: 0, out: '', err: '', commands: [], sleeps: [] };
  run.code = await runFleet(argv, {
    cwd,
    out: (text) => {
      run.out += `${text}\n`;
    },
    err: (text) => {
      run.err += `${text}\n`;
    },
    connectAws: deps.connectAws ?? (async () => undefined),
    run:
      deps.run ??
      (async (command, args) => {
        run.commands.push([command, ...args]);
        return 0;
      }),
    sleep: async (ms) => {
      run.sleeps.push(ms);
    },
  });
  return run;
}
