import { resolve } from 'node:path';
import { startStripeStandIn } from './index.ts';

// `tsx infra/local/stripe/cli.ts`: the stand-in on its own, as `npm start` will run it beside the service.
// Its environment is documented in docs/payments-stand-in.md.
const env = process.env;
const number = (name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    process.stderr.write(`${name} must be a whole number, 0 or more (got ${value})\n`);
    process.exit(2);
  }
  return parsed;
};

const standIn = await startStripeStandIn({
  host: env.STRIPE_STANDIN_HOST || '127.0.0.1',
  port: number('STRIPE_STANDIN_PORT', 12111),
  publicUrl: env.STRIPE_STANDIN_PUBLIC_URL || undefined,
  dataDir: resolve(env.DATA_DIR || '.data'),
  secretKey: env.STRIPE_SECRET_KEY || undefined,
  webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
  webhookUrls: (env.STRIPE_WEBHOOK_URL ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean),
  retry: {
    baseMs: number('STRIPE_STANDIN_RETRY_BASE_MS', 500),
    maxMs: number('STRIPE_STANDIN_RETRY_MAX_MS', 30_000),
    maxAttempts: number('STRIPE_STANDIN_RETRY_ATTEMPTS', 8),
    timeoutMs: number('STRIPE_STANDIN_WEBHOOK_TIMEOUT_MS', 10_000),
  },
});
process.stdout.write(`stripe stand-in listening on ${standIn.url}\n`);
process.stdout.write(
  `STRIPE_API_BASE=${standIn.url} STRIPE_SECRET_KEY=${standIn.secretKey} STRIPE_WEBHOOK_SECRET=${standIn.webhookSecret}\n`,
);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void standIn.stop().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
