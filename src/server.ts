import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { buildApp, type App } from './app.js';
import { ConfigError, type Config } from './config.js';
import { authNotifications, type ListenTiming } from './db/auth-notifications.js';
import { connect, type DbHandle } from './db/connect.js';
import { listenForEvents } from './db/event-notifications.js';
import { migrateToLatest } from './db/migrate.js';
import { bootstrap, ownerLinkLimits } from './domain/bootstrap.js';
import { pruneEvents } from './domain/events.js';
import { pruneIdempotencyKeys } from './domain/idempotency.js';
import { pruneSignins } from './domain/sessions.js';
import { issueSigninLink } from './domain/signin-links.js';
import { createLogger } from './log.js';
import { connectRedis } from './redis.js';
import { jobRunner, type JobDeps } from '../jobs/index.js';
import { JOBS_POOL_SIZE, startJobs, type JobsHandle, type StartJobsOptions } from './queue/index.js';
import { startWebhookRunner, type WebhookOptions, type WebhookRunner } from './queue/webhook-runner.js';
import { startChannelPosts, type ChannelPostsHandle } from './queue/channel-posts-runner.js';
import { checkBotToken } from './slack/token-check.js';
import { slackWebClient } from './slack/web-client.js';

/** How long closing waits for the jobs' pool to end (see `release` in `startServer`). */
const JOBS_CLOSE_GRACE_MS = 5_000;

export interface RunningServer extends App {
  url: string;
  db: DbHandle;
  redis: Redis | undefined;
  /** The background jobs running in this process (undefined with `jobs: false`). */
  jobs: JobsHandle | undefined;
  /** Finish in-flight requests and the job run in progress, then close connections, database and Redis. */
  close(): Promise<void>;
}

export interface ServerOptions {
  log?: Logger;
  /** Where the one-time bootstrap token is printed (stdout by default). */
  print?: (line: string) => void;
  /** The time the app sees (tests pin it around a member's midnight). */
  clock?: () => Date;
  /**
   * Run the background jobs in this process (BullMQ workers with REDIS_URL, else a timer);
   * `false` for none (`tack serve --no-jobs`, when `tack worker` processes run them).
   */
  jobs?: false | Omit<StartJobsOptions, 'redisUrl'>;
  /** The web app's build to serve (default: `dist/web` of this checkout). */
  webDir?: string;
  /** How the connection listening for auth changes is watched (tests shorten it; default `LISTEN_TIMING`). */
  listenTiming?: ListenTiming;
  /** How long an event stream may be silent before its comment line (15 s; tests shorten it). */
  streamKeepAliveMs?: number;
  /**
   * Webhook deliveries in this process (on BullMQ with REDIS_URL, else a timer); by default
   * wherever the jobs run. `lookup` resolves webhook hosts (tests answer for names).
   */
  webhooks?: false | WebhookOptions;
}


