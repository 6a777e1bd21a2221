import { API_PREFIX } from './routes.ts';

/** Where the service is reached when nothing configures it: the local runner's default address. */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:3000';

/**
 * Checks a configured public URL of the service (`PUBLIC_URL`: the HTTP API's endpoint in AWS, the
 * runner's own address locally) and returns it without a trailing slash. Only http(s), and no user,
 * query or fragment: the links built on it are handed to browsers. Throws otherwise, so a bad value
 * fails the cold start rather than a request.
 */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(`PUBLIC_URL is not a URL: ${text}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`PUBLIC_URL must be an http(s) URL: ${text}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new Error(`PUBLIC_URL must have no user, query or fragment: ${text}`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * The public base URL of the API (`https://host/api/3.0`) from configuration: links the service hands
 * out (the invoice, help) are built on it, never on `Host` or `X-Forwarded-*`, which any client can send.
 */
export const apiUrlOf = (publicUrl: string): string => `${publicUrl}${API_PREFIX}`;

/**
 * The guest's page of a booking (`/manage`, issue 44) on the site the API's public base URL is under (where
 * `/book` is): the link the guest's token opens.
 */
export function manageUrlOf(apiUrl: string, code: string, token: string): string {
  const site = apiUrl.endsWith(API_PREFIX) ? apiUrl.slice(0, -API_PREFIX.length) : apiUrl;
  return `${site}/manage?booking=${encodeURIComponent(code)}&token=${encodeURIComponent(token)}`;
}
