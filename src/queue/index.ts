import { JOBS, type JobDeps } from '../../jobs/index.js';
import { startNotifier } from '../../jobs/notifier.js';
import { startBullJobs } from './bullmq.js';
import { startInProcessJobs } from './in-process.js';
import type { JobsHandle, RunJob } from './jobs-handle.js';

export type { JobsHandle } from './jobs-handle.js';

export interface StartJobsOptions {
  /** BullMQ on this Redis; unset: an in-process timer. */
  redisUrl: string | undefined;
  /** BullMQ key prefix (default `tack:jobs`); tests use their own. */
  prefix?: string;
  /** How often each job sweeps (default every minute). */
  everyMs?: number;
  /** With Redis: run workers (default true) and upsert the schedulers (default true). */
  work?: boolean;
  schedule?: boolean;
  /** How often the notifier (event consumers, notification DMs) looks without being woken (default 5 s). */
  notifyEveryMs?: number;
}

/** Connections of the jobs' own pool, in `tack serve` and `tack worker` alike: a sweep sends to a few members at a time (see todo-reminders). */
export const JOBS_POOL_SIZE = 4;

export const DEFAULT_PREFIX = 'tack:jobs';
export const DEFAULT_EVERY_MS = 60_000;

/**
 * Starts the background jobs: on BullMQ when Redis is configured, else on a timer in this
 * process. Without a Slack bot token there is nothing to send, and nothing starts.
 */
export async function startJobs(deps: JobDeps, options: StartJobsOptions): Promise<JobsHandle> {
  if (!deps.slack) {
    deps.log.info('Slack is not configured (SLACK_BOT_TOKEN): due-todo reminders, milestone summaries and notification DMs are off');
    return { mode: 'off', close: async () => {} };
  }
  // Closing stops a sweep in progress at its next member or subscription (what it claimed is
  // sent), so a long sweep does not outlast the shutdown's grace period.
  let stopping = false;
  const jobDeps: JobDeps = { ...deps, stopping: () => stopping };
  const run: RunJob = (name) => JOBS[name](jobDeps);
  const everyMs = options.everyMs ?? DEFAULT_EVERY_MS;
  const handle = options.redisUrl
    ? await startBullJobs(run, {
        redisUrl: options.redisUrl,
        prefix: options.prefix ?? DEFAULT_PREFIX,
        everyMs,
        work: options.work,
        schedule: options.schedule,
        log: deps.log,
      })
    : startInProcessJobs(run, { everyMs, log: deps.log });
  // Personal notifications: woken by the events NOTIFY, wherever jobs are worked on.
  const notifier = options.work === false ? undefined : startNotifier(jobDeps, options.notifyEveryMs);
  return {
    mode: handle.mode,
    eventsCommitted: () => notifier?.poke(),
    async close() {
      stopping = true;
      await Promise.all([handle.close(), notifier?.close()]);
    },
  };
}
