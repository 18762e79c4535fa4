import type https from 'node:https';
import Fastify, { LogController, type FastifyHttpsOptions, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import cookie from '@fastify/cookie';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { operations } from '../operations/index.js';
import type { Runtime } from '../operations/execute.js';
import type { JobRunner } from '../domain/jobs.js';
import { registerSlack } from '../slack/plugin.js';
import { AuthCache } from './auth-cache.js';
import { clientErrorHandler, frameworkErrors, newRequestId } from './client-errors.js';
import { envelopeFor, MAX_PARAM_LENGTH, PARAM_TOO_LONG, sendError } from './envelope.js';
import { registerHealth } from './health.js';
import { registerJsonParser } from './json-parser.js';
import { registerOpenApi } from './openapi.js';
import { publicLinkPath, registerPublicLinks } from './public-links.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './rate-limit.js';
import { registerOperationRoutes } from './routes.js';
import { routeMethods } from './route-methods.js';
import { authenticateCookie } from './cookie-auth.js';
import { secureCookies } from './session-cookie.js';
import { signinRoutes } from './signin.js';
import { defaultWebDir, webApp } from './web-app.js';
import { isMcpUrl, mcpHttpTransport } from '../mcp/http-transport.js';

export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  log: Logger;
  redis?: Redis | undefined;
  clock?: () => Date;
  https?: { cert: Buffer; key: Buffer } | undefined;
  /** Runs a background job now (`runJob`). */
  jobs?: JobRunner;
  /** The web app's build (default: `dist/web` of this checkout). */
  webDir?: string;
}

export interface App {
  app: FastifyInstance;
  authCache: AuthCache;
  runtime: Runtime;
}

// JSON bodies may carry a snippet of up to 1 MiB, escaped; the domain enforces the real limits.
const BODY_LIMIT = 4 * 1024 * 1024;

/** Sign-in and sign-out posts are rate-limited per address like unauthenticated /v1 calls. */
function isSigninPost(method: string, url: string): boolean {
  if (method !== 'POST') return false;
  const path = url.split('?')[0];
  return path === '/signin' || path === '/signout';
}

function isApiUrl(url: string): boolean {
  return url.startsWith('/v1/') || url === '/v1';
}

/** Requests counted against a rate limit: all of /v1 and /mcp, and the sign-in and sign-out posts. */
function isRateLimited(method: string, url: string): boolean {
  return isApiUrl(url) || isMcpUrl(url) || isSigninPost(method, url);
}

/** Builds the HTTP app without listening (tests inject or listen on port 0). */
export async function buildApp(deps: AppDeps): Promise<App> {
  const clock = deps.clock ?? (() => new Date());
  const limiter: RateLimiter = deps.redis
    ? new RedisRateLimiter(deps.redis, deps.config.rateLimitPerMinute, deps.log)
    : new MemoryRateLimiter(deps.config.rateLimitPerMinute, () => clock().getTime());
  /** Counts a request against `key` and says so in the RateLimit-* headers; throws 429 `rate_limited` past the limit. */
  const countRequest = async (reply: FastifyReply, key: string): Promise<void> => {
    const decision = await limiter.hit(key);
    reply.header('RateLimit-Limit', decision.limit);
    reply.header('RateLimit-Remaining', decision.remaining);
    reply.header('RateLimit-Reset', decision.reset);
    if (!decision.allowed) {
      reply.header('Retry-After', decision.reset);
      throw new AppError('rate_limited', 429, `Too many requests; retry in ${decision.reset} s.`);
    }
  };
  const options: FastifyServerOptions = {
    loggerInstance: deps.log,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    genReqId: newRequestId,
    // Before any hook, so before authentication: counted per address, like a request without a token.
    frameworkErrors: frameworkErrors(async (request, reply) => (isRateLimited(request.method, request.url) ? countRequest(reply, `ip:${request.ip}`) : undefined)),
    clientErrorHandler,
    requestIdHeader: false,
    // Requests that arrive while draining get the envelope from the onRequest hook instead.
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
  };
  // Fastify's HTTPS overload returns an instance typed for https.Server; the app itself does
  // not care which server carries it.
  const app = (deps.https ? Fastify({ ...options, https: deps.https } as FastifyHttpsOptions<https.Server>) : Fastify(options)) as unknown as FastifyInstance;

  const authCache = new AuthCache(deps.db, () => clock().getTime());
  const runtime: Runtime = {
    db: deps.db,
    clock,
    publicBaseUrl: deps.config.publicBaseUrl,
    appUrl: deps.config.appUrl,
    jobs: deps.jobs,
    // Other processes drop theirs on the NOTIFY sent inside the same transaction.
    afterCommit(change) {
      if (change.changesAuth) authCache.clear();
    },
  };
  const secure = secureCookies(deps.config.appUrl, deps.https !== undefined);

  app.decorateRequest('principal', null);
  app.decorateRequest('authError', null);
  // Before the auth hook below: it reads the parsed cookies.
  await app.register(cookie);
  registerJsonParser(app);
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));

  // The API's own paths and the health checks; pages, public links and Slack keep 404 for other methods.
  const methodsFor = routeMethods(app, (url) => isApiUrl(url) || isMcpUrl(url) || url === '/healthz' || url === '/readyz');
  app.setNotFoundHandler((request, reply) => {
    const allowed = methodsFor(request.url);
    if (allowed.includes(request.method)) {
      // A route for this method and path shape exists, so the router refused a parameter over
      // maxParamLength: nothing has an identifier that long. (Not 405: the method is allowed.)
      return reply.code(404).send(envelopeFor(404, request.id, 'not_found', PARAM_TOO_LONG));
    }
    if (allowed.length > 0) {
      return reply.code(405).header('Allow', allowed.join(', ')).send(envelopeFor(405, request.id));
    }
    return reply.code(404).send(envelopeFor(404, request.id));
  });

  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (draining) {
      reply.header('Connection', 'close').header('Retry-After', '1');
      throw new AppError('shutting_down', 503, 'The server is shutting down; retry shortly.');
    }
    if (!isRateLimited(request.method, request.url)) return;
    const api = isApiUrl(request.url);
    let key: string | undefined;
    const header = request.headers.authorization;
    if (header === undefined && api) {
      // The web app's session cookie, on /v1 only: /mcp takes bearer tokens alone.
      key = await authenticateCookie(request, authCache, runtime.appUrl!);
    } else if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      try {
        if (!m) throw new AppError('unauthorized', 401, 'Use the header Authorization: Bearer <token>.');
        const auth = await authCache.authenticate(m[1]!);
        request.principal = auth.principal;
        key = `tok:${auth.principal.tokenId}`;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        request.authError = err;
      }
    }
    await countRequest(reply, key ?? `ip:${request.ip}`);
  });

  app.addHook('onClose', async () => limiter.close());

  registerOpenApi(app, operations);
  registerHealth(app, deps);
  registerOperationRoutes(app, operations, runtime);
  registerPublicLinks(app, { db: deps.db, publicBaseUrl: deps.config.publicBaseUrl });
  await registerSlack(app, { config: deps.config, runtime, log: deps.log });
  await app.register(mcpHttpTransport, { operations, runtime });
  await app.register(async (web) => {
    await webApp(web, { webDir: deps.webDir ?? defaultWebDir(), publicLinkPath: publicLinkPath(deps.config.publicBaseUrl), secure });
    await signinRoutes(web, { db: deps.db, clock, appUrl: () => runtime.appUrl!, secureCookies: secure, authCache });
  });
  return { app, authCache, runtime };
}
