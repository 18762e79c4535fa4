import type {} from '@fastify/cookie';
import type { FastifyReply } from 'fastify';

export const SESSION_COOKIE = 'tack_session';

// The browser may keep the cookie long; the server ends a session idle for 30 days.
const COOKIE_MAX_AGE_S = 400 * 24 * 60 * 60;

/** `Secure` when people reach tack over HTTPS: served directly with TLS, or APP_URL says https. */
export function secureCookies(appUrl: string, tls: boolean): boolean {
  return tls || appUrl.startsWith('https:');
}

/** Sets `tack_session`: HttpOnly, SameSite=Lax, Path=/, Secure under HTTPS. */
export function setSessionCookie(reply: FastifyReply, secret: string, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, secret, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: COOKIE_MAX_AGE_S });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure });
}
