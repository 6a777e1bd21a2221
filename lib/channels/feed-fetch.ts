import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import type { OutboundPolicy } from '../kernel/outbound/address-guard.ts';
import {
  type BodyReader,
  codeOf,
  exchange,
  type OutboundTarget,
  resolveTarget,
  startDeadline,
} from '../kernel/outbound/connection.ts';

// A channel's iCalendar feed (Airbnb, Booking.com and the like) is fetched under the same address safety as
// a webhook delivery: the URL, every address of every hop and the pinned connection are checked by
// lib/kernel/outbound/connection.ts. The feed URL carries the channel's secret token in its query, so no outcome
// quotes a URL or a header value.

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'booking-service-channel-sync/1';

/** One fetch of a channel's calendar feed. */
export interface FeedRequest {
  url: string;
  policy: OutboundPolicy;
  /** Validators of the last successful fetch, sent as If-None-Match / If-Modified-Since. */
  etag?: string;
  lastModified?: string;
  /** The budget for the whole fetch, redirects and the body included; 10 seconds by default. */
  timeoutMs?: number;
  /** The largest body accepted, on the wire and once unzipped; 2 MB by default. */
  maxBytes?: number;
  /** Resolves the host; tests inject one, the default is `dns.lookup` with `all: true`. */
  lookup?: LookupFunction;
}

/** What came of a fetch; `error` is short and safe to show staff and to log: it never quotes the URL or a header. */
export type FeedResponse =
  | {
      outcome: 'fetched';
      status: 200;
      body: string;
      etag?: string;
      lastModified?: string;
      durationMs: number;
    }
  | { outcome: 'unchanged'; status: 304; durationMs: number }
  | { outcome: 'failed'; status?: number; error: string; durationMs: number };

/** A byte count as staff read it: '2 MB', '512 KB' or '1000 bytes'. */
const sizeLabel = (bytes: number): string => {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
};

/**
 * Reads a 200's body, at most `maxBytes` on the wire and at most `maxBytes` once unzipped, so a gzip bomb
 * stops at the cap; any other status is answered without reading its body.
 */
const feedBody = (maxBytes: number): BodyReader & { text: () => string } => {
  const over = { error: `over ${sizeLabel(maxBytes)}` };
  const chunks: Buffer[] = [];
  let received = 0;
  let gzipped = false;
  let text = '';
  return {
    text: () => text,
    head(response: IncomingMessage) {
      if (response.statusCode !== 200) return {};
      if (Number(response.headers['content-length'] ?? 0) > maxBytes) return over;
      const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
      gzipped = encoding === 'gzip' || encoding === 'x-gzip';
      if (!gzipped && encoding !== '' && encoding !== 'identity')
        return { error: 'unsupported content encoding' };
      return undefined;
    },
    chunk(data) {
      received += data.length;
      if (received > maxBytes) return over;
      chunks.push(data);
      return undefined;
    },
    end() {
      let bytes = Buffer.concat(chunks);
      if (gzipped) {
        try {
          // Unzipping stops as soon as the output passes the cap, however small the input.
          bytes = gunzipSync(bytes, { maxOutputLength: maxBytes });
        } catch (error) {
          return codeOf(error) === 'ERR_BUFFER_TOO_LARGE' ? over.error : codeOf(error);
        }
      }
      // TextDecoder strips a byte order mark and replaces what is not UTF-8.
      text = new TextDecoder('utf-8').decode(bytes);
      return undefined;
    },
  };
};

/** Where a redirect may lead: the same host (https from http allowed, never the reverse), or why not. */
const redirectTarget = (from: URL, location: string | undefined): { url: string } | { error: string } => {
  if (!location) return { error: 'redirect without a location' };
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    return { error: 'redirect to an invalid URL' };
  }
  if (from.protocol === 'https:' && next.protocol !== 'https:')
    return { error: 'redirect from https to http' };
  // URL.host leaves out a default port, so http://host/ to https://host/ stays on the same host.
  if (next.host !== from.host) return { error: 'redirect to another host' };
  return { url: next.href };
};

const requestHeaders = (target: OutboundTarget, request: FeedRequest): Record<string, string> => ({
  host: target.url.host,
  accept: 'text/calendar, */*;q=0.5',
  'accept-encoding': 'gzip',
  'user-agent': USER_AGENT,
  ...(request.etag ? { 'if-none-match': request.etag } : {}),
  ...(request.lastModified ? { 'if-modified-since': request.lastModified } : {}),
});

/**
 * GETs a calendar feed conditionally, following up to 3 redirects on the same host, each hop checked under
 * the policy; reports the outcome without throwing.
 */
export async function fetchFeed(request: FeedRequest): Promise<FeedResponse> {
  const started = performance.now();
  const durationMs = (): number => Math.round(performance.now() - started);
  const failed = (error: string, status?: number): FeedResponse => ({
    outcome: 'failed',
    ...(status === undefined ? {} : { status }),
    error,
    durationMs: durationMs(),
  });
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const conditional = Boolean(request.etag || request.lastModified);

  const deadline = startDeadline(request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    let url = request.url;
    for (let redirects = 0; ; redirects += 1) {
      const resolution = await resolveTarget(url, request.policy, request.lookup, deadline);
      if (!('target' in resolution)) return failed(resolution.error);
      const { target } = resolution;
      const reader = feedBody(maxBytes);
      const { status, headers, error } = await exchange(
        target,
        { method: 'GET', headers: requestHeaders(target, request) },
        reader,
        deadline.signal,
      );
      if (error !== undefined || status === undefined) return failed(error ?? 'no status', status);

      if (REDIRECT_STATUSES.has(status)) {
        if (redirects === MAX_REDIRECTS) return failed('too many redirects', status);
        const next = redirectTarget(target.url, headers?.location);
        if ('error' in next) return failed(next.error, status);
        url = next.url;
        continue;
      }
      // A 304 to a request without validators leaves the caller with nothing to keep.
      if (status === 304 && conditional) return { outcome: 'unchanged', status, durationMs: durationMs() };
      // Any other 2xx has no calendar to read: 204 and 205 have no body, and a 206 would be a part of one.
      if (status !== 200) return failed(`HTTP ${status}`, status);
      return {
        outcome: 'fetched',
        status,
        body: reader.text(),
        ...(headers?.etag ? { etag: headers.etag } : {}),
        ...(headers?.['last-modified'] ? { lastModified: headers['last-modified'] } : {}),
        durationMs: durationMs(),
      };
    }
  } finally {
    deadline.clear();
  }
}
