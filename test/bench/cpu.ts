import { readFileSync } from 'node:fs';

/** CPU time in ms a process has used (user and system), from /proc; undefined where /proc is missing. */
export function processCpuMs(pid: number): number | undefined {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock
    // ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU ms per request of each process of a measurement: the server, DynamoDB Local and the load generator. */
export interface CpuPerRequest {
  /** The server under load (the local runner, or the ceiling's server); absent for a floor. */
  server?: number;
  dynamoDb?: number;
  /** This process: autocannon, or the floor's own SDK calls. */
  load: number;
}

/**
 * Starts counting the CPU of `pids` (by name) and of this process; the function it returns stops and
 * divides each by `requests`. Where the machine has no /proc, only this process is counted.
 */
export function startCpuMeter(pids: { server?: number; dynamoDb?: number }) {
  const read = (pid: number | undefined) => (pid === undefined ? undefined : processCpuMs(pid));
  const server = read(pids.server);
  const dynamoDb = read(pids.dynamoDb);
  const load = process.cpuUsage();
  return (requests: number): CpuPerRequest => {
    const per = (before: number | undefined, after: number | undefined) =>
      before === undefined || after === undefined || !requests
        ? undefined
        : Math.round(((after - before) / requests) * 100) / 100;
    const used = process.cpuUsage(load);
    return {
      ...(pids.server === undefined ? {} : { server: per(server, read(pids.server)) }),
      dynamoDb: per(dynamoDb, read(pids.dynamoDb)),
      load: requests ? Math.round(((used.user + used.system) / 1000 / requests) * 100) / 100 : 0,
    };
  };
}
