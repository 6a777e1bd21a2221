import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedSdk, depositSession } from '#test/support/stripe-world.ts';

// `tsx infra/local/stripe/cli.ts`, as `npm start` will run it, killed with SIGKILL as the soak kills the
// local runner, and started again on the same data directory: what it answered before the kill is still there.

const dataDir = mkdtempSync(join(tmpdir(), 'stripe-stand-in-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the CLI and reads its first two lines: where it listens, and the keys to reach it. */
async function startCli(): Promise<{
  child: ChildProcess;
  url: string;
  secretKey: string;
  webhookSecret: string;
}> {
  // Node with tsx's loader, not the tsx launcher: the launcher runs the script in a child that a SIGKILL of
  // the launcher would leave running.
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/stripe/cli.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, STRIPE_STANDIN_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  child.stdout?.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the CLI exited (${code}) before listening: ${out}`)));
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      const url = /listening on (http:\S+)/.exec(out)?.[1];
      const secretKey = /STRIPE_SECRET_KEY=(\S+)/.exec(out)?.[1];
      const webhookSecret = /STRIPE_WEBHOOK_SECRET=(\S+)/.exec(out)?.[1];
      if (url && secretKey && webhookSecret) resolve({ child, url, secretKey, webhookSecret });
    });
  });
}

const sdk = (url: string, key: string) => {
  const base = new URL(url);
  return checkedSdk(
    new Stripe(key, { host: base.hostname, port: Number(base.port), protocol: 'http', maxNetworkRetries: 0 }),
  );
};

describe('the stand-in CLI', () => {
  it('keeps what it answered across a SIGKILL and a restart on the same data directory', async () => {
    const first = await startCli();
    const before = sdk(first.url, first.secretKey);
    const created = await before.checkout.sessions.create(depositSession(), { idempotencyKey: 'cli-1' });
    const paid = await fetch(`${first.url}/_standin/checkout/${created.id}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.secretKey}` },
    });
    expect(paid.status).toBe(200);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    const second = await startCli();
    expect([second.secretKey, second.webhookSecret]).toEqual([first.secretKey, first.webhookSecret]);
    const after = sdk(second.url, second.secretKey);
    const read = await after.checkout.sessions.retrieve(created.id, { expand: ['payment_intent'] });
    expect([read.status, (read.payment_intent as Stripe.PaymentIntent).status]).toEqual([
      'complete',
      'succeeded',
    ]);
    const replay = await after.checkout.sessions.create(depositSession(), { idempotencyKey: 'cli-1' });
    expect(replay.id).toBe(created.id);
    const stopped = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    expect(await stopped).toBe(0);
  });
});
