import { fastifyCookie } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { AuthCache } from './auth-cache.js';
import { crossSiteRequest, isSafeMethod, isSameOriginRequest } from './same-origin.js';
import { SESSION_COOKIE } from './session-cookie.js';

/**
 * Authenticates a /v1 request that carries no Authorization header by its `tack_session`
 * cookie. A write (any method but GET, HEAD, OPTIONS) must come from tack's own pages,
 * else it is refused with 403 `cross_site_request` before anything runs. Sets
 * `request.principal` or `request.authError` as the bearer path does, and returns the rate
 * limit key (the session's), or undefined when there is no usable cookie.
 */
export async function authenticateCookie(request: FastifyRequest, cache: AuthCache, appUrl: string): Promise<string | undefined> {
  const secret = sessionSecret(request);
  if (!secret) return undefined;
  try {
    if (!isSafeMethod(request.method) && !isSameOriginRequest(request, appUrl)) throw crossSiteRequest();
    const auth = await cache.authenticateSession(secret);
    request.principal = auth.principal;
    return `ses:${auth.principal.sessionId}`;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    request.authError = err;
    return undefined;
  }
}

/**
 * The `tack_session` cookie's value, parsed here: the cookie plugin is registered for the
 * pages only, so /v1 requests (nearly all with a bearer token) pay for no cookie hooks.
 */
export function sessionSecret(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : fastifyCookie.parse(header)[SESSION_COOKIE];
}
