import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './domain/context.js';
import type { JobRunner } from './domain/jobs.js';
import type { HostLookup } from './domain/webhook-addresses.js';
import { admissionPlugin } from './http/admission.js';
import { api, isApiUrl } from './http/api.js';
import { AuthCache } from './http/auth-cache.js';
import { drainingPlugin } from './http/draining.js';
import { registerEventStream } from './http/event-stream.js';
import { StreamCallers } from './http/stream-callers.js';
import { EventFeed } from './domain/event-feed.js';
import { eventAnnouncer } from './db/event-announcer.js';
import { errorsPlugin } from './http/errors.js';
import { health } from './http/health.js';
import { registerCompression } from './http/compression.js';
import { createHttpInstance } from './http/http-instance.js';
import { pagesPlugin } from './http/pages.js';
import { publicLinkPath, publicLinks } from './http/public-links.js';
import { RequestCounter } from './http/request-counter.js';
import { secureCookies } from './http/session-cookie.js';
import { signinRoutes } from './http/signin.js';
import { defaultWebDir, webApp } from './http/web-app.js';
import { isMcpUrl, mcpHttpTransport } from './mcp/http-transport.js';
import type { Runtime } from './operations/execute.js';
import { operations } from './operations/index.js';
import { slackConnectRoutes } from './slack/connect-routes.js';
import { registerSlack, type SlackPluginOptions } from './slack/plugin.js';
import { registerGithub } from './github/plugin.js';

export interface AppDeps {
  config: Config;
  db: Db;
  log: Logger;
  redis?: Redis | undefined;
  clock?: () => Date;
  https?: { cert: Buffer; key: Buffer } | undefined;
  /** Runs a background job now (`runJob`). */
  jobs?: JobRunner;
  /** The web app's build (default: `dist/web` of this checkout). */
  webDir?: string;
  /** Opens a small pool of its own for a face that needs one (Slack's acks); without it, they use `db`. */
  openPool?: SlackPluginOptions['openPool'];
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

/** Requests that take a token, counted per token (else per address) before routing: all of /v1 and /mcp. */
const byToken = (url: string) => isApiUrl(url) || isMcpUrl(url);

/**
 * Builds the HTTP app without listening (tests inject or listen on port 0): the platform
 * (src/http: errors, draining, admission, in that order, on the root), then each face as a
 * sibling plugin. Nothing of a face is known here but where it plugs in.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, log } = deps;
  const clock = deps.clock ?? (() => new Date());
  // Date.now unless a clock is injected: read twice on every request (rate limit, auth cache).
  const injected = deps.clock;
  const nowMs = injected ? () => injected().getTime() : Date.now;
  const counter = new RequestCounter({ perMinute: config.rateLimitPerMinute, redis: deps.redis, log, nowMs });
  const { app, connections } = createHttpInstance({ config, log, https: deps.https, counter, counted: byToken });
  const authCache = new AuthCache(db, nowMs);
  // Every write's events announced after its commit, one NOTIFY at a time (event-announcer.ts).
  const announcer = eventAnnouncer(db, log);
  const runtime: Runtime = {
    db,
    clock,
    publicBaseUrl: config.publicBaseUrl,
    appUrl: config.appUrl,
    jobs: deps.jobs,
    webhooks: { allowPrivate: config.webhookAllowPrivate, lookup: deps.webhookLookup },
    // Other processes drop theirs on the NOTIFY sent inside the same transaction.
    afterCommit(change) {
      if (change.changesAuth) authCache.clear();
    },
    eventsCommitted: announcer.announce,
  };
  const appUrl = () => runtime.appUrl!;
  const secure = secureCookies(config.appUrl, deps.https !== undefined);

  // The API's own paths and the health checks answer 405; pages, public links and Slack 404.
  await app.register(errorsPlugin, { answers405: (url) => byToken(url) || url === '/healthz' || url === '/readyz' });
  await app.register(drainingPlugin, { connections });
  await app.register(admissionPlugin, { authCache, counter, byToken, byCookie: isApiUrl, appUrl });
  // On the root, for every face registered after it: text and JSON go out compressed when accepted.
  await registerCompression(app);

  await app.register(health, { db, redis: deps.redis });
  await app.register(api, { operations, runtime });
  const feed = new EventFeed(db, log);
  // Every clear of the auth cache (a change committed here, or another process's NOTIFY) reads the streams' callers again.
  const callers = new StreamCallers(db, clock);
  authCache.onChange(() => callers.changed());
  registerEventStream(app, { runtime, feed, callers, keepAliveMs: deps.streamKeepAliveMs });
  // Streams end as the drain starts: their clients reconnect (Last-Event-ID) to another process.
  app.addHook('preClose', async () => feed.close());
  app.addHook('onClose', async () => announcer.stop());
  await app.register(publicLinks, { db, publicBaseUrl: config.publicBaseUrl });
  await app.register(registerSlack, { config, runtime, log, openPool: deps.openPool });
  await app.register(registerGithub, { config, runtime, log });
  await app.register(mcpHttpTransport, {
    operations,
    runtime,
    // The messages of a batch past its first, which admission counted: each is a call.
    countMore: (request, reply, messages) => counter.countPrincipal(reply, request.principal!, messages),
  });
  // The pages a browser opens, in one scope: cookies and security headers for them alone.
  await app.register(async (browser) => {
    await browser.register(pagesPlugin, { secure });
    await browser.register(webApp, { webDir: deps.webDir ?? defaultWebDir(), publicLinkPath: publicLinkPath(config.publicBaseUrl) });
    await browser.register(signinRoutes, { runtime, appUrl, secureCookies: secure, authCache });
    await browser.register(slackConnectRoutes, { config, runtime, authCache });
  });
  return { app, authCache, runtime, feed };
}
