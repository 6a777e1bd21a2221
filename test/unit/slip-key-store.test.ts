import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretSlipKeys } from '#lib/slip/key-store.ts';
import { TEST_SLIP_KEY } from '#test/support/deps.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:slip-AbCdEf';

// The AWS Parameters and Secrets Lambda Extension as its guide describes it: GET /secretsmanager/get with
// the secret's id, the function's session token in X-Aws-Parameters-Secrets-Token, GetSecretValue's JSON.
let server: Server | undefined;
const extension = async (answer: (request: IncomingMessage) => { status: number; body: string }) => {
  const seen: IncomingMessage[] = [];
  server = createServer((request, response) => {
    seen.push(request);
    const { status, body } = answer(request);
    response.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  return { port: (server.address() as AddressInfo).port, seen };
};

afterEach(async () => {
  await new Promise((done) => server?.close(done));
  server = undefined;
});

describe('the SLIP keys through the secrets extension', () => {
  it('asks for the secret with the session token and reads its SecretString', async () => {
    const { port, seen } = await extension(() => ({
      status: 200,
      body: JSON.stringify({
        ARN,
        Name: 'slip',
        SecretString: TEST_SLIP_KEY.secret,
        VersionStages: ['AWSCURRENT'],
      }),
    }));
    const keys = createSecretSlipKeys({ secretArn: ARN, port, sessionToken: 'session-token' });
    const [key] = await keys();
    expect(key?.secret).toBe(TEST_SLIP_KEY.secret);
    expect(seen[0]?.url).toBe(`/secretsmanager/get?secretId=${encodeURIComponent(ARN)}`);
    expect(seen[0]?.headers['x-aws-parameters-secrets-token']).toBe('session-token');
  });

  it('keeps the keys for its cache time, then asks again (a rotated secret is picked up)', async () => {
    let secret = TEST_SLIP_KEY.secret;
    const { port, seen } = await extension(() => ({
      status: 200,
      body: JSON.stringify({ SecretString: secret }),
    }));
    // Half a second: two reads in a row fall within it even on a loaded machine (40 ms did not).
    const keys = createSecretSlipKeys({ secretArn: ARN, port, cacheMs: 500 });
    await keys();
    await keys();
    expect(seen).toHaveLength(1);
    secret = `${'n'.repeat(43)} ${TEST_SLIP_KEY.secret}`;
    await expect.poll(async () => (await keys()).length, { interval: 50, timeout: 5_000 }).toBe(2);
  });

  it('fails the request, not the instance, when the extension refuses, and asks again next time', async () => {
    let status = 400;
    const { port } = await extension(() => ({
      status,
      body: status === 200 ? JSON.stringify({ SecretString: TEST_SLIP_KEY.secret }) : 'AccessDeniedException',
    }));
    const keys = createSecretSlipKeys({ secretArn: ARN, port });
    await expect(keys()).rejects.toThrow(/answered 400: AccessDeniedException/);
    status = 200;
    expect(await keys()).toHaveLength(1);
  });
});
