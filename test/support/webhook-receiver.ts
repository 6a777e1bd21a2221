import { createServer, type IncomingHttpHeaders } from 'node:http';

// The receiver of the end-to-end webhook tests (test/e2e/webhooks.test.ts), on the loopback.

/** One request the receiver got, with what it answered. */
export interface Arrival {
  id: string;
  type: string;
  code: string;
  headers: Record<string, string>;
  body: string;
  status: number;
  /** 1 for the first request with this webhook-id, 2 for the second... */
  attempt: number;
  at: number;
}

/** A receiver on 127.0.0.1 that records every request and answers what `answer` says (200 by default). */
export function startReceiver() {
  const arrivals: Arrival[] = [];
  const state = { answer: (_arrival: Omit<Arrival, 'status'>): number => 200 };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const headers = flatHeaders(request.headers);
      const id = headers['webhook-id'] ?? '';
      let type = '';
      let code = '';
      try {
        const parsed = JSON.parse(body) as { type?: string; data?: { booking?: { code?: string } } };
        type = parsed.type ?? '';
        code = parsed.data?.booking?.code ?? '';
      } catch {
        // Kept as is: the test fails on it when it verifies the message.
      }
      const attempt = arrivals.filter((arrival) => arrival.id === id).length + 1;
      const seen = { id, type, code, headers, body, attempt, at: Date.now() };
      const status = request.url === '/hook' ? state.answer(seen) : 404;
      arrivals.push({ ...seen, status });
      response.statusCode = status;
      response.end(status < 300 ? 'ok' : 'not now');
    });
  });
  return { server, arrivals, state };
}

const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );
