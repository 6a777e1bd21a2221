import { parse as parseCookieHeader } from 'cookie';
import { ApiError, validationError } from './errors.ts';
import { type FormLimits, parseUrlEncoded } from './form.ts';

/** Bounds on what a client may send in one request. */
export const REQUEST_LIMITS = {
  bodyBytes: 64 * 1024,
  depth: 5,
  listLength: 100,
  parameters: 500,
  valueLength: 4096,
} as const;

/** The parameters of a request: query string and body merged into one object (the body wins). */
export type Input = Record<string, unknown>;

/** The request as the routes see it, whatever its transport shape. */
export interface RawRequest {
  rawQueryString?: string;
  body?: string | null;
  isBase64Encoded?: boolean;
  headers?: Record<string, string | undefined>;
  cookies?: string[];
}

/** What parsing a request yields. */
export interface ParsedRequest {
  input: Input;
  headers: Record<string, string>;
  cookies: Record<string, string>;
}

/**
 * How far a query string or form body is read (lib/http/form.ts). Every bracketed key becomes an object
 * key: `slip[]`, `slip[0]`, `alter[2.1]` and `alter[3]` all keep their keys, and lists are read with `asList`.
 */
export const FORM_LIMITS: FormLimits = {
  depth: REQUEST_LIMITS.depth,
  parameters: REQUEST_LIMITS.parameters + 1,
};

const countParameters = (text: string): number => text.split('&').filter((part) => part !== '').length;

const parseForm = (text: string, where: 'query' | 'body'): Input => {
  if (countParameters(text) > REQUEST_LIMITS.parameters) {
    throw validationError({ [where]: `at most ${REQUEST_LIMITS.parameters} parameters` });
  }
  try {
    return parseUrlEncoded(text, FORM_LIMITS);
  } catch (cause) {
    throw new ApiError('validation_error', {
      details: `Malformed ${where}: nested deeper than ${REQUEST_LIMITS.depth} levels`,
      data: { [where]: `nested deeper than ${REQUEST_LIMITS.depth} levels` },
      cause,
    });
  }
};

const checkShape = (value: unknown, depth: number, budget: { keys: number }): string | undefined => {
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > REQUEST_LIMITS.depth) return `nested deeper than ${REQUEST_LIMITS.depth} levels`;
  const children = Array.isArray(value) ? value : Object.values(value);
  if (Array.isArray(value) && value.length > REQUEST_LIMITS.listLength) {
    return `a list is longer than ${REQUEST_LIMITS.listLength}`;
  }
  budget.keys += children.length;
  if (budget.keys > REQUEST_LIMITS.parameters) return `more than ${REQUEST_LIMITS.parameters} values`;
  for (const child of children) {
    const problem = checkShape(child, depth + 1, budget);
    if (problem) return problem;
  }
  return undefined;
};

const parseJson = (text: string): Input => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ApiError('validation_error', {
      details: 'Malformed JSON body',
      data: { body: 'not valid JSON' },
      cause,
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError({ body: 'a JSON body must be an object' }, 'Malformed JSON body');
  }
  const problem = checkShape(value, 1, { keys: 0 });
  if (problem) throw validationError({ body: problem }, `Body too complex: ${problem}`);
  return value as Input;
};

const decodeBody = (request: RawRequest): Buffer | undefined => {
  if (request.body === undefined || request.body === null || request.body === '') return undefined;
  return request.isBase64Encoded ? Buffer.from(request.body, 'base64') : Buffer.from(request.body, 'utf8');
};

const mediaType = (contentType: string | undefined): string =>
  (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

const tooLarge = (): ApiError =>
  new ApiError('payload_too_large', {
    details: `The body is over ${REQUEST_LIMITS.bodyBytes} bytes, the most accepted`,
    data: { limit: REQUEST_LIMITS.bodyBytes },
  });

const parseBody = (bytes: Buffer, contentType: string | undefined): Input => {
  // A gateway that stops reading at the limit hands over its first limit + 1 bytes, so the size of the
  // whole body is not known here: only that it is over.
  if (bytes.length > REQUEST_LIMITS.bodyBytes) throw tooLarge();
  const type = mediaType(contentType);
  const text = bytes.toString('utf8');
  if (type === 'application/json' || type.endsWith('+json')) return parseJson(text);
  if (type === '' || type === 'application/x-www-form-urlencoded') return parseForm(text, 'body');
  throw new ApiError('unsupported_media_type', {
    details: `Send application/x-www-form-urlencoded or application/json, not ${type}`,
    data: { 'content-type': type },
  });
};

const lowerCaseHeaders = (headers: RawRequest['headers']): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out[name.toLowerCase()] = value;
  }
  return out;
};

const parseCookies = (cookies: string[] | undefined, header: string | undefined): Record<string, string> => {
  const joined = [...(cookies ?? []), ...(cookies?.length ? [] : header ? [header] : [])].join('; ');
  const parsed = joined ? parseCookieHeader(joined) : {};
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) if (value !== undefined) out[name] = value;
  return out;
};

/** The first value longer than the limit, named as sent (`form[note]`), known parameter or not. */
const oversizedValue = (value: unknown, name: string): string | undefined => {
  if (typeof value === 'string') return value.length > REQUEST_LIMITS.valueLength ? name : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = oversizedValue(child, name ? `${name}[${key}]` : key);
    if (found) return found;
  }
  return undefined;
};

/**
 * Parses the query string and the body (form with PHP-style brackets, or JSON) into one object,
 * and reads headers (names lower case) and cookies. Refuses oversized, malformed or over-complex input.
 */
export function parseRequest(request: RawRequest): ParsedRequest {
  const headers = lowerCaseHeaders(request.headers);
  // A body declared over the limit is refused unread (the local gateway does not read it at all).
  if (Number(headers['content-length']) > REQUEST_LIMITS.bodyBytes) throw tooLarge();
  const query = request.rawQueryString ? parseForm(request.rawQueryString, 'query') : {};
  const bytes = decodeBody(request);
  const body = bytes ? parseBody(bytes, headers['content-type']) : {};
  const input = { ...query, ...body };
  const oversized = oversizedValue(input, '');
  if (oversized) {
    throw validationError({ [oversized]: `at most ${REQUEST_LIMITS.valueLength} characters` });
  }
  return { input, headers, cookies: parseCookies(request.cookies, headers.cookie) };
}

/**
 * Reads a list parameter however a client sent it: one value, a JSON array, `name[]=` or `name[0]=`
 * (an object keyed by index, in index order), or a comma-separated string when `commas` is set.
 */
export function asList(value: unknown, options: { commas?: boolean } = {}): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'object') {
    return Object.entries(value)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, item]) => item);
  }
  if (options.commas && typeof value === 'string') {
    return value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  }
  return [value];
}
