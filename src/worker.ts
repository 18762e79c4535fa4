import type { Logger } from 'pino';
import { createLogger } from './log.js';
import type { Config } from './config.js';
import { connect, type DbHandle } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { listenForEvents } from './db/event-notifications.js';
import { JOBS_POOL_SIZE, startJobs, type JobsHandle, type StartJobsOptions } from './queue/index.js';
import { startWebhookRunner, type WebhookOptions, type WebhookRunner } from './queue/webhook-runner.js';
import { startChannelPosts } from './queue/channel-posts-runner.js';
import { checkBotToken } from './slack/token-check.js';
import { slackWebClient } from './slack/web-client.js';

export interface RunningWorker {
  db: DbHandle;
  log: Logger;
  jobs: JobsHandle;
  /** Webhook deliveries (undefined with `work: false`). */
  webhooks: WebhookRunner | undefined;
  /** Lets the run in progress finish, then closes Redis and the database. */
  close(): Promise<void>;
}

export class WorkerConfigError extends Error {
  override name = 'WorkerConfigError';
}

export interface WorkerOptions extends Omit<StartJobsOptions, 'redisUrl'> {
  log?: Logger;
  clock?: () => Date;
  /** Webhook deliveries' settings (they run wherever the workers do). */
  webhooks?: WebhookOptions;
}

/**
 * `tack worker`: the BullMQ workers without the HTTP server, so a deployment runs API
 * processes and workers on different machines. It needs Redis (that is how runs reach it).
 * It always delivers webhooks (woken by the events' NOTIFY, like `tack serve`); the Slack
 * jobs (reminders, summaries) run only with a Slack bot token, which is what they send with.
 */
export async function startWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  if (!config.redisUrl) throw new WorkerConfigError('tack worker needs REDIS_URL (without Redis, `tack serve` runs the jobs itself)');
  const log = options.log ?? (await createLogger(config.logLevel));
  const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: JOBS_POOL_SIZE, timeouts: config.database.jobs });
  try {
    const applied = await db.unbounded(migrateToLatest);
    if (applied.length > 0) log.info({ applied }, 'database migrated');
    const deps = { db: db.db, slack: slackWebClient(config, log), clock: options.clock ?? (() => new Date()), config, log };
    if (deps.slack) void checkBotToken(deps.slack, log);
    const { prefix, everyMs, work, schedule } = options;
    const jobs = await startJobs(deps, { redisUrl: config.redisUrl, prefix, everyMs, work, schedule });
    const webhooks = work === false ? undefined : await startWebhookRunner(config, deps, { prefix: options.webhooks?.prefix ?? prefix, ...options.webhooks });
    // Board subscriptions' card threads (with Slack only).
    const channelPosts = work === false || !deps.slack ? undefined : startChannelPosts({ ...deps, appUrl: config.appUrl });
    // Events committed by any process: their deliveries, thread posts and notifications go out now, not at the next poll.
    const notifications = webhooks || channelPosts || work !== false ? await listenForEvents(db, (what) => { if (what.deliveries) webhooks?.wake(); channelPosts?.poke(); jobs.eventsCommitted?.(); }, log) : undefined;
    let closing: Promise<void> | undefined;
    return {
      db,
      log,
      jobs,
      webhooks,
      close() {
        closing ??= (async () => {
          await notifications?.stop();
          await Promise.all([jobs.close(), webhooks?.close(), channelPosts?.close()]);
          await db.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}
