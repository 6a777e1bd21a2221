import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The soak's webhook receiver (issue 31): records every request as it came and answers as its mode says,
// so the harness can take an endpoint down (503), make it hang past the sender's 10 s delivery timeout,
// and bring it back, and the audit (audit-webhooks.ts) can judge the deliveries afterwards.

/** How the receiver answers: 200, 503, or not at all until the mode changes or it stops. */
export type ReceiverMode = 'ok' | 'unavailable' | 'hang';

/** One request as it arrived, with the Standard Webhooks headers as sent and what it was answered. */
export interface Arrival {
  /** `webhook-id` ('' when absent). */
  id: string;
  /** `webhook-timestamp` as sent (Unix seconds, '' when absent). */
  timestamp: string;
  /** `webhook-signature` as sent (space-separated `v1,` signatures, '' when absent). */
  signature: string;
  body: string;
  /** When the whole request had arrived (milliseconds since the epoch). */
  at: number;
  /** The status answered, or 'hung' while unanswered (and for good if the sender gave up first). */
  answered: number | 'hung';
}

/** A running receiver: its URL, everything it received so far, and its switch. */
export interface SoakReceiver {
  url: string;
  arrivals: Arrival[];
  mode(): ReceiverMode;
  /** Switches the mode; requests left hanging are answered as the new mode says (unless it is 'hang'). */
  setMode(mode: ReceiverMode): void;
  /** Closes the server (once; again does nothing); requests still hanging are cut off unanswered. */
  stop(): Promise<void>;
}

const STATUS: Record<Exclude<ReceiverMode, 'hang'>, number> = { ok: 200, unavailable: 503 };

const header = (request: IncomingMessage, name: string): string => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
};

/** Starts a receiver on 127.0.0.1 (an ephemeral port unless one is given), answering 200 to begin with. */
export async function startSoakReceiver(options: { port?: number } = {}): Promise<SoakReceiver> {
  const arrivals: Arrival[] = [];
  const hanging = new Set<{ arrival: Arrival; response: ServerResponse }>();
  let mode: ReceiverMode = 'ok';

  const answer = (arrival: Arrival, response: ServerResponse, status: number) => {
    // A sender that gave up (its timeout) closed the connection: nothing can be answered any more.
    if (response.destroyed) return;
    arrival.answered = status;
    response.statusCode = status;
    response.setHeader('content-type', 'text/plain');
    response.end(status < 300 ? 'ok' : 'not now');
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrival: Arrival = {
        id: header(request, 'webhook-id'),
        timestamp: header(request, 'webhook-timestamp'),
        signature: header(request, 'webhook-signature'),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        answered: 'hung',
      };
      arrivals.push(arrival);
      if (mode !== 'hang') return answer(arrival, response, STATUS[mode]);
      const entry = { arrival, response };
      hanging.add(entry);
      response.on('close', () => hanging.delete(entry));
    });
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', failed);
      listening();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    mode: () => mode,
    setMode(next) {
      mode = next;
      if (next === 'hang') return;
      for (const entry of [...hanging]) {
        hanging.delete(entry);
        answer(entry.arrival, entry.response, STATUS[next]);
      }
    },
    async stop() {
      if (!server.listening) return;
      for (const entry of hanging) entry.response.destroy();
      hanging.clear();
      const closed = new Promise<void>((done, failed) =>
        server.close((error) => (error ? failed(error) : done())),
      );
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Writes arrivals to a file, one JSON object a line (replacing what the file held). */
export async function writeArrivals(file: string, arrivals: readonly Arrival[]): Promise<void> {
  await writeFile(file, arrivals.map((arrival) => `${JSON.stringify(arrival)}\n`).join(''));
}

const isArrival = (value: unknown): value is Arrival => {
  if (!value || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return (
    ['id', 'timestamp', 'signature', 'body'].every((field) => typeof record[field] === 'string') &&
    typeof record.at === 'number' &&
    (typeof record.answered === 'number' || record.answered === 'hung')
  );
};

/** Reads arrivals written by `writeArrivals`; a line that is not one fails with its line number. */
export async function readArrivals(file: string): Promise<Arrival[]> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  return lines.flatMap((line, index) => {
    if (line.trim() === '') return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new Error(`${file}:${index + 1}: not JSON`, { cause: error });
    }
    if (!isArrival(parsed)) throw new Error(`${file}:${index + 1}: not an arrival`);
    return [parsed];
  });
}
