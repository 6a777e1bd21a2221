import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook, type WebhookRequest } from '#lib/webhooks/send.ts';
import { allowLoopbackOnly, resolvesTo } from '#test/support/loopback-only.ts';

// Network rule for this file: traffic only ever goes to 127.0.0.1. Every other address below is handed to
// the sender through an injected lookup and must be refused before any connection is attempted; the guard
// under that: test/support/loopback-only.ts.

allowLoopbackOnly();

interface Hit {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server | undefined;
let hits: Hit[] = [];

/** Starts a receiver on 127.0.0.1 (a fresh port) that records each request and answers with `answer`. */
const serve = async (answer: (response: ServerResponse, hit: Hit) => void): Promise<number> => {
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const hit = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      hits.push(hit);
      answer(response, hit);
    });
  });
  server = receiver;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return (receiver.address() as AddressInfo).port;
};

const reply =
  (status: number, body = '', headers: Record<string, string> = {}) =>
  (response: ServerResponse): void => {
    response.writeHead(status, headers).end(body);
  };

const makeRequest = (overrides: Partial<WebhookRequest> & Pick<WebhookRequest, 'url'>): WebhookRequest => ({
  headers: { 'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' },
  body: '{"type":"booking.created"}',
  policy: 'local',
  ...overrides,
});

