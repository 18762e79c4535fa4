import type http from 'node:http';
import type https from 'node:https';
import Fastify, { LogController, type FastifyHttpOptions, type FastifyHttpsOptions, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import cookie from '@fastify/cookie';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { operations } from '../operations/index.js';
import type { Runtime } from '../operations/execute.js';
import type { HostLookup } from '../domain/webhook-addresses.js';
import type { JobRunner } from '../domain/jobs.js';
import type { Authenticated } from '../domain/authenticate.js';
import type { Principal } from '../domain/context.js';
import { slackConnectRoutes } from '../slack/connect-routes.js';
import { registerSlack } from '../slack/plugin.js';
import { AuthCache } from './auth-cache.js';
import { clientErrors, frameworkErrors } from './client-errors.js';
import { newRequestId } from './request-id.js';
import { envelopeFor, MAX_PARAM_LENGTH, PARAM_TOO_LONG, sendError } from './envelope.js';
import { registerHealth } from './health.js';
import { registerJsonParser } from './json-parser.js';
import { registerOpenApi } from './openapi.js';
import { publicLinkPath, registerPublicLinks } from './public-links.js';
import { ConnectionTracker, serverTimeoutOptions } from './connections.js';
import { MemoryRateLimiter, RedisRateLimiter, RefusalLog, rateLimited, rateLimitHeaders, type RateDecision, type RateLimiter } from './rate-limit.js';
import { lazyChildLogger } from './request-logger.js';
import { requestPath } from './request-path.js';
import { registerOperationRoutes } from './routes.js';
import { registerEventStream } from './event-stream.js';
import { EventFeed } from '../domain/event-feed.js';
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
  /** How long an event stream may be silent before its comment line (`KEEP_ALIVE_MS`). */
  streamKeepAliveMs?: number;
  /** Resolves webhook hosts for the SSRF guard (tests answer for names; default: the system's resolver). */
  webhookLookup?: HostLookup;
}

export interface App {
  app: FastifyInstance;
  authCache: AuthCache;
  runtime: Runtime;
  /** The process's one reader of new events, for the open streams: told of commits by `listenForEvents`. */
  feed: EventFeed;
}

// JSON bodies may carry a snippet of up to 1 MiB, escaped; the domain enforces the real limits.
const BODY_LIMIT = 4 * 1024 * 1024;

/** Whether a request's URL is under /v1, as the router reads it (`requestPath`). */
function isApiUrl(url: string): boolean {
  const path = requestPath(url);
  return path.startsWith('/v1/') || path === '/v1';
}

/**
 * Requests counted by token (else by address) before routing: all of /v1 and /mcp. Routes
 * that take no token opt in to counting by address with `config: PER_ADDRESS` instead.
 */
function isRateLimited(url: string): boolean {
  return isApiUrl(url) || isMcpUrl(url);
}

/**
 * While draining, a connection is closed once it has waited this long for no answer: a
 * request its client sent as the drain began is still answered (503, `Connection: close`)
 * rather than reset.
 */
const DRAIN_GRACE_MS = 1_000;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What a token's requests are counted under (with Redis, by every process). */
const tokenKey = (principal: Principal) => `tok:${principal.tokenId}`;

function applyDecision(reply: FastifyReply, decision: RateDecision, onRefused?: () => void): void {
  for (const [name, value] of rateLimitHeaders(decision)) reply.header(name, value);
  if (decision.allowed) return;
  onRefused?.();
  throw rateLimited(decision);
}

