import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeedRequest, type FeedResponse, fetchFeed } from '#lib/channels/feed-fetch.ts';
import { allowLoopbackOnly, resolvesTo } from '#test/support/loopback-only.ts';

// Network rule for this file: traffic only ever goes to 127.0.0.1. Other addresses are handed to the fetcher
// through an injected lookup and must be refused before any connection; test/support/loopback-only.ts is
// the net under that.

allowLoopbackOnly();

// A self-signed certificate for a.test (P-256, valid until 2126), only for the https server below: the
// https-to-http downgrade needs a real https answer to redirect from. Its key protects nothing.
const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgDxudx27/DRhtFrlL
Ney4aFKzd50qkQrGe3TPO3sxW++hRANCAAQxtsrbyjcnst0jRl03MrB/PUt46ljF
N3tpjqerWBpaMp9bbt5s/He1pCXVUat0DAKgY7zcnRxPLCyGRZPBXGvr
-----END PRIVATE KEY-----
`;
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBjDCCATKgAwIBAgIUVwwMj8Z/j0aSBJgv6YL6Spv7+GQwCgYIKoZIzj0EAwIw
ETEPMA0GA1UEAwwGYS50ZXN0MCAXDTI2MTEyNjAxMjY1OFoYDzIxMjYxMTAyMDEy
NjU4WjARMQ8wDQYDVQQDDAZhLnRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AAQxtsrbyjcnst0jRl03MrB/PUt46ljFN3tpjqerWBpaMp9bbt5s/He1pCXVUat0
DAKgY7zcnRxPLCyGRZPBXGvro2YwZDAdBgNVHQ4EFgQUrGjlIaAVX4Cawo//+I9H
uNyjm/kwHwYDVR0jBBgwFoAUrGjlIaAVX4Cawo//+I9HuNyjm/kwDwYDVR0TAQH/
BAUwAwEB/zARBgNVHREECjAIggZhLnRlc3QwCgYIKoZIzj0EAwIDSAAwRQIgVZ0a
mbgOkCnsNoI2DcAq4jeYl//fxdjZw061neKP/JcCIQDMpt0BaVOT5rP2/tKmuate
kdaGGh2ckAdKMAqHM7+kBg==
-----END CERTIFICATE-----
`;

const CALENDAR = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Channel//Feed//EN\r\nEND:VCALENDAR\r\n';

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
}

