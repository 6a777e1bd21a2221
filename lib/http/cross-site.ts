import { ApiError } from './errors.ts';

const hostOf = (origin: string): string | undefined => {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
};

/**
 * What `Sec-Fetch-Site` may say for a cookie-only change without `Origin`: the service's own origin, or
 * a request the user made (typed, bookmarked). `same-site` is another origin of the site (a sibling
 * subdomain, which may host anyone's pages), so it is refused with `cross-site` and unknown values.
 */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/**
 * Refuses a state-changing call that a browser on another origin makes with the session cookie alone
 * (cross-site request forgery): an `Origin` that is neither the service's own nor one of the tenant's
 * `cors_origins`, or, without `Origin`, a `Sec-Fetch-Site` other than `same-origin` or `none`.
 * Server-side clients send neither header and are served.
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
  const site = headers['sec-fetch-site'];
  if (site !== undefined && !OWN_FETCH_SITES.has(site.trim().toLowerCase())) {
    throw new ApiError('forbidden', {
      details: 'A cart change with the session cookie from another site or origin is not allowed',
      data: { 'sec-fetch-site': site.slice(0, 32) },
    });
  }
}
