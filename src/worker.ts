import type { Logger } from 'pino';
import { createLogger } from './log.js';
import type { Config } from './config.js';
import { connect, type DbHandle } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { listenForEvents } from './db/event-notifications.js';
import { JOBS_POOL_SIZE, startJobs, type JobsHandle, type StartJobsOptions } from './queue/index.js';
import { startWebhookRunner, type WebhookOptions } from './queue/webhook-runner.js';
import { checkBotToken } from './slack/token-check.js';
import { slackWebClient } from './slack/web-client.js';

export interface RunningWorker {
  db: DbHandle;
  log: Logger;
  jobs: JobsHandle;
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
 * processes and workers on different machines. It needs Redis (that is how runs reach it)
 * and a Slack bot token (that is what it sends with).
 */
export async function startWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  if (!config.redisUrl) throw new WorkerConfigError('tack worker needs REDIS_URL (without Redis, `tack serve` runs the jobs itself)');
  if (!config.slack.botToken) throw new WorkerConfigError('tack worker needs SLACK_BOT_TOKEN: reminders and summaries are Slack messages');
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
    // New events wake the notifier at once (its poll is the fallback).
    const listening = work === false ? undefined : await listenForEvents(db, () => jobs.eventsCommitted?.(), log);
    let closing: Promise<void> | undefined;
    return {
      db,
      log,
      jobs,
      close() {
        closing ??= (async () => {
          await Promise.all([jobs.close(), webhooks?.close()]);
          await listening?.stop();
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
