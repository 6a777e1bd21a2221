import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import type { OutboundPolicy } from '../kernel/outbound/address-guard.ts';
import { type BodyReader, exchange, resolveTarget, startDeadline } from '../kernel/outbound/connection.ts';

// The delivery log keeps this much of a response body; reading more only costs memory and time.
const RESPONSE_BODY_LIMIT = 1024;

const DEFAULT_TIMEOUT_MS = 10_000;

/** One webhook delivery attempt: where to POST, what to send and under which delivery policy. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  policy: OutboundPolicy;
  /** The budget for the whole attempt, DNS and reading the body included; 10 seconds by default. */
  timeoutMs?: number;
  /** Resolves the host; tests inject one, the default is `dns.lookup` with `all: true`. */
  lookup?: LookupFunction;
  /** The clock `durationMs` is read from, in milliseconds; tests inject one, the default is `performance.now`. */
  clock?: () => number;
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

/** Keeps the first bytes of a body up to the limit, decoded as UTF-8, then stops reading. */
const limitedText = (limit: number): BodyReader & { text: () => string } => {
  const decoder = new StringDecoder('utf8');
  let text = '';
  let received = 0;
  return {
    text: () => text,
    chunk(data) {
      const kept = data.subarray(0, limit - received);
      received += kept.length;
      // Without end(), the decoder holds back a character cut at the limit instead of mangling it.
      text += decoder.write(kept);
      return received >= limit ? {} : undefined;
    },
    end() {
      text += decoder.end();
      return undefined;
    },
  };
};

const outcomeOf = (status: number): WebhookResponse['outcome'] => {
  if (status >= 200 && status < 300) return 'success';
  return status === 410 ? 'gone' : 'failure';
};

/** POSTs a webhook payload to a checked, pinned address and reports the outcome without throwing on network errors. */
export async function postWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const clock = request.clock ?? (() => performance.now());
  const started = clock();
  const report = (
    result: Omit<WebhookResponse, 'durationMs' | 'body'> & { body?: string },
  ): WebhookResponse => ({
    body: '',
    ...result,
    durationMs: Math.round(clock() - started),
  });

  const deadline = startDeadline(request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const resolution = await resolveTarget(request.url, request.policy, request.lookup, deadline);
    if (!('target' in resolution)) {
      return report({ outcome: resolution.refused ? 'refused' : 'failure', error: resolution.error });
    }
    const { target } = resolution;
    const reader = limitedText(RESPONSE_BODY_LIMIT);
    const { status, error } = await exchange(
      target,
      {
        method: 'POST',
        // Listed last so a caller's header cannot override the framing or the virtual host.
        headers: {
          ...request.headers,
          host: target.url.host,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(request.body)),
        },
        body: request.body,
      },
      reader,
      deadline.signal,
    );
    const body = reader.text();
    if (error !== undefined || status === undefined) {
      return report({ outcome: 'failure', status, body, error: error ?? 'no status' });
    }
    if (status >= 300 && status < 400) {
      return report({ outcome: 'failure', status, body, error: 'redirect not followed' });
    }
    return report({ outcome: outcomeOf(status), status, body });
  } finally {
    deadline.clear();
  }
}
