import { serialize } from 'cookie';

/** The cookie that carries the session id. */
export const SESSION_COOKIE = 'session_id';

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
