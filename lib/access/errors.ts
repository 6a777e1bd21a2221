/** Why a request was refused before any application code ran, answered without the envelope (401). */
export class AuthError extends Error {
  readonly error: 'unauthorized' | 'invalid_token';

  constructor(error: 'unauthorized' | 'invalid_token', description: string) {
    super(description);
    this.name = 'AuthError';
    this.error = error;
  }
}

/** A credential that may not do what it asks (`forbidden`), or an `X-On-Behalf` that is malformed. */
export class AccessError extends Error {
  readonly code: 'forbidden' | 'validation_error';
  readonly data: Record<string, unknown>;

  constructor(code: 'forbidden' | 'validation_error', details: string, data: Record<string, unknown> = {}) {
    super(details);
    this.name = 'AccessError';
    this.code = code;
    this.data = data;
  }
}
