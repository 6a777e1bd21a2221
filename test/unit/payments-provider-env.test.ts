import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { localPayments } from '#infra/local/payments.ts';
import type { Tenant } from '#lib/config/index.ts';
import { paymentProviderFromEnv } from '#lib/payments/index.ts';

// Issue 43, the provider's keys: locally from STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET; in AWS from the
// tenant's Secrets Manager secret through the Parameters and Secrets extension (a stand-in for it here), `{}`
// until an operator puts the keys in.

const asked: { url: string; token: string }[] = [];
let secret = '{}';
const extension = createServer((request, response) => {
  asked.push({
    url: request.url ?? '',
    token: String(request.headers['x-aws-parameters-secrets-token'] ?? ''),
  });
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ SecretString: secret }));
});
await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', resolve));
const port = String((extension.address() as AddressInfo).port);
afterAll(() => new Promise<void>((resolve) => extension.close(() => resolve())));

describe('paymentProviderFromEnv', () => {
  it('has no provider when nothing is configured', async () => {
    expect(await paymentProviderFromEnv({})()).toBeUndefined();
  });

  it('makes the provider from the local keys, refusing an unusable API base when it is made', async () => {
    const source = paymentProviderFromEnv({
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
    });
    expect((await source())?.name).toBe('stripe');
    // The check is the adapter's (its own file beside the bundle, issue 43's bundle budget), so the source
    // itself is made without it, and refuses at the first call.
    const bad = paymentProviderFromEnv({
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      STRIPE_API_BASE: 'http://127.0.0.1:1/v1',
    });
    await expect(bad()).rejects.toThrow(/STRIPE_API_BASE/);
  });

  it('stops npm start on unusable local keys before any guest asks', async () => {
    const env = { STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    const tenant = { settings: { payment: { take: 'none' } } } as unknown as Tenant;
    const runner = (more: Record<string, string>) =>
      localPayments({ tenant, dataDir: '/nonexistent', env: { ...env, ...more } });
    await expect(runner({ STRIPE_API_BASE: 'http://127.0.0.1:1/v1' }).start('')).rejects.toThrow(
      /STRIPE_API_BASE/,
    );
    await expect(runner({ STRIPE_WEBHOOK_SECRET: '' }).start('')).rejects.toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(await runner({ STRIPE_API_BASE: 'http://127.0.0.1:1' }).start('')).toMatch(/^payments: Stripe at/);
  });

  it("reads the tenant's secret through the extension: none while it is {}, the provider once the keys are in", async () => {
    const env = {
      STRIPE_SECRET_ARN: 'arn:aws:secretsmanager:ca-central-1:1:secret:pay',
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: port,
      AWS_SESSION_TOKEN: 'session-token',
    };
    expect(await paymentProviderFromEnv(env)()).toBeUndefined();
    expect(asked.at(-1)).toEqual({
      url: `/secretsmanager/get?secretId=${encodeURIComponent(env.STRIPE_SECRET_ARN)}`,
      token: 'session-token',
    });
    secret = JSON.stringify({ secret_key: 'sk_test_2', webhook_secret: 'whsec_2' });
    const source = paymentProviderFromEnv(env);
    const provider = await source();
    expect(provider?.name).toBe('stripe');
    // Kept a minute: the same provider, without asking again.
    const count = asked.length;
    expect(await source()).toBe(provider);
    expect(asked).toHaveLength(count);
  });
});
