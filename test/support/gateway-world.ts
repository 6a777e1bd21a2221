import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createGateway } from '#infra/local/gateway.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { staffBasic } from './events.ts';
import { makeTenantJson } from './tenant.ts';
import { loadTenant, type TenantTable } from './tenant-table.ts';

// The world of the local gateway's tests (test/e2e/gateway.test.ts): the gateway in this process, over a
// table of its own, for a proxy of many customers, and a client that streams large bodies to it.

let server: Server;
export let base: string;
export let authorization: string;
export let db: Db;

/** Starts the gateway on a free port of 127.0.0.1 before the file's tests, and closes it after them. */
export function setUpGatewayWorld(): void {
  beforeAll(async () => {
    let handlers: TenantTable['handlers'];
    ({ db, handlers } = await loadTenant(
      'gateway',
      makeTenantJson({
        settings: { booking_code_prefix: 'TEST', cors_origins: ['https://widget.example.com'] },
      }),
      // The test client is the proxy of many customers, each named by X-Forwarded-For.
      { deps: { trustedProxies: ['127.0.0.1'] } },
    ));
    authorization = await staffBasic(db, { label: 'e2e' });
    server = createGateway({
      handlers,
      cors: {
        origins: ['https://widget.example.com'],
        headers: ['authorization'],
        methods: ['GET', 'POST'],
        maxAgeSeconds: 60,
      },
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/3.0`;
  });

  afterAll(async () => {
    await new Promise((done) => server.close(done));
  });
}

/** What a client streaming a large body saw, and what the server had read of it. */
interface Streamed {
  status: number;
  body: string;
  /** Bytes the client had handed to its socket when the answer arrived. */
  clientWrote: number;
  /** Bytes the server's socket had read when the answer arrived, and when it closed. */
  serverRead: number;
  serverReadAtClose: number;
  /** Whether the server closed the connection (rather than keep it to read the rest). */
  closed: boolean;
}

export const MiB = 1024 * 1024;

/**
 * Streams a body of `total` bytes, generated as it is sent, and stops sending when the answer arrives.
 * With `declare`, the request says its length up front; without, it is sent chunked.
 */
export function streamBody(options: {
  total: number;
  declare: boolean;
  gateway?: Server;
  url?: string;
  method?: string;
  /** Wait for the server to close the connection (false for a body read whole, kept open). */
  awaitClose?: boolean;
}): Promise<Streamed> {
  const gateway = options.gateway ?? server;
  const agent = new Agent({ keepAlive: true });
  // Each server socket by its peer's port, read while connected (a closed socket no longer says).
  const sockets = new Map<number, Socket>();
  const track = (socket: Socket) => sockets.set(socket.remotePort ?? 0, socket);
  gateway.on('connection', track);
  return new Promise<Streamed>((resolve, reject) => {
    let wrote = 0;
    let answered = false;
    let port = 0;
    const request = httpRequest(options.url ?? `${base}/booking/session`, {
      method: options.method ?? 'POST',
      // A client that keeps connections, as browsers and SDKs do: Node itself closes one whose client
      // asked for `Connection: close`, and would hide a gateway that drains.
      agent,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(options.declare ? { 'content-length': String(options.total) } : {}),
      },
    });
    const chunk = Buffer.from(`slip=${'x'.repeat(64 * 1024 - 5)}`);
    request.on('socket', (client) => client.on('connect', () => (port = client.localPort ?? 0)));
    const pump = () => {
      while (!answered && wrote < options.total) {
        const part = chunk.subarray(0, Math.min(chunk.length, options.total - wrote));
        wrote += part.length;
        if (!request.write(part)) {
          request.once('drain', pump);
          return;
        }
      }
      if (!answered) request.end();
    };
    request.on('response', (response) => {
      answered = true;
      const socket = sockets.get(port);
      if (!socket) {
        reject(new Error('no server socket for the request'));
        return;
      }
      const serverRead = socket.bytesRead;
      const clientWrote = wrote;
      const chunks: Buffer[] = [];
      response.on('data', (data: Buffer) => chunks.push(data));
      response.on('end', () => {
        const done = () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            clientWrote,
            serverRead,
            serverReadAtClose: socket.bytesRead,
            closed: socket.destroyed,
          });
        if (socket.destroyed || options.awaitClose === false) done();
        else {
          // A connection kept open would wait for the rest of the body forever; give up on it.
          const giveUp = setTimeout(done, 5000);
          socket.once('close', () => {
            clearTimeout(giveUp);
            done();
          });
        }
      });
    });
    // Writing into a connection the server closed fails; that is the point once the answer is in.
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    pump();
  }).finally(() => {
    gateway.off('connection', track);
    agent.destroy();
  });
}
