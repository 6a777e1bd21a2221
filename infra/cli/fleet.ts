import { setTimeout } from 'node:timers/promises';
import { connectAws } from '#infra/fleet/aws.ts';
import { runFleet } from '#infra/fleet/run.ts';
import { makeRunner } from '#infra/fleet/runner.ts';

// npm run fleet -- synth|diff|deploy [--tenants a,b] [--wave N] …: see infra/fleet/args.ts and docs/fleet.md.
runFleet(process.argv.slice(2), {
  cwd: process.cwd(),
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  connectAws,
  run: makeRunner(),
  sleep: (ms) => setTimeout(ms),
})
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    process.stderr.write(`fleet: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
