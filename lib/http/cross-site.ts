import { ApiError } from './errors.ts';

const hostOf = (origin: string): string | undefined => {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
};

/**
 * Refuses a state-changing call that a browser on another site makes with the session cookie alone
 * (cross-site request forgery): an `Origin` that is neither the service's own nor one of the tenant's
 * `cors_origins`, or, without `Origin`, `Sec-Fetch-Site: cross-site`. Server-side clients send neither.
 */
export function assertNotCrossSite(headers: Record<string, string>, allowedOrigins: readonly string[]): void {
  const origin = headers.origin?.trim();
  if (origin) {
    const host = hostOf(origin);
    const own = host !== undefined && host === headers.host?.trim().toLowerCase();
    if (own || allowedOrigins.includes(origin)) return;
    throw new ApiError('forbidden', {
      details: `A cart change with the session cookie from ${origin} is not allowed; add the site to cors_origins`,
      data: { origin },
    });
  }
  if (headers['sec-fetch-site']?.trim().toLowerCase() === 'cross-site') {
    throw new ApiError('forbidden', {
      details: 'A cart change with the session cookie from another site is not allowed',
      data: { 'sec-fetch-site': 'cross-site' },
    });
  }
}