/** Builds the HTTP app without listening (tests inject or listen on port 0). */
export async function buildApp(deps: AppDeps): Promise<App> {
  const clock = deps.clock ?? (() => new Date());
  // Date.now unless a clock is injected: read twice on every request (rate limit, auth cache).
  const injected = deps.clock;
  const nowMs = injected ? () => injected().getTime() : Date.now;
  const limiter: RateLimiter = deps.redis
    ? new RedisRateLimiter(deps.redis, deps.config.rateLimitPerMinute, deps.log)
    : new MemoryRateLimiter(deps.config.rateLimitPerMinute, nowMs);
  /**
   * Counts a request against `key` and says so in the RateLimit-* headers; throws 429
   * `rate_limited` past the limit. Without a promise when the limiter answers at once (in
   * memory): undefined then means counted and allowed.
   */
  const countRequest = (reply: FastifyReply, key: string, weight?: number, onRefused?: () => void): Promise<void> | undefined => {
    const decision = limiter.hit(key, weight);
    if (decision instanceof Promise) return decision.then((d) => applyDecision(reply, d, onRefused));
    applyDecision(reply, decision, onRefused);
    return undefined;
  };
  const refusals = new RefusalLog(deps.log, nowMs);
  /** Counts a request without a (valid) token by its client address; a refusal is logged once a minute per address. */
  const countAddress = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined =>
    countRequest(reply, `ip:${request.ip}`, undefined, () => refusals.refused(request.ip, { path: requestPath(request.url), limit: deps.config.rateLimitPerMinute }));
  const { requestTimeoutMs, idleTimeoutMs } = deps.config.http;
  const nodeTimeouts = serverTimeoutOptions({ requestTimeoutMs, idleTimeoutMs });
  const options: FastifyHttpOptions<http.Server> = {
    loggerInstance: deps.log,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: BODY_LIMIT,
    // A body cannot be held open: the whole request within requestTimeout (408 after), and a
    // silent connection closed after idleTimeout unless its handler is working (ConnectionTracker).
    requestTimeout: requestTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    http: nodeTimeouts,
    genReqId: newRequestId,
    // Before any hook, so before authentication: counted per address, like a request without a token.
    frameworkErrors: frameworkErrors(async (request, reply) => (isRateLimited(request.url) ? countAddress(request, reply) : undefined)),
    clientErrorHandler: clientErrors((_method, url, address) => (isRateLimited(url) ? limiter.hit(`ip:${address}`) : undefined)),
    requestIdHeader: false,
    // Requests that arrive while draining get the envelope from the onRequest hook instead.
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
  };
  // Fastify's HTTPS overload returns an instance typed for https.Server; the app itself does
  // not care which server carries it.
  const app = (deps.https ? Fastify({ ...options, http: undefined, https: { ...deps.https, ...nodeTimeouts } } as FastifyHttpsOptions<https.Server>) : Fastify(options)) as unknown as FastifyInstance;
  const connections = new ConnectionTracker(app.server);

  const authCache = new AuthCache(deps.db, nowMs);
  const runtime: Runtime = {
    db: deps.db,
    clock,
    publicBaseUrl: deps.config.publicBaseUrl,
    appUrl: deps.config.appUrl,
    jobs: deps.jobs,
    webhooks: { allowPrivate: deps.config.webhookAllowPrivate, lookup: deps.webhookLookup },
    // Other processes drop theirs on the NOTIFY sent inside the same transaction.
    afterCommit(change) {
      if (change.changesAuth) authCache.clear();
    },
  };
  const secure = secureCookies(deps.config.appUrl, deps.https !== undefined);

  app.decorateRequest('principal', null);
  app.decorateRequest('authError', null);
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
  let closingIdle: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    draining = true;
    // Node closes every idle connection as the server closes, and a client may have just sent
    // its next request on one (a reset, where the drain promises a 503). Closed here only
    // once idle for the grace, as they come: a connection whose in-flight answer goes out
    // later is kept alive by its client and would hold the process open until the shutdown's
    // force timer (exit 1 after 25 s).
    connections.startDraining();
    app.server.closeIdleConnections = () => connections.closeIdle(DRAIN_GRACE_MS);
    closingIdle = setInterval(() => connections.closeIdle(DRAIN_GRACE_MS), 100);
    closingIdle.unref();
  });
  app.addHook('onClose', async () => clearInterval(closingIdle));
  // While draining, an answer that is the last its connection owes closes that connection
  // after it (a request pipelined behind it is still answered, its 503 closing it).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (draining && connections.answering(request.raw.socket) <= 1) reply.header('Connection', 'close');
    done(null, payload);
  });
  /**
   * Authenticates a rate-limited request (bearer token, or on /v1 the session cookie) and
   * counts it: per token or session, else per address. A bad credential is kept in
   * `request.authError` for the route to refuse, after the count. Returns undefined when all
   * of it was done at once: a cached token and the in-memory limiter, nearly every request.
   */
  const admit = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    const header = request.headers.authorization;
    if (header === undefined) {
      // The web app's session cookie, on /v1 only: /mcp takes bearer tokens alone.
      if (request.headers.cookie !== undefined && isApiUrl(request.url)) {
        return authenticateCookie(request, authCache, runtime.appUrl!).then((key) => (key ? countRequest(reply, key) : countAddress(request, reply)));
      }
      return countAddress(request, reply);
    }
    const m = BEARER.exec(header);
    if (!m) {
      request.authError = new AppError('unauthorized', 401, 'Use the header Authorization: Bearer <token>.');
      return countAddress(request, reply);
    }
    const token = m[1]!;
    let auth: Authenticated | undefined;
    try {
      auth = authCache.cachedToken(token);
    } catch (err) {
      // An expired token; anything else is ours and answers 500.
      if (!(err instanceof AppError)) throw err;
      request.authError = err;
      return countAddress(request, reply);
    }
    if (auth) {
      request.principal = auth.principal;
      return countRequest(reply, tokenKey(auth.principal));
    }
    return authCache.authenticate(token).then(
      (loaded) => {
        request.principal = loaded.principal;
        return countRequest(reply, tokenKey(loaded.principal));
      },
      async (err: unknown) => {
        // Counted either way, so that even a failure of ours (the database down) carries the
        // RateLimit headers; then a bad token is the route's to refuse, anything else answers.
        await countAddress(request, reply);
        if (!(err instanceof AppError)) throw err;
        request.authError = err;
      },
    );
  };
  // A callback hook, not an async one: most requests finish it without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    if (draining) {
      reply.header('Connection', 'close').header('Retry-After', '1');
      done(new AppError('shutting_down', 503, 'The server is shutting down; retry shortly.'));
      return;
    }
    const byAddress = request.routeOptions.config.rateLimit === 'address';
    if (!byAddress && !isRateLimited(request.url)) {
      done();
      return;
    }
    let pending: Promise<void> | undefined;
    try {
      pending = byAddress ? countAddress(request, reply) : admit(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending === undefined) done();
    else pending.then(() => done(), (err: Error) => done(err));
  });

  app.addHook('onClose', async () => limiter.close());

  registerOpenApi(app, operations, () => runtime.appUrl!);
  registerHealth(app, deps);
  registerOperationRoutes(app, operations, runtime);
  const feed = new EventFeed(deps.db, deps.log);
  registerEventStream(app, { runtime, feed, keepAliveMs: deps.streamKeepAliveMs });
  // Streams end as the drain starts: their clients reconnect (Last-Event-ID) to another process.
  app.addHook('preClose', async () => feed.close());
  registerPublicLinks(app, { db: deps.db, publicBaseUrl: deps.config.publicBaseUrl });
  await registerSlack(app, { config: deps.config, runtime, log: deps.log });
  await app.register(mcpHttpTransport, {
    operations,
    runtime,
    // The messages of a batch past its first, which onRequest counted: each is a call.
    countMore: (request, reply, messages) => countRequest(reply, tokenKey(request.principal!), messages),
  });
  await app.register(async (web) => {
    // Cookies are parsed and set by the pages and sign-in only; /v1 reads its session cookie itself.
    await web.register(cookie);
    await webApp(web, { webDir: deps.webDir ?? defaultWebDir(), publicLinkPath: publicLinkPath(deps.config.publicBaseUrl), secure });
    await signinRoutes(web, { db: deps.db, clock, appUrl: () => runtime.appUrl!, secureCookies: secure, authCache });
    await slackConnectRoutes(web, { config: deps.config, runtime, authCache });
  });
  return { app, authCache, runtime, feed };
}