interface Receiver {
  port: number;
  hits: Hit[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: () => number;
}

type Answer = (response: ServerResponse, hit: Hit) => void;

const servers: Server[] = [];

/** Starts a server on 127.0.0.1 (a fresh port) that records each request and answers with `answer`. */
const serve = async (answer: Answer, tls = false): Promise<Receiver> => {
  const hits: Hit[] = [];
  let connections = 0;
  const onRequest = (request: { url?: string; headers: IncomingHttpHeaders }, response: ServerResponse) => {
    const hit = { path: request.url ?? '', headers: request.headers };
    hits.push(hit);
    answer(response, hit);
  };
  const server = tls ? createTlsServer({ key: TLS_KEY, cert: TLS_CERT }, onRequest) : createServer(onRequest);
  server.on(tls ? 'secureConnection' : 'connection', () => {
    connections += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits, connections: () => connections };
};

const reply =
  (status: number, body: string | Buffer = '', headers: Record<string, string> = {}) =>
  (response: ServerResponse): void => {
    response.writeHead(status, headers).end(body);
  };

/** Answers with the calendar, and 304 when the request's validators match. */
const calendarWithValidators: Answer = (response, hit) => {
  const validators = { etag: '"v7"', 'last-modified': 'Tue, 03 Nov 2026 10:00:00 GMT' };
  if (hit.headers['if-none-match'] === '"v7"') response.writeHead(304, validators).end();
  else response.writeHead(200, { 'content-type': 'text/calendar', ...validators }).end(CALENDAR);
};

const feed = (overrides: Partial<FeedRequest> & Pick<FeedRequest, 'url'>): Promise<FeedResponse> =>
  fetchFeed({ policy: 'local', ...overrides });

afterEach(async () => {
  const open = servers.splice(0);
  await Promise.all(
    open.map((server) => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
});

describe('fetchFeed reads a feed', () => {
  it('returns the body with its ETag and Last-Modified, asking for a calendar by name', async () => {
    const receiver = await serve(calendarWithValidators);
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/ical/42.ics?token=secret` });
    expect(response).toMatchObject({
      outcome: 'fetched',
      status: 200,
      body: CALENDAR,
      etag: '"v7"',
      lastModified: 'Tue, 03 Nov 2026 10:00:00 GMT',
    });
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    const [hit] = receiver.hits;
    expect(hit?.path).toBe('/ical/42.ics?token=secret');
    expect(hit?.headers).toMatchObject({
      accept: 'text/calendar, */*;q=0.5',
      'accept-encoding': 'gzip',
      'user-agent': 'booking-service-channel-sync/1',
      host: `127.0.0.1:${receiver.port}`,
    });
    expect(hit?.headers['if-none-match']).toBeUndefined();
    expect(hit?.headers['if-modified-since']).toBeUndefined();
  });

  it('sends the validators of the last fetch and reports a 304 as unchanged', async () => {
    const receiver = await serve(calendarWithValidators);
    const response = await feed({
      url: `http://127.0.0.1:${receiver.port}/feed.ics`,
      etag: '"v7"',
      lastModified: 'Tue, 03 Nov 2026 10:00:00 GMT',
    });
    expect(response).toEqual({ outcome: 'unchanged', status: 304, durationMs: expect.any(Number) });
    expect(receiver.hits[0]?.headers).toMatchObject({
      'if-none-match': '"v7"',
      'if-modified-since': 'Tue, 03 Nov 2026 10:00:00 GMT',
    });
  });

  it('counts a 304 to a request without validators as a failure: there is nothing to keep', async () => {
    const receiver = await serve(reply(304));
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics` });
    expect(response).toMatchObject({ outcome: 'failed', status: 304, error: 'HTTP 304' });
  });

  it('unzips a gzip body and strips a byte order mark, decoding UTF-8', async () => {
    const text = `${CALENDAR.slice(0, -15)}X-WR-CALNAME:Zoë's Hütte ☀\r\nEND:VCALENDAR\r\n`;
    const zipped = gzipSync(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    const receiver = await serve(reply(200, zipped, { 'content-encoding': 'gzip' }));
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics` });
    expect(response).toMatchObject({ outcome: 'fetched', body: text });
  });

  it('refuses a content encoding it did not ask for', async () => {
    const receiver = await serve(reply(200, 'whatever', { 'content-encoding': 'br' }));
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics` });
    expect(response).toMatchObject({ outcome: 'failed', status: 200, error: 'unsupported content encoding' });
  });

  it.each([500, 503, 404, 204])('counts a %i as a failure', async (status) => {
    const receiver = await serve(reply(status, status === 204 ? '' : 'server trouble'));
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics` });
    expect(response).toEqual({
      outcome: 'failed',
      status,
      error: `HTTP ${status}`,
      durationMs: expect.any(Number),
    });
  });
});

describe('fetchFeed redirects', () => {
  it.each([301, 302, 303, 307, 308])('follows a %i on the same host', async (status) => {
    const receiver = await serve((response, hit) => {
      if (hit.path === '/old.ics?token=secret')
        reply(status, '', { location: '/new.ics?token=secret' })(response);
      else calendarWithValidators(response, hit);
    });
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/old.ics?token=secret` });
    expect(response).toMatchObject({ outcome: 'fetched', status: 200, body: CALENDAR, etag: '"v7"' });
    expect(receiver.hits.map((hit) => hit.path)).toEqual(['/old.ics?token=secret', '/new.ics?token=secret']);
  });

