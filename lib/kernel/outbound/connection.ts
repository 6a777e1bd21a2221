import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type OutboundPolicy, refusedAddress, refusedUrl } from './address-guard.ts';

// One outbound connection to a URL someone else chose (a webhook endpoint, a channel's calendar feed): the
// URL and every address its host resolves to are checked under the delivery policy, the connection goes to
// the checked address and no other, and errors are reported by code only, never by a message that may
// quote the URL or a header value.

/** The error code of a network error: its message may quote the URL, and a header value must never reach the log. */
export const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'network error';
};

/** One budget for a whole exchange, DNS, connecting and reading the body included. */
export interface Deadline {
  /** Aborts once the budget is spent. */
  signal: AbortSignal;
  /** Settles with 'timeout' once the budget is spent, for racing a step that takes no signal. */
  timedOut: Promise<'timeout'>;
  /** Stops the timer; call it when the exchange is over. */
  clear(): void;
}

export function startDeadline(timeoutMs: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const timedOut = new Promise<'timeout'>((resolve) =>
    controller.signal.addEventListener('abort', () => resolve('timeout'), { once: true }),
  );
  return { signal: controller.signal, timedOut, clear: () => clearTimeout(timer) };
}

const defaultLookup: LookupFunction = (hostname, options, callback) => dnsLookup(hostname, options, callback);

const resolveHost = (hostname: string, lookup: LookupFunction): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) => {
    lookup(hostname, { all: true }, (error, address, family) => {
      if (error) reject(error);
      else if (Array.isArray(address)) resolve(address);
      else resolve([{ address, family: family ?? isIP(address) }]);
    });
  });

/** A lookup that always answers with the address that was checked, so a second DNS answer cannot swap it. */
const pinnedLookup =
  (address: string): LookupFunction =>
  (_hostname, options, callback) => {
    const family = isIP(address);
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };

/** A checked URL and how to connect to it: to the address that was checked, on a socket of its own. */
export interface OutboundTarget {
  url: URL;
  secure: boolean;
  /** Everything but the method and the headers. */
  options: RequestOptions;
}

/**
 * Where a URL may be reached under the policy, or why not: `refused` when the URL or an address is not
 * allowed, otherwise a failure (a lookup error's code or 'timeout').
 */
export type Resolution =
  | { target: OutboundTarget }
  | { refused: true; error: string }
  | { refused: false; error: string };

/** Checks the URL, resolves its host (every answer) and checks every address, within the deadline. */
export async function resolveTarget(
  rawUrl: string,
  policy: OutboundPolicy,
  lookup: LookupFunction | undefined,
  deadline: Deadline,
): Promise<Resolution> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { refused: true, error: 'invalid URL' };
  }
  const urlRefusal = refusedUrl(url, policy);
  if (urlRefusal) return { refused: true, error: urlRefusal };

  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: LookupAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      const resolved = await Promise.race([resolveHost(host, lookup ?? defaultLookup), deadline.timedOut]);
      if (resolved === 'timeout') return { refused: false, error: 'timeout' };
      addresses = resolved;
    } catch (error) {
      return { refused: false, error: codeOf(error) };
    }
  }
  const [first] = addresses;
  if (!first) return { refused: false, error: 'ENOTFOUND' };
  // Every answer is checked, not just the one used: a mixed answer is how rebinding attacks start.
  for (const { address } of addresses) {
    const reason = refusedAddress(address, policy);
    if (reason) return { refused: true, error: `host resolves to ${reason}` };
  }

  const secure = url.protocol === 'https:';
  const options: RequestOptions = {
    hostname: host,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: `${url.pathname}${url.search}`,
    // A pooled socket could lead to an address checked for an earlier request, not this one.
    agent: false,
    lookup: pinnedLookup(first.address),
    ...(secure && isIP(host) === 0 ? { servername: host } : {}),
  };
  return { target: { url, secure, options } };
}

/** Stops reading a response body: cleanly when `error` is absent, as a failure when it is given. */
export interface Stop {
  error?: string;
}

/** Takes in a response body as it arrives; each step may stop the reading, which closes the connection. */
export interface BodyReader {
  /** Sees the status and headers before any of the body; a stop here reads none of it. */
  head?(response: IncomingMessage): Stop | undefined;
  chunk(data: Buffer): Stop | undefined;
  /** The whole body has arrived; a string fails the exchange. */
  end(): string | undefined;
}

/** What came back: the body stays with the reader, which holds what it read even after a failure. */
export interface Exchanged {
  status?: number;
  headers?: IncomingHttpHeaders;
  error?: string;
}

/** Sends one request to a checked target and reads the answer, settling once: on the body, an error or the deadline. */
export const exchange = (
  target: OutboundTarget,
  request: { method: string; headers: Record<string, string>; body?: string },
  reader: BodyReader,
  signal: AbortSignal,
): Promise<Exchanged> =>
  new Promise((resolve) => {
    let response: IncomingMessage | undefined;
    let settled = false;
    const settle = (error?: string): void => {
      if (settled) return;
      settled = true;
      resolve({ status: response?.statusCode, headers: response?.headers, error });
    };
    if (signal.aborted) {
      settle('timeout');
      return;
    }

    const onResponse = (incoming: IncomingMessage): void => {
      response = incoming;
      const stop = (verdict: Stop): void => {
        settle(verdict.error);
        // The rest of the body is of no use, and a server could send it forever.
        incoming.destroy();
      };
      const early = reader.head?.(incoming);
      if (early) {
        stop(early);
        return;
      }
      incoming.on('data', (chunk: Buffer) => {
        if (settled) return;
        const verdict = reader.chunk(chunk);
        if (verdict) stop(verdict);
      });
      incoming.on('end', () => {
        if (settled) return;
        settle(reader.end());
      });
      incoming.on('error', (error) => settle(codeOf(error)));
      incoming.on('close', () => settle('ECONNRESET'));
    };

    let outgoing: ReturnType<typeof httpRequest>;
    try {
      outgoing = (target.secure ? httpsRequest : httpRequest)(
        { ...target.options, method: request.method, headers: request.headers },
        onResponse,
      );
    } catch (error) {
      // An invalid header name or value is thrown synchronously; its code names the problem, not the value.
      settle(codeOf(error));
      return;
    }
    const onAbort = (): void => {
      settle('timeout');
      outgoing.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error) => settle(codeOf(error)));
    outgoing.on('close', () => signal.removeEventListener('abort', onAbort));
    outgoing.end(request.body);
  });