const PRUNE_EVERY_MS = 60 * 60 * 1000;

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const log = options.log ?? (await createLogger(config.logLevel));
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  // Before the database: a bad file must stop start-up before it migrates or prints a token.
  const https = config.tls ? readTls(config.tls) : undefined;
  const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, timeouts: config.database.requests });
  // The jobs' own small pool, with their longer statement timeout (PGlite: its one connection).
  const jobsDb = db.pool ? await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: JOBS_POOL_SIZE, timeouts: config.database.jobs }) : db;
  let redis: Redis | undefined;
  let notifications: ReturnType<typeof authNotifications> | undefined;
  let eventNotifications: { stop: () => Promise<void> } | undefined;
  let jobs: JobsHandle | undefined;
  let webhooks: WebhookRunner | undefined;
  let channelPosts: ChannelPostsHandle | undefined;
  /** Everything below the HTTP app, in the order it must stop: on close, or when start-up fails. */
  const release = async () => {
    await jobs?.close();
    await webhooks?.close();
    await channelPosts?.close();
    await notifications?.stop();
    await eventNotifications?.stop();
    redis?.disconnect();
    // A job's connection can be stuck on a database gone silent (a network black hole) for as
    // long as a job's statement may run; its work is leased and runs again elsewhere, so the
    // close of the jobs' pool is not waited for past a short bound.
    if (jobsDb !== db) await Promise.race([jobsDb.close(), new Promise<void>((resolve) => setTimeout(resolve, JOBS_CLOSE_GRACE_MS).unref())]);
    await db.close();
  };
  try {
    const applied = await db.unbounded(migrateToLatest);
    if (applied.length > 0) log.info({ applied }, 'database migrated');
    const boot = await bootstrap(db.db, config.bootstrapToken);
    if (boot.generatedToken) {
      print(`tack: created organization "default" with an owner. Owner token (shown once, keep it safe):`);
      print(boot.generatedToken);
    }
    redis = config.redisUrl ? connectRedis(config.redisUrl, log) : undefined;
    const jobDeps: JobDeps = { db: jobsDb.db, slack: slackWebClient(config, log), clock: options.clock ?? (() => new Date()), config, log };
    if (jobDeps.slack) void checkBotToken(jobDeps.slack, log);
    const built = await buildApp({
      config,
      db: db.db,
      log,
      redis,
      https,
      clock: options.clock,
      jobs: jobRunner(jobDeps),
      webDir: options.webDir,
      // The Slack ack's own small pool; PGlite has its one connection only.
      openPool: db.pool ? (own) => connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, timeouts: config.database.requests, ...own }) : undefined,
      streamKeepAliveMs: options.streamKeepAliveMs,
      webhookLookup: options.webhooks ? options.webhooks.lookup : undefined,
    });
    if (db.pool) {
      notifications = authNotifications(db.pool, built.authCache, log, options.listenTiming);
    }
    // New events: the streams' feed reads them; webhook deliveries and channel posts (once started, below) look for their work.
    eventNotifications = await listenForEvents(
      db,
      (what) => {
        built.feed.poke();
        // Only events that queued deliveries give the webhooks work (the claim and the horizon it needs cost a few statements).
        if (what.deliveries) webhooks?.wake();
        channelPosts?.poke();
        jobs?.eventsCommitted?.();
      },
      log,
      options.listenTiming,
    );
    // Fastify's own line is the one that says where the server listens (per address for 0.0.0.0).
    await built.app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `listening on ${address}` });
    const prune = setInterval(() => {
      pruneIdempotencyKeys(jobsDb.db).catch((err: Error) => log.warn({ err: err.message }, 'idempotency cleanup failed'));
      pruneSignins(jobsDb.db, built.runtime.clock()).catch((err: Error) => log.warn({ err: err.message }, 'session cleanup failed'));
      pruneEvents({ db: jobsDb.db, clock: built.runtime.clock }).catch((err: Error) => log.warn({ err: err.message }, 'event cleanup failed'));
    }, PRUNE_EVERY_MS);
    prune.unref();
    const address = built.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `${config.tls ? 'https' : 'http'}://${host}:${port}`;
    if (config.publicBaseUrlIsDefault && port !== config.port) built.runtime.publicBaseUrl = `${url}/p`;
    if (config.appUrlIsDefault && port !== config.port) built.runtime.appUrl = withPort(config.appUrl, port);
    if (boot.owner) await printSigninLink(db, boot.owner, built.runtime, print, log);
    if (options.jobs !== false) jobs = await startJobs(jobDeps, { redisUrl: config.redisUrl, ...options.jobs });
    const hooks = options.webhooks ?? (options.jobs === false ? false : {});
    if (hooks !== false) webhooks = await startWebhookRunner(config, jobDeps, hooks);
    // Board subscriptions' card threads run wherever the jobs do (woken by the events NOTIFY above).
    if (options.jobs !== false && jobDeps.slack) channelPosts = startChannelPosts({ ...jobDeps, appUrl: built.runtime.appUrl ?? config.appUrl });
    let closing: Promise<void> | undefined;
    return {
      ...built,
      url,
      db,
      redis,
      jobs,
      close() {
        closing ??= (async () => {
          clearInterval(prune);
          // The jobs stop taking work now, beside the requests' drain, not after it.
          await Promise.all([built.app.close(), jobs?.close(), webhooks?.close(), channelPosts?.close()]);
          await release();
        })();
        return closing;
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}

function withPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString().replace(/\/+$/, '');
}

/**
 * Once, on the first start of an empty database (whether or not the owner token was given).
 * The link gives what the owner token has, and its session ends with that token (contract §9).
 */
async function printSigninLink(db: DbHandle, owner: { orgId: string; memberId: string; tokenId: string }, runtime: App['runtime'], print: (line: string) => void, log: Logger): Promise<void> {
  try {
    const link = await issueSigninLink(db.db, {
      orgId: owner.orgId,
      memberId: owner.memberId,
      createdBy: owner.memberId,
      now: runtime.clock(),
      appUrl: runtime.appUrl!,
      limits: ownerLinkLimits(owner.tokenId),
    });
    print(`tack: sign in to the web app as the owner: open ${link.url} (one use, valid 15 minutes; \`tack signin-link\` makes another)`);
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not make the first sign-in link; run `tack signin-link`');
  }
}

function readTls(tls: { certFile: string; keyFile: string }): { cert: Buffer; key: Buffer } {
  const read = (variable: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ConfigError(variable, `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  const pair = { cert: read('TLS_CERT_FILE', tls.certFile), key: read('TLS_KEY_FILE', tls.keyFile) };
  try {
    createSecureContext(pair);
  } catch (err) {
    const reason = ((err as Error).message ?? '').replace(/^error:[0-9A-F]+:/i, '');
    throw new ConfigError('TLS_CERT_FILE', `not a usable PEM certificate and key pair with TLS_KEY_FILE (${reason})`);
  }
  return pair;
}
