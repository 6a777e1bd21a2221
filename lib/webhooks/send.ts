import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { type DeliveryPolicy, refusedAddress, refusedUrl } from './address-guard.ts';

// The delivery log keeps this much of a response body; reading more only costs memory and time.
const RESPONSE_BODY_LIMIT = 1024;

const DEFAULT_TIMEOUT_MS = 10_000;

/** One webhook delivery attempt: where to POST, what to send and under which delivery policy. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  policy: DeliveryPolicy;
  /** The budget for the whole attempt, DNS and reading the body included; 10 seconds by default. */
  timeoutMs?: number;
  /** Resolves the host; tests inject one, the default is `dns.lookup` with `all: true`. */
  lookup?: LookupFunction;
}

/** What came of a delivery attempt, safe to log: it never holds a header value. */
export interface WebhookResponse {
  outcome: 'success' | 'failure' | 'gone' | 'refused';
  status?: number;
  durationMs: number;
  /** At most the first 1024 bytes of the response body, decoded as UTF-8. */
  body: string;
  /** A short reason: a refusal, 'timeout', 'redirect not followed' or a network error code. */
  error?: string;
}

interface Exchange {
  status?: number;
  body: string;
  error?: string;
}

// Only the code: an error message may quote the URL, and a header value must never reach the log.
const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'network error';
};

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

/** Sends the request and reads at most the body limit, settling once: on the body, an error or the abort. */
const exchange = (
  options: RequestOptions,
  body: string,
  secure: boolean,
  signal: AbortSignal,
): Promise<Exchange> =>
  new Promise((resolve) => {
    const decoder = new StringDecoder('utf8');
    let status: number | undefined;
    let text = '';
    let received = 0;
    let settled = false;
    const settle = (error?: string): void => {
      if (settled) return;
      settled = true;
      resolve({ status, body: text, error });
    };

    const onResponse = (response: IncomingMessage): void => {
      status = response.statusCode;
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        const kept = chunk.subarray(0, RESPONSE_BODY_LIMIT - received);
        received += kept.length;
        // Without end(), the decoder holds back a character cut at the limit instead of mangling it.
        text += decoder.write(kept);
        if (received >= RESPONSE_BODY_LIMIT) {
          settle();
          // The rest of the body is of no use, and a receiver could send it forever.
          response.destroy();
        }
      });
      response.on('end', () => {
        if (settled) return;
        text += decoder.end();
        settle();
      });
      response.on('error', (error) => settle(codeOf(error)));
      response.on('close', () => settle('ECONNRESET'));
    };

    let outgoing: ReturnType<typeof httpRequest>;
    try {
      outgoing = (secure ? httpsRequest : httpRequest)(options, onResponse);
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
    outgoing.end(body);
  });

const outcomeOf = (status: number): WebhookResponse['outcome'] => {
  if (status >= 200 && status < 300) return 'success';
  return status === 410 ? 'gone' : 'failure';
};

/** POSTs a webhook payload to a checked, pinned address and reports the outcome without throwing on network errors. */
export async function postWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const report = (
    result: Omit<WebhookResponse, 'durationMs' | 'body'> & { body?: string },
  ): WebhookResponse => ({
    body: '',
    ...result,
    durationMs: Math.round(performance.now() - started),
  });

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return report({ outcome: 'refused', error: 'invalid URL' });
  }
  const urlRefusal = refusedUrl(url, request.policy);
  if (urlRefusal) return report({ outcome: 'refused', error: urlRefusal });

  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const timedOut = new Promise<'timeout'>((resolve) =>
    controller.signal.addEventListener('abort', () => resolve('timeout'), { once: true }),
  );
  try {
    let addresses: LookupAddress[];
    if (isIP(host) !== 0) {
      addresses = [{ address: host, family: isIP(host) }];
    } else {
      try {
        const resolved = await Promise.race([resolveHost(host, request.lookup ?? defaultLookup), timedOut]);
        if (resolved === 'timeout') return report({ outcome: 'failure', error: 'timeout' });
        addresses = resolved;
      } catch (error) {
        return report({ outcome: 'failure', error: codeOf(error) });
      }
    }
    const [first] = addresses;
    if (!first) return report({ outcome: 'failure', error: 'ENOTFOUND' });
    // Every answer is checked, not just the one used: a mixed answer is how rebinding attacks start.
    for (const { address } of addresses) {
      const reason = refusedAddress(address, request.policy);
      if (reason) return report({ outcome: 'refused', error: `host resolves to ${reason}` });
    }

    const secure = url.protocol === 'https:';
    const options: RequestOptions = {
      method: 'POST',
      hostname: host,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: `${url.pathname}${url.search}`,
      // Listed last so a caller's header cannot override the framing or the virtual host.
      headers: {
        ...request.headers,
        host: url.host,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
      },
      // A pooled socket could lead to an address checked for an earlier delivery, not this one.
      agent: false,
      lookup: pinnedLookup(first.address),
      ...(secure && isIP(host) === 0 ? { servername: host } : {}),
    };
    const { status, body, error } = await exchange(options, request.body, secure, controller.signal);
    if (error !== undefined || status === undefined) {
      return report({ outcome: 'failure', status, body, error: error ?? 'no status' });
    }
    if (status >= 300 && status < 400) {
      return report({ outcome: 'failure', status, body, error: 'redirect not followed' });
    }
    return report({ outcome: outcomeOf(status), status, body });
  } finally {
    clearTimeout(timer);
  }
}
