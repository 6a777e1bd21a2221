import type { ApiError } from './errors.ts';

/** The tenant facts every envelope carries. */
export interface EnvelopeTenant {
  account_id: number;
  host_id: string;
  name: string;
  locale: { id: string; lang: string; currency: string };
}

/** The `request` object of the envelope. */
export interface EnvelopeRequest {
  status: 'OK' | 'ERROR';
  resource: string;
  id: string;
  method: string;
  records: number;
  limit: number;
  page: number;
  pages: number;
  time: number;
  [extra: string]: unknown;
}

/** Paging and echo fields a route may set on `request`. */
export type RequestOverrides = Partial<Omit<EnvelopeRequest, 'status' | 'time'>> & Record<string, unknown>;

/** What a route returns: the body keys beside the envelope, plus envelope and HTTP extras. */
export interface RouteResult {
  body: Record<string, unknown>;
  request?: RequestOverrides;
  query?: Record<string, unknown> | false;
  status?: number;
  headers?: Record<string, string>;
  cookies?: string[];
  /** A response that is not JSON (the HTML invoice): sent as is, without the envelope. */
  raw?: { contentType: string; body: string };
}

/** The parts of the current request the envelope echoes. */
export interface EnvelopeContext {
  tenant: EnvelopeTenant;
  resource: string;
  id: string;
  method: string;
  startedAt: number;
  now: number;
  /** Parameters the request sent that nothing read, as sent (reported as `request.ignored`). */
  ignored?: readonly string[];
}

/** Used when the tenant could not be read (the error is then reported in an otherwise valid envelope). */
export const UNKNOWN_TENANT: EnvelopeTenant = {
  account_id: 0,
  host_id: '',
  name: '',
  locale: { id: 'en', lang: 'en', currency: '' },
};

const elapsedSeconds = (context: EnvelopeContext): number =>
  Math.max(0, Math.round((context.now - context.startedAt) * 1000) / 1_000_000);

/** Builds the envelope of a response: version, tenant facts, request, query, then the body's keys. */
export function buildEnvelope(
  context: EnvelopeContext,
  result: Pick<RouteResult, 'body' | 'request' | 'query'>,
  status: 'OK' | 'ERROR' = 'OK',
): Record<string, unknown> {
  const request: EnvelopeRequest = {
    status,
    resource: context.resource,
    id: context.id,
    method: context.method.toLowerCase(),
    records: 0,
    limit: 0,
    page: 1,
    pages: 1,
    time: elapsedSeconds(context),
    ...(context.ignored?.length ? { ignored: [...context.ignored] } : {}),
    ...result.request,
  };
  return {
    version: '3.0',
    account_id: context.tenant.account_id,
    host_id: context.tenant.host_id,
    name: context.tenant.name,
    locale: context.tenant.locale,
    request,
    query: result.query ?? false,
    ...result.body,
  };
}

/** Builds the envelope of an application error: `request.status` ERROR and `request.error`. */
export function buildErrorEnvelope(context: EnvelopeContext, error: ApiError): Record<string, unknown> {
  return buildEnvelope(
    context,
    {
      body: {},
      request: { error: { id: error.id, title: error.title, details: error.details, data: error.data } },
    },
    'ERROR',
  );
}
