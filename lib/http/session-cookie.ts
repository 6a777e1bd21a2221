import { serialize } from 'cookie';
import { validationError } from './errors.ts';

/** The cookie that carries the session id. */
const SESSION_COOKIE = 'session_id';

/**
 * Over HTTPS (every API Gateway request) the cookie is `Secure; SameSite=None` so widgets on other sites
 * can send it; over plain HTTP (local) it is `SameSite=Lax`.
 */
const attributes = (headers: Record<string, string>) => {
  const secure = (headers['x-forwarded-proto'] ?? '').toLowerCase() === 'https';
  return { path: '/', httpOnly: true, secure, sameSite: secure ? ('none' as const) : ('lax' as const) };
};

/** Sets the session cookie. */
export const sessionCookie = (id: string, headers: Record<string, string>): string =>
  serialize(SESSION_COOKIE, id, attributes(headers));

/** Clears the session cookie, so the client starts afresh. */
export const clearedSessionCookie = (headers: Record<string, string>): string =>
  serialize(SESSION_COOKIE, '', { ...attributes(headers), maxAge: 0, expires: new Date(0) });

/** Where a request's session id came from: the `session_id` parameter, the cookie, or nowhere. */
export type SessionSource = 'param' | 'cookie' | 'none';

/**
 * The session id of a request and its source: the `session_id` parameter (one string of at most 128
 * characters, else a 400), else the cookie. Both the cart and `booking/create` read it here.
 */
export function sessionIdOf(
  input: Record<string, unknown>,
  cookies: Record<string, string>,
): { sessionId?: string; source: SessionSource } {
  const raw = input.session_id;
  if (raw !== undefined && (typeof raw !== 'string' || raw.length > 128)) {
    throw validationError({ session_id: 'one session id' });
  }
  if (raw) return { sessionId: raw as string, source: 'param' };
  const cookie = cookies[SESSION_COOKIE];
  if (cookie) return { sessionId: cookie, source: 'cookie' };
  return { source: 'none' };
}
