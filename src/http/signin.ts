import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CURRENT_SESSION } from '../domain/sessions.js';
import { AppError } from '../domain/errors.js';
import { describeSigninCode, redeemSigninCode } from '../domain/signin-links.js';
import { callOperation } from '../operations/call.js';
import type { Runtime } from '../operations/execute.js';
import type { AuthCache } from './auth-cache.js';
import { crossSitePage, invalidCodePage, signinPage } from './html-pages.js';
import { PER_ADDRESS } from './rate-limit.js';
import { crossSiteRequest, isSameOriginRequest } from './same-origin.js';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './session-cookie.js';

export interface SigninDeps {
  /** The server's runtime: sign-out is the `deleteSession` operation, run through it. */
  runtime: Runtime;
  /** APP_URL as the server knows it now (the real port once listening). */
  appUrl: () => string;
  secureCookies: boolean;
  authCache: AuthCache;
}

// A code and a path: nothing bigger belongs in these forms.
const BODY_LIMIT = 16 * 1024;

/**
 * `GET /signin` (a page with a Sign in button; it changes nothing, so a link scanner burns
 * no code), `POST /signin` (code → session cookie, 303) and `POST /signout`. Forms arrive
 * form-encoded or as JSON; both posts are taken only from tack's own pages.
 */
export async function signinRoutes(app: FastifyInstance, deps: SigninDeps): Promise<void> {
  await app.register(formbody, { bodyLimit: BODY_LIMIT });

  app.get('/signin', { config: PER_ADDRESS }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const code = typeof query.code === 'string' ? query.code : undefined;
    const next = typeof query.next === 'string' ? sameOriginPath(query.next) : undefined;
    if (code === undefined || code === '') return sendHtml(reply, 200, signinPage(undefined, undefined));
    // Says whom the link signs in, and into which organization, without using it up.
    const who = await describeSigninCode(deps.runtime.db, code, deps.runtime.clock());
    if (!who) return sendHtml(reply, 400, invalidCodePage());
    return sendHtml(reply, 200, signinPage({ code, ...who }, next === '/' ? undefined : next));
  });

  const refuseCrossSite = async (request: FastifyRequest, reply: FastifyReply) => {
    if (isSameOriginRequest(request, deps.appUrl())) return;
    if (isForm(request)) return sendHtml(reply, 403, crossSitePage());
    throw crossSiteRequest();
  };

  app.post('/signin', { bodyLimit: BODY_LIMIT, config: PER_ADDRESS, onRequest: refuseCrossSite }, async (request, reply) => {
    const body = fields(request);
    const code = typeof body.code === 'string' ? body.code : '';
    try {
      // The browser's previous session, if any, ends with this sign-in (in every process).
      const replaces = request.cookies[SESSION_COOKIE];
      const session = await redeemSigninCode(deps.runtime.db, code, { now: deps.runtime.clock(), userAgent: request.headers['user-agent'], replaces });
      if (session.replaced) deps.authCache.clear();
      setSessionCookie(reply, session.secret, deps.secureCookies);
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_signin_code' && isForm(request)) return sendHtml(reply, 400, invalidCodePage());
      throw err;
    }
    const next = typeof body.next === 'string' ? sameOriginPath(body.next) : '/';
    return reply.code(303).header('Location', next).header('Cache-Control', 'no-store').send();
  });

  app.post('/signout', { bodyLimit: BODY_LIMIT, config: PER_ADDRESS, onRequest: refuseCrossSite }, async (request, reply) => {
    const secret = request.cookies[SESSION_COOKIE];
    if (secret) {
      try {
        const { principal } = await deps.authCache.authenticateSession(secret);
        // The one write path, as `DELETE /v1/sessions/current`: the caller confirmed in the
        // transaction, retried on a deadlock, every other process told on commit (NOTIFY), and
        // this one's cached principals dropped after it (the runtime's afterCommit).
        await callOperation(deps.runtime, 'deleteSession', principal, { id: CURRENT_SESSION });
      } catch (err) {
        // An ended or unknown session (401), or one ended by another request meanwhile (404), is signed out already.
        if (!(err instanceof AppError) || (err.status !== 401 && err.status !== 404)) throw err;
      }
    }
    clearSessionCookie(reply, deps.secureCookies);
    if (isForm(request)) return reply.code(303).header('Location', '/signin').send();
    return reply.code(204).send();
  });
}

function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

function fields(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

const BASE = 'http://tack.invalid';

/**
 * Where to go after signing in: a path on tack itself, never another site (`//evil.example`,
 * `/\evil.example` and absolute URLs resolve to another origin and fall back to `/`).
 */
export function sameOriginPath(next: string): string {
  try {
    const url = new URL(next, BASE);
    // Dot segments can normalise to `//host/…`, which a browser reads as another site.
    if (url.origin !== BASE || url.pathname.startsWith('//')) return '/';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/';
  }
}

export function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('Cache-Control', 'no-store').send(html);
}