afterEach(async () => {
  const receiver = server;
  server = undefined;
  hits = [];
  if (!receiver) return;
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('postWebhook answers', () => {
  it('counts a 200 as success, keeps the body, and times the attempt to its answer', async () => {
    // The receiver takes 1,234 ms of the sender's clock to answer, and no time passes otherwise.
    let now = 50_000;
    const port = await serve((response) => {
      now += 1_234;
      reply(200, 'thanks')(response);
    });
    const response = await postWebhook(
      makeRequest({ url: `http://127.0.0.1:${port}/hook`, clock: () => now }),
    );
    expect(response).toMatchObject({ outcome: 'success', status: 200, body: 'thanks' });
    expect(response.error).toBeUndefined();
    expect(response.durationMs).toBe(1_234);
  });

  it('keeps only the first 1024 bytes of a 5 KB body', async () => {
    const port = await serve(reply(200, 'a'.repeat(5 * 1024)));
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/` }));
    expect(response.outcome).toBe('success');
    expect(response.body).toBe('a'.repeat(1024));
  });

  it('drops a character cut at the 1024-byte limit instead of mangling it', async () => {
    const port = await serve(reply(200, '€'.repeat(2000)));
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/` }));
    // 341 three-byte characters fill 1023 bytes; the 342nd would cross the limit.
    expect(response.body).toBe('€'.repeat(341));
    expect(Buffer.byteLength(response.body)).toBeLessThanOrEqual(1024);
  });

  it('stops reading a body that never ends once it has 1024 bytes', async () => {
    const port = await serve((response) => {
      response.writeHead(200);
      response.write('x'.repeat(4096));
    });
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/`, timeoutMs: 5_000 }));
    expect(response).toMatchObject({ outcome: 'success', status: 200, body: 'x'.repeat(1024) });
    expect(response.durationMs).toBeLessThan(1_000);
  });

  it('counts a 204 as success with an empty body', async () => {
    const port = await serve(reply(204));
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/` }));
    expect(response).toMatchObject({ outcome: 'success', status: 204, body: '' });
  });

  it('counts a 500 as failure and reports the status and body', async () => {
    const port = await serve(reply(500, 'boom'));
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/` }));
    expect(response).toMatchObject({ outcome: 'failure', status: 500, body: 'boom' });
  });

  it('reports a 410 as gone', async () => {
    const port = await serve(reply(410, 'endpoint removed'));
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/` }));
    expect(response).toMatchObject({ outcome: 'gone', status: 410 });
  });

  it.each([301, 302, 307, 308])('does not follow a %i redirect', async (status) => {
    const port = await serve((response, hit) => {
      if (hit.path === '/first') reply(status, '', { location: `http://127.0.0.1:${port}/second` })(response);
      else reply(200)(response);
    });
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/first` }));
    expect(response).toMatchObject({ outcome: 'failure', status, error: 'redirect not followed' });
    expect(hits.map((hit) => hit.path)).toEqual(['/first']);
  });
});

describe('postWebhook failures', () => {
  it('gives up with a timeout when the receiver is slow to answer', async () => {
    const port = await serve((response) => {
      const timer = setTimeout(() => reply(200, 'late')(response), 2_000);
      response.on('close', () => clearTimeout(timer));
    });
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/`, timeoutMs: 300 }));
    expect(response).toMatchObject({ outcome: 'failure', error: 'timeout' });
    expect(response.durationMs).toBeGreaterThanOrEqual(250);
    expect(response.durationMs).toBeLessThan(1_000);
  });

  it('counts reading the body against the timeout', async () => {
    const port = await serve((response) => {
      response.writeHead(200);
      response.write('partial');
    });
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/`, timeoutMs: 300 }));
    expect(response).toMatchObject({ outcome: 'failure', status: 200, error: 'timeout', body: 'partial' });
    expect(response.durationMs).toBeLessThan(1_000);
  });

  it('counts a lookup that never answers against the timeout', async () => {
    const lookup: LookupFunction = () => {};
    const response = await postWebhook(
      makeRequest({ url: 'http://hooks.example.test/', lookup, timeoutMs: 200 }),
    );
    expect(response).toMatchObject({ outcome: 'failure', error: 'timeout' });
  });

  it('reports a refused connection by its code', async () => {
    const port = await serve(reply(200));
    const receiver = server;
    server = undefined;
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/` }));
    expect(response).toMatchObject({ outcome: 'failure', error: 'ECONNREFUSED', body: '' });
    expect(response.status).toBeUndefined();
  });

  it('reports a failed lookup by its code', async () => {
    const lookup: LookupFunction = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const response = await postWebhook(makeRequest({ url: 'http://hooks.example.test/', lookup }));
    expect(response).toMatchObject({ outcome: 'failure', error: 'ENOTFOUND' });
  });

  it('keeps header values out of the outcome, even when a header is invalid', async () => {
    const port = await serve(reply(200));
    const response = await postWebhook(
      makeRequest({
        url: `http://127.0.0.1:${port}/`,
        headers: { 'webhook-signature': 'v1,whsec_TOPSECRET\r\nx-injected: 1' },
      }),
    );
    expect(response).toMatchObject({ outcome: 'failure', error: 'ERR_INVALID_CHAR' });
    expect(JSON.stringify(response)).not.toContain('TOPSECRET');
    expect(hits).toEqual([]);
  });

  it('refuses a URL it cannot parse', async () => {
    const response = await postWebhook(makeRequest({ url: 'not a url' }));
    expect(response).toMatchObject({ outcome: 'refused', error: 'invalid URL' });
  });
});

