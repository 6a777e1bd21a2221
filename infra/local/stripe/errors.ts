/** Stripe's error types (`error.type` of its error object). */
export type StripeErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';

/** The body of an error object as Stripe writes it: `{ error: { type, code?, message, param?, ... } }`. */
export interface StripeErrorBody {
  type: StripeErrorType;
  message: string;
  code?: string;
  param?: string;
  doc_url?: string;
  decline_code?: string;
  payment_intent?: unknown;
}

/** An answer in Stripe's error shape, with its HTTP status; thrown by validation and operations alike. */
export class StripeApiError extends Error {
  readonly status: number;
  readonly body: StripeErrorBody;

  constructor(status: number, body: StripeErrorBody) {
    super(body.message);
    this.name = 'StripeApiError';
    this.status = status;
    // Stripe links each coded error to its page; clients log it, none reads it.
    this.body = body.code
      ? { ...body, doc_url: `https://stripe.com/docs/error-codes/${body.code.replaceAll('_', '-')}` }
      : body;
  }
}

/**
 * A parameter failed validation: Stripe saves no idempotent result for these (execution never began), so
 * the API layer lets a retry with the same key run afresh.
 */
export class StripeParamError extends StripeApiError {
  constructor(body: Omit<StripeErrorBody, 'type'>) {
    super(400, { type: 'invalid_request_error', ...body });
    this.name = 'StripeParamError';
  }
}

/** `Missing required param: x.` (400 `parameter_missing`). */
export const missingParam = (param: string) =>
  new StripeParamError({ code: 'parameter_missing', param, message: `Missing required param: ${param}.` });

/** `Received unknown parameter: x` (400 `parameter_unknown`). */
export const unknownParam = (param: string) =>
  new StripeParamError({
    code: 'parameter_unknown',
    param,
    message: `Received unknown parameter: ${param}`,
  });

/** `Invalid integer: x` (400 `parameter_invalid_integer`). */
export const invalidInteger = (param: string, value: unknown) =>
  new StripeParamError({
    code: 'parameter_invalid_integer',
    param,
    message: `Invalid integer: ${String(value)}`,
  });

/** An empty string for a parameter that cannot be unset (400 `parameter_invalid_empty`). */
export const invalidEmpty = (param: string) =>
  new StripeParamError({
    code: 'parameter_invalid_empty',
    param,
    message: `You passed an empty string for '${param}'. We assume empty values are an attempt to unset a parameter; however '${param}' cannot be unset. You should remove '${param}' from your request or supply a non-empty value.`,
  });

/** Any other refused parameter, with its name and, where Stripe documents one, its code. */
export const invalidParam = (param: string, message: string, code?: string) =>
  new StripeParamError({ param, message, ...(code ? { code } : {}) });

/** `No such <object>: '<id>'` (404 `resource_missing`), as Stripe answers an unknown id. */
export const resourceMissing = (objectName: string, id: string, param: string) =>
  new StripeApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    param,
    message: `No such ${objectName}: '${id}'`,
  });

/** Any request Stripe refuses for the state of the objects it names (400, execution began). */
export const invalidRequest = (message: string, extra: Partial<StripeErrorBody> = {}) =>
  new StripeApiError(400, { type: 'invalid_request_error', message, ...extra });
