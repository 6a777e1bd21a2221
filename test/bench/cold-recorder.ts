import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedCall } from './cold-floor-handler.ts';

/** A call the recording proxy passed on, with when it went out and when its answer came back. */
export interface TimedCall extends RecordedCall {
  status: number;
  startedAt: number;
  endedAt: number;
}

/** A recording HTTP proxy in front of DynamoDB: point a client's endpoint at `endpoint`. */
export interface RecordingProxy {
  endpoint: string;
  calls: TimedCall[];
  stop(): Promise<void>;
}

/** The headers of a payment provider's call that the floor sends again: what Stripe reads of a request. */
const PROVIDER_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'stripe-version'];

/**
 * Starts a proxy that passes every request on to `target` (DynamoDB Local) unchanged and records its
 * operation (`X-Amz-Target`), its JSON body and its answer's status: the calls a process made, exactly.
 * With `provider` (a payment provider's API, issue 43), each call is recorded as `HTTP`: its method, path,
 * the headers Stripe reads, and its body as sent.
 */
export async function startRecordingProxy(target: string, provider = false): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const calls: TimedCall[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const startedAt = performance.now();
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            calls.push({
              ...(provider ? providerCall(incoming, body) : dynamoCall(incoming, body)),
              status: answer.statusCode ?? 0,
              startedAt,
              endedAt: performance.now(),
            });
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            outgoing.end(Buffer.concat(parts));
          });
        },
      );
      forward.on('error', (error) => outgoing.destroy(error));
      forward.end(body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    stop: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/** A DynamoDB call as the floor replays it: its operation and its input. */
function dynamoCall(incoming: IncomingMessage, body: Buffer): RecordedCall {
  // A transaction's idempotency token is the SDK's own per call: the replaying client makes its own.
  const { ClientRequestToken: _token, ...input } = JSON.parse(body.toString('utf8') || '{}') as Record<
    string,
    unknown
  >;
  return { operation: String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '', input };
}

/** A payment provider's call as the floor replays it (test/bench/cold-floor-provider-handler.ts). */
function providerCall(incoming: IncomingMessage, body: Buffer): RecordedCall {
  const headers = Object.fromEntries(
    PROVIDER_HEADERS.flatMap((name) =>
      incoming.headers[name] === undefined ? [] : [[name, String(incoming.headers[name])]],
    ),
  );
  return {
    operation: 'HTTP',
    input: { method: incoming.method, path: incoming.url, headers, body: body.toString('utf8') },
  };
}

/**
 * The calls in batches as they were made: a call that went out before every answer of the batch so far
 * came back was made at once with them (`Promise.all`), any other starts a batch of its own.
 */
export function batchCalls(calls: TimedCall[]): RecordedCall[][] {
  const batches: { calls: RecordedCall[]; firstEnd: number }[] = [];
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    const last = batches.at(-1);
    const plain = { operation: call.operation, input: call.input };
    if (last && call.startedAt < last.firstEnd) {
      last.calls.push(plain);
      last.firstEnd = Math.min(last.firstEnd, call.endedAt);
    } else batches.push({ calls: [plain], firstEnd: call.endedAt });
  }
  return batches.map((batch) => batch.calls);
}
