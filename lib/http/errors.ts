/** The stable error ids of the envelope, with their HTTP status and default title (design §3). */
export const ERRORS = {
  validation_error: { status: 400, title: 'Invalid request' },
  invalid_slip: { status: 400, title: 'Invalid SLIP' },
  forbidden: { status: 403, title: 'Not allowed' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  unavailable: { status: 409, title: 'Not available' },
  session_expired: { status: 409, title: 'Session expired' },
  session_empty: { status: 409, title: 'Session is empty' },
  invalid_status: { status: 409, title: 'Invalid status for this action' },
  nothing_due: { status: 409, title: 'Nothing is due' },
  in_progress: { status: 409, title: 'Request in progress' },
  hold_limit: { status: 409, title: 'Hold limit reached' },
  challenge_required: { status: 409, title: 'Proof of work required' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_mismatch: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  not_implemented: { status: 501, title: 'Not implemented' },
  busy: { status: 503, title: 'Busy, try again' },
} as const;

/** One of the stable error ids that become `request.error.id`. */
export type ErrorId = keyof typeof ERRORS;

/** Details of an error beyond its id: the human text, the machine data and extra headers. */
export interface ApiErrorOptions {
  details?: string;
  title?: string;
  data?: Record<string, unknown>;
  headers?: Record<string, string>;
  cookies?: string[];
  cause?: unknown;
}

/** An error that reaches the client in the envelope, with a stable id and its HTTP status. */
export class ApiError extends Error {
  readonly id: ErrorId;
  readonly status: number;
  readonly title: string;
  readonly details: string;
  readonly data: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly cookies: string[];

  constructor(id: ErrorId, options: ApiErrorOptions = {}) {
    const title = options.title ?? ERRORS[id].title;
    super(options.details ?? title, { cause: options.cause });
    this.name = 'ApiError';
    this.id = id;
    this.status = ERRORS[id].status;
    this.title = title;
    this.details = options.details ?? title;
    this.data = options.data ?? {};
    this.headers = options.headers ?? {};
    this.cookies = options.cookies ?? [];
  }
}

/** A 400 `validation_error` whose data maps each offending field to its problem. */
export function validationError(fields: Record<string, string>, details?: string): ApiError {
  const names = Object.keys(fields);
  return new ApiError('validation_error', {
    details: details ?? `Invalid ${names.length === 1 ? 'parameter' : 'parameters'}: ${names.join(', ')}`,
    data: fields,
  });
}

/** A 404 `not_found` naming what was looked for. */
export function notFoundError(what: string): ApiError {
  return new ApiError('not_found', { details: `${what} not found` });
}

export { AuthError } from '../access/index.ts';