  it('sends the validators again after a redirect', async () => {
    const receiver = await serve((response, hit) => {
      if (hit.path === '/old.ics') reply(301, '', { location: '/new.ics' })(response);
      else calendarWithValidators(response, hit);
    });
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/old.ics`, etag: '"v7"' });
    expect(response).toMatchObject({ outcome: 'unchanged', status: 304 });
  });

  it('follows three redirects and refuses a fourth', async () => {
    const chain = (hops: number): Answer => {
      return (response, hit) => {
        const hop = Number(hit.path.slice(1));
        if (hop < hops) reply(302, '', { location: `/${hop + 1}` })(response);
        else reply(200, CALENDAR)(response);
      };
    };
    const three = await serve(chain(3));
    expect(await feed({ url: `http://127.0.0.1:${three.port}/0` })).toMatchObject({ outcome: 'fetched' });
    expect(three.hits).toHaveLength(4);

    const four = await serve(chain(4));
    const response = await feed({ url: `http://127.0.0.1:${four.port}/0` });
    expect(response).toMatchObject({ outcome: 'failed', status: 302, error: 'too many redirects' });
    expect(four.hits).toHaveLength(4);
  });

  it('refuses a redirect to another host, without connecting to it', async () => {
    const { lookup, asked } = resolvesTo('127.0.0.1');
    const other = await serve(reply(200, CALENDAR));
    const first = await serve(
      reply(302, '', { location: `http://b.test:${other.port}/feed.ics?token=secret` }),
    );
    const response = await feed({ url: `http://a.test:${first.port}/feed.ics?token=secret`, lookup });
    expect(response).toMatchObject({ outcome: 'failed', status: 302, error: 'redirect to another host' });
    expect(asked).toEqual(['a.test']);
    expect(other.connections()).toBe(0);
    expect(JSON.stringify(response)).not.toContain('secret');
  });

  it('refuses a redirect to another port of the same hostname', async () => {
    const other = await serve(reply(200, CALENDAR));
    const first = await serve(reply(307, '', { location: `http://127.0.0.1:${other.port}/feed.ics` }));
    const response = await feed({ url: `http://127.0.0.1:${first.port}/feed.ics` });
    expect(response).toMatchObject({ outcome: 'failed', error: 'redirect to another host' });
    expect(other.connections()).toBe(0);
  });

  it('refuses a redirect from https down to http', async () => {
    const { lookup } = resolvesTo('127.0.0.1');
    const plain = await serve(reply(200, CALENDAR));
    const secure = await serve((response, hit) => {
      if (hit.path === '/feed.ics')
        reply(301, '', { location: `http://a.test:${secure.port}/plain.ics` })(response);
      else reply(200, CALENDAR)(response);
    }, true);
    const checked = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    // The certificate is self-signed; the fetcher takes no CA of its own, so trust is switched off for this call.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const response = await feed({ url: `https://a.test:${secure.port}/feed.ics`, lookup });
      expect(response).toMatchObject({
        outcome: 'failed',
        status: 301,
        error: 'redirect from https to http',
      });
    } finally {
      if (checked === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = checked;
    }
    expect(secure.hits.map((hit) => [hit.path, hit.headers.host])).toEqual([
      ['/feed.ics', `a.test:${secure.port}`],
    ]);
    expect(plain.connections()).toBe(0);
  });

  it('checks the addresses of every hop again', async () => {
    const receiver = await serve(reply(302, '', { location: '/next.ics' }));
    const answers = ['127.0.0.1', '10.0.0.5'];
    // A rebinding resolver: loopback for the first hop, a private address for the second.
    const lookup: LookupFunction = (_hostname, _options, callback) =>
      callback(null, [{ address: answers.shift() ?? '10.0.0.5', family: 4 }]);
    const response = await feed({ url: `http://feeds.test:${receiver.port}/feed.ics`, lookup });
    expect(response).toMatchObject({ outcome: 'failed', error: 'host resolves to a private address' });
    expect(receiver.hits).toHaveLength(1);
  });
});