describe('postWebhook policies', () => {
  it('refuses plain http when deployed, without reaching the receiver', async () => {
    const port = await serve(reply(200));
    const response = await postWebhook(makeRequest({ url: `http://127.0.0.1:${port}/`, policy: 'deployed' }));
    expect(response).toMatchObject({ outcome: 'refused', body: '' });
    expect(response.status).toBeUndefined();
    expect(hits).toEqual([]);
  });

  it('refuses a loopback literal when deployed, even over https', async () => {
    const port = await serve(reply(200));
    const response = await postWebhook(
      makeRequest({ url: `https://127.0.0.1:${port}/`, policy: 'deployed' }),
    );
    expect(response).toMatchObject({ outcome: 'refused', error: 'host resolves to a loopback address' });
    expect(hits).toEqual([]);
  });

  it('refuses a hostname that resolves to loopback when deployed', async () => {
    const port = await serve(reply(200));
    const { lookup, asked } = resolvesTo('127.0.0.1');
    const response = await postWebhook(
      makeRequest({ url: `https://hooks.example.test:${port}/`, policy: 'deployed', lookup }),
    );
    expect(response).toMatchObject({ outcome: 'refused', error: 'host resolves to a loopback address' });
    expect(asked).toEqual(['hooks.example.test']);
    expect(hits).toEqual([]);
  });

  it('delivers to localhost for the local runner, keeping the hostname as Host', async () => {
    const port = await serve(reply(200, 'ok'));
    const { lookup, asked } = resolvesTo('127.0.0.1');
    const response = await postWebhook(makeRequest({ url: `http://localhost:${port}/hook`, lookup }));
    expect(response).toMatchObject({ outcome: 'success', status: 200, body: 'ok' });
    expect(asked).toEqual(['localhost']);
    expect(hits[0]?.headers.host).toBe(`localhost:${port}`);
  });

  it('connects to the address it checked, never asking DNS a second time', async () => {
    const port = await serve(reply(200));
    let calls = 0;
    // A rebinding resolver: right the first time, then an answer the sender must never act on.
    const lookup: LookupFunction = (_hostname, _options, callback) => {
      calls += 1;
      if (calls === 1) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(Object.assign(new Error('rebound'), { code: 'EREBOUND' }), []);
    };
    const response = await postWebhook(makeRequest({ url: `http://rebind.example.test:${port}/`, lookup }));
    expect(response).toMatchObject({ outcome: 'success', status: 200 });
    expect(calls).toBe(1);
  });

  it.each<[string, string[], string]>([
    ['a public and a private address', ['93.184.216.34', '10.0.0.5'], 'a private address'],
    ['a private address first', ['10.0.0.5', '93.184.216.34'], 'a private address'],
    ['the metadata address', ['169.254.169.254'], 'a cloud metadata address'],
    ['the IPv6 metadata address', ['fd00:ec2::254'], 'a cloud metadata address'],
    ['a mapped private address', ['2606:4700::1111', '::ffff:192.168.0.1'], 'a private address'],
  ])('refuses a hostname resolving to %s', async (_label, addresses, reason) => {
    const { lookup } = resolvesTo(...addresses);
    for (const policy of ['deployed', 'local'] as const) {
      const response = await postWebhook(
        makeRequest({ url: 'https://hooks.example.test/', policy, lookup, timeoutMs: 500 }),
      );
      expect(response).toMatchObject({ outcome: 'refused', error: `host resolves to ${reason}` });
    }
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
    ['http://[fd00:ec2::254]/', 'a cloud metadata address'],
    ['http://[::ffff:169.254.169.254]/', 'a cloud metadata address'],
    ['http://0xa9fea9fe/', 'a cloud metadata address'],
    ['http://10.0.0.5:8080/', 'a private address'],
  ])('refuses the IP literal in %s without a lookup', async (url, reason) => {
    const { lookup, asked } = resolvesTo('127.0.0.1');
    const response = await postWebhook(makeRequest({ url, lookup, timeoutMs: 500 }));
    expect(response).toMatchObject({ outcome: 'refused', error: `host resolves to ${reason}` });
    expect(asked).toEqual([]);
  });
});

describe('postWebhook requests', () => {
  it('sends the headers and body exactly, as JSON', async () => {
    const port = await serve(reply(200));
    const body = JSON.stringify({ type: 'booking.created', data: { name: 'Zoë Ødegård', total: 1250 } });
    const headers = {
      'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    };
    const response = await postWebhook(
      makeRequest({ url: `http://127.0.0.1:${port}/in?tenant=demo`, headers, body }),
    );
    expect(response.outcome).toBe('success');
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit).toMatchObject({ method: 'POST', path: '/in?tenant=demo', body });
    expect(hit?.headers).toMatchObject({
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      host: `127.0.0.1:${port}`,
    });
  });

  it('keeps its own content type and Host over the caller headers', async () => {
    const port = await serve(reply(200));
    await postWebhook(
      makeRequest({
        url: `http://127.0.0.1:${port}/`,
        headers: { 'Content-Type': 'text/plain', Host: 'internal.example.test' },
      }),
    );
    expect(hits[0]?.headers['content-type']).toBe('application/json');
    expect(hits[0]?.headers.host).toBe(`127.0.0.1:${port}`);
  });
});
