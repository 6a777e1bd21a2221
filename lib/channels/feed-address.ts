/** What stands for a path segment of a feed's address. */
const MASK = '***';

/** A file extension short enough to say what a segment is (`.ics`, `.html`) and too short to be a secret. */
const EXTENSION = /\.[A-Za-z]{1,5}$/;

/**
 * A channel feed's address as it may be shown or logged: its scheme, host and port, and its path with
 * every segment masked but the file name's short extension. Channels put the feed's secret in the query (Airbnb,
 * Booking.com), in the path (Google's `/private-<secret>/basic.ics`) or in the file name (Vrbo), so only
 * the host is shown; the user info, query and fragment are dropped. An address that cannot be parsed
 * shows as the mask alone.
 */
export function maskFeedAddress(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return MASK;
  }
  const segments = url.pathname.split('/');
  const path = segments
    .map((segment, index) => {
      if (segment === '') return '';
      // Only the file name's extension: an inner one may be part of a name (`lodge%40example.com`).
      const extension = index === segments.length - 1 ? (EXTENSION.exec(segment)?.[0] ?? '') : '';
      return `${MASK}${extension}`;
    })
    .join('/');
  return `${url.protocol}//${url.host}${path}`;
}