describe('fetchFeed policies', () => {
  it('refuses plain http when deployed, without connecting', async () => {
    const receiver = await serve(reply(200, CALENDAR));
    const response = await feed({
      url: `http://127.0.0.1:${receiver.port}/feed.ics?token=secret`,
      policy: 'deployed',
    });
    expect(response).toMatchObject({
      outcome: 'failed',
      error: 'scheme http: is not allowed by the deployed policy',
    });
    expect(response).not.toHaveProperty('status');
    expect(receiver.connections()).toBe(0);
    expect(JSON.stringify(response)).not.toContain('secret');
  });

  it.each([
    ['10.0.0.5', 'a private address'],
    ['127.0.0.1', 'a loopback address'],
    ['169.254.169.254', 'a cloud metadata address'],
  ])('refuses a hostname resolving to %s when deployed, before connecting', async (address, reason) => {
    const receiver = await serve(reply(200, CALENDAR));
    const { lookup, asked } = resolvesTo(address);
    const response = await feed({
      url: `https://feeds.test:${receiver.port}/feed.ics`,
      policy: 'deployed',
      lookup,
    });
    expect(response).toMatchObject({ outcome: 'failed', error: `host resolves to ${reason}` });
    expect(asked).toEqual(['feeds.test']);
    expect(receiver.connections()).toBe(0);
  });

  it.each([
    ['a public and a private address', ['93.184.216.34', '10.0.0.5']],
    ['a private and a public address', ['10.0.0.5', '93.184.216.34']],
  ])('refuses a hostname resolving to %s under either policy', async (_label, addresses) => {
    const { lookup } = resolvesTo(...addresses);
    for (const policy of ['deployed', 'local'] as const) {
      const response = await feed({ url: 'https://feeds.test/feed.ics', policy, lookup, timeoutMs: 500 });
      expect(response).toMatchObject({ outcome: 'failed', error: 'host resolves to a private address' });
    }
  });

  it('refuses a URL it cannot parse', async () => {
    expect(await feed({ url: 'not a url' })).toMatchObject({ outcome: 'failed', error: 'invalid URL' });
  });
});

describe('fetchFeed limits', () => {
  it('refuses a body whose Content-Length is over the cap without waiting for it', async () => {
    const receiver = await serve((response) => {
      response.writeHead(200, { 'content-length': String(3 * 1024 * 1024) });
      response.write('BEGIN:VCALENDAR\r\n');
    });
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics` });
    expect(response).toMatchObject({ outcome: 'failed', status: 200, error: 'over 2 MB' });
    expect(response.durationMs).toBeLessThan(1_000);
  });

  it('stops reading a body without Content-Length once it passes the cap', async () => {
    let sent = 0;
    const receiver = await serve((response) => {
      response.writeHead(200, { 'content-type': 'text/calendar' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // A body that never ends: the fetcher must stop it, not the budget.
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk)) sent += chunk.length;
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics`, maxBytes: 512 * 1024 });
    expect(response).toMatchObject({ outcome: 'failed', status: 200, error: 'over 512 KB' });
    expect(response.durationMs).toBeLessThan(2_000);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });

  it('accepts a body of exactly the cap', async () => {
    const receiver = await serve(reply(200, 'x'.repeat(1024)));
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics`, maxBytes: 1024 });
    expect(response).toMatchObject({ outcome: 'fetched', body: 'x'.repeat(1024) });
  });

  it('stops a gzip bomb at the cap on its unzipped size', async () => {
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const receiver = await serve(reply(200, bomb, { 'content-encoding': 'gzip' }));
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics` });
    expect(response).toMatchObject({ outcome: 'failed', status: 200, error: 'over 2 MB' });
  });

  it('reports a body that is not gzip by its code', async () => {
    const receiver = await serve(reply(200, 'not zipped at all', { 'content-encoding': 'gzip' }));
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics` });
    expect(response).toMatchObject({ outcome: 'failed', status: 200, error: 'Z_DATA_ERROR' });
  });

  it('gives up on a server that never answers within the budget', async () => {
    const receiver = await serve(() => {});
    const response = await feed({
      url: `http://127.0.0.1:${receiver.port}/feed.ics?token=secret`,
      timeoutMs: 300,
    });
    expect(response).toMatchObject({ outcome: 'failed', error: 'timeout' });
    expect(response.durationMs).toBeGreaterThanOrEqual(250);
    expect(response.durationMs).toBeLessThan(1_000);
    expect(JSON.stringify(response)).not.toContain('secret');
  });

  it('counts every redirect hop against one budget', async () => {
    const receiver = await serve((response, hit) => {
      const hop = Number(hit.path.slice(1));
      setTimeout(() => reply(302, '', { location: `/${hop + 1}` })(response), 120);
    });
    const response = await feed({ url: `http://127.0.0.1:${receiver.port}/0`, timeoutMs: 300 });
    expect(response).toMatchObject({ outcome: 'failed', error: 'timeout' });
    expect(response.durationMs).toBeLessThan(1_000);
    // Each hop answers well within the budget; only their sum runs over it.
    expect(receiver.hits.length).toBeGreaterThanOrEqual(2);
  });

  it('counts a lookup that never answers against the budget', async () => {
    const lookup: LookupFunction = () => {};
    const response = await feed({ url: 'http://feeds.test/feed.ics', lookup, timeoutMs: 200 });
    expect(response).toMatchObject({ outcome: 'failed', error: 'timeout' });
  });
});

