import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.d.ts';

/** A typed client of the Booking API 3.0: every path, parameter and response typed from openapi.json. */
export type BookingApi = Client<paths>;

/** How a client calls: where the API is, and as whom (no credentials: a customer, as a widget is). */
export interface BookingClientOptions {
  /** The API's base URL, such as `https://lodge.example.com/api/3.0`. */
  baseUrl: string;
  /** A staff API key and secret (Basic), or a bearer token. */
  credentials?: { key: string; secret: string } | { token: string };
  /** Extra headers on every request (`X-On-Behalf`, `Idempotency-Key`). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

const authorization = (credentials: BookingClientOptions['credentials']): Record<string, string> => {
  if (!credentials) return {};
  if ('token' in credentials) return { authorization: `Bearer ${credentials.token}` };
  return { authorization: `Basic ${btoa(`${credentials.key}:${credentials.secret}`)}` };
};

/**
 * A client of the API: GET parameters in the query string with brackets as the service reads them
 * (`param[adults]=2`, `slip[]=…`), POST bodies as JSON, which the service reads like a form.
 */
export function createBookingClient(options: BookingClientOptions): BookingApi {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: { ...authorization(options.credentials), ...options.headers },
    querySerializer: {
      object: { style: 'deepObject', explode: true },
      array: { style: 'form', explode: true },
    },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
