import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { createGateway, type GatewayHandler } from '#infra/local/gateway.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { REQUEST_LIMITS } from '#lib/http/parse.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { testDeps } from '#test/support/deps.ts';
import { readJson } from '#test/support/events.ts';
import { authorization, base, db, MiB, setUpGatewayWorld, streamBody } from '#test/support/gateway-world.ts';
import { headerProblems, rawHeader, rawRequest } from '#test/support/raw-http.ts';

// The local gateway over HTTP, as a client speaks to it. The world: test/support/gateway-world.ts.

setUpGatewayWorld();

describe('the local gateway over HTTP', () => {
  it('serves ping with the caller address and a request id header', async () => {
    const response = await fetch(`${base}/ping`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const json = await readJson(response);
    expect(json.pong.remote_addr).toBe('127.0.0.1');
  });

  it('accepts a trailing slash before the query', async () => {
    const response = await fetch(`${base}/company/?_=1`);
    expect(response.status).toBe(200);
  });

  it('answers an unknown path, a wrong method, a malformed and an oversized body, and keeps serving', async () => {
    const unknown = await fetch(`${base}/nowhere`);
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).request.error.id).toBe('not_found');

    const wrong = await fetch(`${base}/company`, { method: 'PUT' });
    expect(wrong.status).toBe(405);

    const broken = await fetch(`${base}/booking/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"oops"',
    });
    expect(broken.status).toBe(400);
    expect((await readJson(broken)).request.error.id).toBe('validation_error');

    const big = await fetch(`${base}/booking/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `slip=${'x'.repeat(70_000)}`,
    });
    expect(big.status).toBe(413);
    expect((await readJson(big)).request.error.id).toBe('payload_too_large');

    expect((await fetch(`${base}/ping`)).status).toBe(200);
  });

  it('parses a form body sent base64-encoded through the event, as API Gateway does', async () => {
    const response = await fetch(`${base}/booking/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'slip[]=abc',
    });
    expect(response.status).toBe(400);
    expect((await readJson(response)).request.error).toMatchObject({
      id: 'invalid_slip',
      data: { reason: 'truncated', slip: 0 },
    });
  });

  it('sells exactly the free units to many concurrent clients over HTTP, and the rest get 409', async () => {
    const day = addDays(todayIn('America/Toronto', Date.now()), 40);
    const rated = await readJson(await fetch(`${base}/item/1?date=${day}&param[qty]=1`));
    const slip = rated.item.rate.slip;
    expect(rated.item.rate.available).toBe(5);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        fetch(`${base}/booking/session`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-forwarded-for': `198.18.0.${index + 1}`,
          },
          body: `slip[]=${slip}`,
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(35);
    const after = await readJson(await fetch(`${base}/item/1?date=${day}`));
    expect(after.item.rate).toMatchObject({ status: 'SOLDOUT', available: 0 });
    const won = await Promise.all(responses.filter((response) => response.status === 200).map(readJson));
    for (const body of won) {
      const end = await fetch(`${base}/booking/session/end`, {
        headers: { cookie: `session_id=${body.booking.session.id}` },
      });
      expect(end.status).toBe(200);
    }
    expect((await readJson(await fetch(`${base}/item/1?date=${day}`))).item.rate.available).toBe(5);
    expect((await runReconcile(db, { fix: false, now: Date.now() })).discrepancies).toEqual([]);
  });

  it('reads credentials from headers in any case', async () => {
    const response = await fetch(`${base}/account`, { headers: { AUTHORIZATION: authorization } });
    expect(response.status).toBe(200);
    const refused = await fetch(`${base}/account`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Basic');
  });

  it('answers CORS for the tenant origins only', async () => {
    const allowed = await fetch(`${base}/ping`, { headers: { origin: 'https://widget.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://widget.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await fetch(`${base}/ping`, { headers: { origin: 'https://evil.example.com' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${base}/booking/session`, {
      method: 'OPTIONS',
      headers: { origin: 'https://widget.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it("answers a function's result whose header cannot be written, without that header, never a 500", async () => {
    // A function that booked and then named something raw in a header: the booking stands, so must its 200.
    const booked: GatewayHandler = async () => ({
      statusCode: 200,
      headers: {
        'content-type': 'application/json',
        'x-ignored-parameters': 'form[имя]',
        location: '/booking/1\r\nSet-Cookie: planted=1',
        'x-kept': 'yes',
      },
      cookies: ['session_id=abc; Path=/', 'bad=\u0000'],
      body: '{"booking":{"id":"TEST-1"}}',
    });
    const stub = createGateway({
      handlers: {
        items: booked,
        session: booked,
        bookings: booked,
        admin: booked,
        meta: booked,
        channels: booked,
        payments: booked,
      },
    });
    await new Promise<void>((done) => stub.listen(0, '127.0.0.1', done));
    try {
      const { port } = stub.address() as AddressInfo;
      const response = await rawRequest(`http://127.0.0.1:${port}/api/3.0/booking/create`, {
        method: 'POST',
      });
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"booking":{"id":"TEST-1"}}');
      expect(headerProblems(response.rawHeaders)).toEqual([]);
      expect(rawHeader(response.rawHeaders, 'x-kept')).toBe('yes');
      expect(rawHeader(response.rawHeaders, 'x-ignored-parameters')).toBeUndefined();
      expect(rawHeader(response.rawHeaders, 'location')).toBeUndefined();
      expect(rawHeader(response.rawHeaders, 'set-cookie')).toBe('session_id=abc; Path=/');
    } finally {
      await new Promise((done) => stub.close(done));
    }
  });

  describe('a body over the limit', () => {
    // Past the limit plus what Node reads ahead of a paused socket (a few 64 KiB chunks).
    const serverBound = REQUEST_LIMITS.bodyBytes + 512 * 1024;
    // The answer arrives while the client is still sending: it has handed over what the kernel buffers take.
    const clientBound = 32 * MiB;

    it.each([
      ['a declared Content-Length', true],
      ['chunked transfer', false],
    ])(
      'is answered 413 with %s after reading at most the limit, and the connection closes',
      async (_, declare) => {
        const streamed = await streamBody({ total: 200 * MiB, declare });
        expect(streamed.status).toBe(413);
        expect(streamed.clientWrote).toBeLessThan(clientBound);
        expect(streamed.serverRead).toBeLessThanOrEqual(serverBound);
        expect(streamed.serverReadAtClose).toBeLessThanOrEqual(serverBound);
        expect(streamed.closed).toBe(true);
        const envelope = JSON.parse(streamed.body);
        expect(envelope.request.error).toMatchObject({
          id: 'payload_too_large',
          data: { limit: REQUEST_LIMITS.bodyBytes },
        });
        expect((await fetch(`${base}/ping`)).status).toBe(200);
      },
      60_000,
    );

    it('sent to a page the gateway serves itself is left unread, and the connection closes', async () => {
      const paged = createGateway({
        handlers: createAllHandlers(testDeps(db)),
        pages: { '/demo': { headers: { 'content-type': 'text/html' }, body: '<p>demo</p>' } },
      });
      await new Promise<void>((done) => paged.listen(0, '127.0.0.1', done));
      try {
        const { port } = paged.address() as AddressInfo;
        const streamed = await streamBody({
          total: 200 * MiB,
          declare: true,
          gateway: paged,
          url: `http://127.0.0.1:${port}/demo`,
          method: 'GET',
        });
        expect(streamed.status).toBe(200);
        expect(streamed.clientWrote).toBeLessThan(clientBound);
        expect(streamed.serverReadAtClose).toBeLessThanOrEqual(serverBound);
        expect(streamed.closed).toBe(true);
      } finally {
        await new Promise((done) => paged.close(done));
      }
    });

    it('one byte over, without a declared length, is 413 too, and a body at the limit is read whole', async () => {
      const over = await streamBody({ total: REQUEST_LIMITS.bodyBytes + 1, declare: false });
      expect(over.status).toBe(413);
      const at = await streamBody({ total: REQUEST_LIMITS.bodyBytes, declare: false, awaitClose: false });
      // Read whole and parsed: the SLIP is refused for what it is, not for its size.
      expect(at.status).toBe(400);
      expect(JSON.parse(at.body).request.error.id).toBe('validation_error');
    });
  });

  describe('nosniff on the answers it writes itself', () => {
    /** A gateway of its own, on a free port, for the length of `use`. */
    const withGateway = async (
      options: Parameters<typeof createGateway>[0],
      use: (origin: string) => Promise<void>,
    ) => {
      const own = createGateway(options);
      await new Promise<void>((done) => own.listen(0, '127.0.0.1', done));
      try {
        await use(`http://127.0.0.1:${(own.address() as AddressInfo).port}`);
      } finally {
        await new Promise((done) => own.close(done));
      }
    };
    /** Sends bytes Node's HTTP parser refuses, and gives back the raw answer. */
    const sendRaw = (origin: string, bytes: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(new URL(origin).port), '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk) => {
          answer += chunk.toString('latin1');
        });
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
        socket.write(bytes);
      });

    it('sends X-Content-Type-Options: nosniff on 404s, preflights, its pages and its own errors', async () => {
      const answers: [string, Response][] = [
        ['unknown API path', await fetch(`${base}/nowhere`)],
        ['unknown path outside the API', await fetch(`${new URL(base).origin}/nowhere.html`)],
        [
          'preflight from a tenant origin',
          await fetch(`${base}/booking/session`, {
            method: 'OPTIONS',
            headers: { origin: 'https://widget.example.com', 'access-control-request-method': 'POST' },
          }),
        ],
        [
          'preflight from another origin',
          await fetch(`${base}/booking/session`, {
            method: 'OPTIONS',
            headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
          }),
        ],
      ];
      const failing: GatewayHandler = () => Promise.reject(new Error('the integration failed'));
      await withGateway(
        {
          handlers: {
            items: failing,
            session: failing,
            bookings: failing,
            admin: failing,
            meta: failing,
            channels: failing,
            payments: failing,
          },
          pages: { '/demo': { headers: { 'content-type': 'text/html' }, body: '<p>demo</p>' } },
        },
        async (origin) => {
          answers.push(['a page it serves', await fetch(`${origin}/demo`)]);
          answers.push(['a page it serves, HEAD', await fetch(`${origin}/demo`, { method: 'HEAD' })]);
          // Not through fetch: the test's fetch checks answers of the API against its document, and this one
          // is API Gateway's own, not the API's.
          const failed = await rawRequest(`${origin}/api/3.0/ping`, { method: 'GET' });
          expect(failed.status).toBe(500);
          expect(rawHeader(failed.rawHeaders, 'x-content-type-options')).toBe('nosniff');
          const malformed = await sendRaw(
            origin,
            'GET /api/3.0/ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
          );
          expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
          expect({ malformed: /\r\nx-content-type-options: nosniff\r\n/i.test(malformed) }).toEqual({
            malformed: true,
          });
        },
      );
      expect(answers.map(([name, response]) => [name, response.status])).toEqual([
        ['unknown API path', 404],
        ['unknown path outside the API', 404],
        ['preflight from a tenant origin', 204],
        ['preflight from another origin', 204],
        ['a page it serves', 200],
        ['a page it serves, HEAD', 200],
      ]);
      expect(
        answers.map(([name, response]) => [name, response.headers.get('x-content-type-options')]),
      ).toEqual(answers.map(([name]) => [name, 'nosniff']));
    });
  });
});