describe('fetchFeed errors', () => {
  it('reports a refused connection and a failed lookup by their codes', async () => {
    const receiver = await serve(reply(200));
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const refused = await feed({ url: `http://127.0.0.1:${receiver.port}/feed.ics?token=secret` });
    expect(refused).toEqual({ outcome: 'failed', error: 'ECONNREFUSED', durationMs: expect.any(Number) });

    const lookup: LookupFunction = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const missing = await feed({ url: 'http://feeds.test/feed.ics?token=secret', lookup });
    expect(missing).toMatchObject({ outcome: 'failed', error: 'ENOTFOUND' });
  });

  it('keeps a stored validator out of the outcome when it is not a valid header value', async () => {
    const receiver = await serve(reply(200, CALENDAR));
    const response = await feed({
      url: `http://127.0.0.1:${receiver.port}/feed.ics`,
      etag: '"v7"\r\nx-token: secret',
    });
    expect(response).toMatchObject({ outcome: 'failed', error: 'ERR_INVALID_CHAR' });
    expect(receiver.hits).toEqual([]);
  });

  it('never quotes the URL token, whatever the failure', async () => {
    const receiver = await serve((response, hit) => {
      if (hit.path.startsWith('/broken')) reply(500, 'token=secret was wrong')(response);
      else reply(302, '', { location: `http://b.test:${receiver.port}/?token=secret` })(response);
    });
    const { lookup } = resolvesTo('127.0.0.1');
    const outcomes = await Promise.all([
      feed({ url: `http://a.test:${receiver.port}/broken?token=secret`, lookup }),
      feed({ url: `http://a.test:${receiver.port}/moved?token=secret`, lookup }),
      feed({ url: `ftp://a.test/feed.ics?token=secret`, lookup }),
      feed({ url: `https://user:secret@a.test/feed.ics?token=secret`, lookup }),
      feed({ url: `https://[::1/feed.ics?token=secret` }),
    ]);
    expect(outcomes.map((outcome) => outcome.outcome === 'failed' && outcome.error)).toEqual([
      'HTTP 500',
      'redirect to another host',
      'scheme ftp: is not allowed by the local policy',
      'the URL carries credentials',
      'invalid URL',
    ]);
    expect(JSON.stringify(outcomes)).not.toContain('secret');
  });
});
