import { renameSync, writeFileSync } from 'node:fs';
import type { Group } from '#lib/http/routes.ts';
import { countDbUsage, emptyDbUsage } from './db-usage.ts';
import type { GatewayHandler } from './gateway.ts';

/**
 * DYNAMODB_USAGE_FILE, the benchmark's opt-in: a DynamoDB client hook that counts calls and consumed
 * capacity, and a wrapper that counts the requests the handlers serve, both into the file. It is rewritten
 * within 50 ms of a change once no request is in flight, aside and then renamed, so a reader never sees half
 * of it.
 */
export function recordUsage(file: string) {
  const usage = emptyDbUsage();
  const requests = { served: 0, inFlight: 0 };
  let pending = false;
  const write = () => {
    // While requests are in flight the file waits: the benchmark reads it once they have stopped, and
    // writing it under load would cost the service throughput the ceiling server does not pay.
    if (requests.inFlight > 0) {
      setTimeout(write, 50).unref();
      return;
    }
    pending = false;
    writeFileSync(`${file}.tmp`, JSON.stringify({ pid: process.pid, at: Date.now(), ...requests, ...usage }));
    renameSync(`${file}.tmp`, file);
  };
  const changed = () => {
    if (pending) return;
    pending = true;
    setTimeout(write, 50).unref();
  };
  write();
  const count = (handlers: Record<Group, GatewayHandler>) =>
    Object.fromEntries(
      Object.entries(handlers).map(([group, handler]) => [
        group,
        async (...args: Parameters<GatewayHandler>) => {
          requests.served += 1;
          requests.inFlight += 1;
          changed();
          try {
            return await handler(...args);
          } finally {
            requests.inFlight -= 1;
            changed();
          }
        },
      ]),
    ) as Record<Group, GatewayHandler>;
  return { instrument: countDbUsage(usage, changed), count };
}
