import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Authenticated } from '../domain/authenticate.js';
import { AppError } from '../domain/errors.js';
import type { AuthCache } from './auth-cache.js';
import { authenticateCookie } from './cookie-auth.js';
import type { RequestCounter } from './request-counter.js';

export interface AdmissionOptions {
  authCache: AuthCache;
  counter: RequestCounter;
  /** URLs whose requests take a token (all of /v1 and /mcp): authenticated and counted per token, else per address. */
  byToken: (url: string) => boolean;
  /** Of those, the URLs that also take the web app's session cookie (/v1; /mcp takes bearer tokens alone). */
  byCookie: (url: string) => boolean;
  /** APP_URL as the server knows it now: a cookie's write must come from its pages. */
  appUrl: () => string;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Who is asking, and how often, before any route reads a body: on the URLs that take a token,
 * the bearer token (or on /v1 the session cookie) becomes `request.principal` and the request
 * is counted per token or session, else per address; routes that take no token opt in to
 * counting by address with `config: PER_ADDRESS`. A bad credential is kept in
 * `request.authError` for the route to refuse, after the count.
 */
async function admission(app: FastifyInstance, options: AdmissionOptions): Promise<void> {
  const { authCache, counter, byToken, byCookie } = options;
  app.decorateRequest('principal', null);
  app.decorateRequest('authError', null);

  /**
   * Authenticates a request and counts it. Returns undefined when all of it was done at once:
   * a cached token and the in-memory limiter, nearly every request.
   */
  const admit = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    const header = request.headers.authorization;
    if (header === undefined) {
      if (request.headers.cookie !== undefined && byCookie(request.url)) {
        return authenticateCookie(request, authCache, options.appUrl()).then((key) => (key ? counter.count(reply, key) : counter.countAddress(request, reply)));
      }
      return counter.countAddress(request, reply);
    }
    const m = BEARER.exec(header);
    if (!m) {
      request.authError = new AppError('unauthorized', 401, 'Use the header Authorization: Bearer <token>.');
      return counter.countAddress(request, reply);
    }
    const token = m[1]!;
    let auth: Authenticated | undefined;
    try {
      auth = authCache.cachedToken(token);
    } catch (err) {
      // An expired token; anything else is ours and answers 500.
      if (!(err instanceof AppError)) throw err;
      request.authError = err;
      return counter.countAddress(request, reply);
    }
    if (auth) {
      request.principal = auth.principal;
      return counter.countPrincipal(reply, auth.principal);
    }
    return authCache.authenticate(token).then(
      (loaded) => {
        request.principal = loaded.principal;
        return counter.countPrincipal(reply, loaded.principal);
      },
      async (err: unknown) => {
        // Counted either way, so that even a failure of ours (the database down) carries the
        // RateLimit headers; then a bad token is the route's to refuse, anything else answers.
        await counter.countAddress(request, reply);
        if (!(err instanceof AppError)) throw err;
        request.authError = err;
      },
    );
  };

  // A callback hook, not an async one: most requests finish it without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const byAddress = request.routeOptions.config.rateLimit === 'address';
    if (!byAddress && !byToken(request.url)) {
      done();
      return;
    }
    let pending: Promise<void> | undefined;
    try {
      pending = byAddress ? counter.countAddress(request, reply) : admit(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending === undefined) done();
    else pending.then(() => done(), (err: Error) => done(err));
  });
}

export const admissionPlugin = fp(admission, { name: 'tack-admission', fastify: '5.x' });
