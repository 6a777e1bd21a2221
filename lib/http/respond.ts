import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AccessError } from '../access/index.ts';
import { IdempotencyKeyError } from '../bookings/index.ts';
import { BudgetSpentError, DomainError } from '../kernel/errors.ts';
import { ContentionError } from '../kernel/storage/transact.ts';
import { logger } from '../runtime/logger.ts';
import { buildErrorEnvelope, type EnvelopeContext } from './envelope.ts';
import { ApiError, type AuthError } from './errors.ts';
import { ignoredParametersHeader } from './ignored.ts';
import { stringify } from './raw-json.ts';
import type { RequestState } from './request-state.ts';

type Result = APIGatewayProxyStructuredResultV2;

/**
 * The Content-Security-Policy of the HTML pages the API itself renders (the invoice, help): they need
 * nothing but their own markup, so nothing may load, run, frame them, change their base or submit. A
 * value that escaped the HTML escaping still could not run or send anything anywhere.
 */
export const PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const WWW_AUTHENTICATE = 'Basic realm="Booking API 3.0", Bearer realm="Booking API 3.0"';

// What API Gateway and Node can write as a header value: visible ASCII, spaces and tabs. (Node throws on
// anything past Latin-1 or on CR, LF and NUL; obs-text, bytes 0x80-0xFF, each client reads its own way.)
const WRITABLE = /^[\t\x20-\x7e]*$/;

/**
 * The headers (and cookies) that can be written. A value that cannot is dropped and logged as an error
 * rather than left to fail the answer: the request may already have changed something (a booking made),
 * and a 500 would tell the client it had not.
 */
const writable = <T extends string>(state: RequestState, entries: [T, string][]): [T, string][] =>
  entries.filter(([name, value]) => {
    if (WRITABLE.test(value)) return true;
    logger.error('header dropped: its value cannot be written', {
      request_id: state.requestId,
      header: name,
    });
    return false;
  });

/** A response with the headers every response carries (request id, ignored parameters, limits). */
export const respond = (
  state: RequestState,
  options: {
    status: number;
    contentType: string;
    body: string;
    headers?: Record<string, string> | undefined;
    cookies?: string[] | undefined;
  },
): Result => {
  const ignored = ignoredParametersHeader(state.ignored);
  const headers = writable(
    state,
    Object.entries({
      'content-type': options.contentType,
      'cache-control': 'no-store',
      // Every answer is read as the type it says: a JSON body that echoes input is never sniffed as HTML.
      'x-content-type-options': 'nosniff',
      'x-request-id': state.requestId,
      ...(ignored ? { 'x-ignored-parameters': ignored } : {}),
      ...state.limitHeaders,
      ...options.headers,
    }),
  );
  const cookies = writable(
    state,
    (options.cookies ?? []).map((cookie): ['set-cookie', string] => ['set-cookie', cookie]),
  ).map(([, cookie]) => cookie);
  return {
    statusCode: options.status,
    headers: Object.fromEntries(headers),
    ...(cookies.length ? { cookies } : {}),
    body: options.body,
  };
};

/** A JSON response; RawJson values in the body go in as they are. */
export const jsonResponse = (
  state: RequestState,
  options: {
    status: number;
    body: unknown;
    headers?: Record<string, string> | undefined;
    cookies?: string[] | undefined;
  },
): Result =>
  respond(state, {
    ...options,
    contentType: 'application/json; charset=utf-8',
    body: stringify(options.body),
  });

/** The client-facing error an exception stands for, or undefined for an unexpected one (a 500). */
export const toApiError = (error: unknown): ApiError | undefined => {
  if (error instanceof ApiError) return error;
  if (error instanceof BudgetSpentError) {
    const retryAfter = String(error.retryAfter);
    return new ApiError(error.code, {
      details: error.message,
      data: error.data,
      headers: {
        'retry-after': retryAfter,
        'ratelimit-limit': String(error.limit),
        'ratelimit-remaining': '0',
        'ratelimit-reset': retryAfter,
      },
    });
  }
  if (error instanceof DomainError) {
    const { retry_after: retryAfter } = error.data;
    return new ApiError(error.code, {
      details: error.message,
      data: error.data,
      ...(error.title ? { title: error.title } : {}),
      // A refusal that ends at a known time says when, as a 429 or 503 does.
      ...(typeof retryAfter === 'number' ? { headers: { 'retry-after': String(retryAfter) } } : {}),
    });
  }
  if (error instanceof AccessError) {
    return new ApiError(error.code, { details: error.message, data: error.data });
  }
  if (error instanceof IdempotencyKeyError) {
    return new ApiError(error.code, { details: error.message, data: { 'Idempotency-Key': error.key } });
  }
  if (error instanceof ContentionError) {
    return new ApiError('busy', {
      details: 'Too many changes at once; try again',
      headers: { 'retry-after': '1' },
    });
  }
  return undefined;
};

/** The 401 answer: the OAuth-style body (no envelope) and the schemes a client may use. */
export function unauthorizedResponse(
  state: RequestState,
  error: AuthError,
  sourceIp: string | undefined,
): Result {
  logger.info('request', {
    request_id: state.requestId,
    status: 401,
    reason: error.message,
    client_ip: state.requesterAddress ?? sourceIp,
  });
  return jsonResponse(state, {
    status: 401,
    body: { error: error.error, error_description: error.message },
    headers: {
      'www-authenticate':
        error.error === 'invalid_token' ? `${WWW_AUTHENTICATE}, error="invalid_token"` : WWW_AUTHENTICATE,
    },
  });
}

/**
 * The error envelope of any other error: its own status and message for a client-facing error, a generic
 * 500 with the request id otherwise (the cause goes only to the log).
 */
export function errorResponse(
  state: RequestState,
  options: { error: unknown; context: EnvelopeContext; sourceIp: string | undefined; cookies: string[] },
): Result {
  const { error } = options;
  const apiError =
    toApiError(error) ??
    new ApiError('internal', {
      details: `Something went wrong on our side. Quote request id ${state.requestId} when reporting it.`,
      data: { request_id: state.requestId },
    });
  const client_ip = state.requesterAddress ?? options.sourceIp;
  if (apiError.status >= 500) {
    logger.error('request failed', {
      request_id: state.requestId,
      status: apiError.status,
      client_ip,
      error,
    });
  } else {
    logger.info('request', {
      request_id: state.requestId,
      status: apiError.status,
      error_id: apiError.id,
      client_ip,
    });
  }
  return jsonResponse(state, {
    status: apiError.status,
    body: buildErrorEnvelope(options.context, apiError),
    headers: apiError.headers,
    cookies: [...apiError.cookies, ...options.cookies],
  });
}
