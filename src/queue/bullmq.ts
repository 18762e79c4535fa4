import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { JOB_NAMES, type JobName, type JobResult } from '../domain/jobs.js';
import { queueConnection, workerConnection } from './connections.js';
import type { JobsHandle, RunJob } from './jobs-handle.js';

export interface BullJobsOptions {
  redisUrl: string;
  /** Key prefix of every queue (tests use their own). */
  prefix: string;
  /** Milliseconds between runs of each job. */
  everyMs: number;
  /** Upsert the job schedulers (every process does; it is idempotent). */
  schedule?: boolean;
  /** Run workers that process the jobs. */
  work?: boolean;
  log: Logger;
}

// A sweep that fails as a whole (the database is down) is retried after 10 s, 20 s, 40 s;
// failed jobs stay in Redis for inspection, completed ones only the last few.
const TEMPLATE = {
  attempts: 4,
  backoff: { type: 'exponential', delay: 10_000 },
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 1_000 },
} as const;

/**
 * The jobs on BullMQ: one queue per job, each with one Job Scheduler (`every` everyMs),
 * and a worker per queue with concurrency 1. Any number of processes may run this: the
 * schedulers are upserted by all of them (same id, same result), each scheduled run goes to
 * one worker, and the jobs themselves never send twice if two runs overlap anyway.
 */
export async function startBullJobs(run: RunJob, options: BullJobsOptions): Promise<JobsHandle> {
  const log = options.log.child({ component: 'jobs' });
  const connections: Redis[] = [];
  const queues: Queue[] = [];
  const workers: Worker[] = [];

  if (options.schedule ?? true) {
    const conn = queueConnection(options.redisUrl, log);
    connections.push(conn);
    for (const name of JOB_NAMES) {
      const queue = new Queue(name, { connection: conn, prefix: options.prefix });
      queue.on('error', (err) => log.debug({ err: err.message, queue: name }, 'jobs: queue error'));
      queues.push(queue);
    }
    const upsert = async () => {
      for (const queue of queues) {
        await queue.upsertJobScheduler(queue.name, { every: options.everyMs }, { name: queue.name, data: {}, opts: TEMPLATE });
      }
    };
    // On every (re)connect: a Redis that lost its data gets the schedulers back.
    conn.on('ready', () => {
      upsert().catch((err: Error) => log.warn({ err: err.message }, 'jobs: could not upsert the job schedulers; will retry on reconnect'));
    });
    if (conn.status === 'ready') await upsert().catch((err: Error) => log.warn({ err: err.message }, 'jobs: could not upsert the job schedulers'));
  }

  if (options.work ?? true) {
    for (const name of JOB_NAMES) {
      const conn = workerConnection(options.redisUrl, log);
      connections.push(conn);
      const worker = new Worker<unknown, JobResult>(name, async (job: Job) => run(job.name as JobName), {
        connection: conn,
        prefix: options.prefix,
        concurrency: 1,
        // Back to the queue quickly after Redis returns (the default waits 15 s).
        runRetryDelay: 2_000,
      });
      worker.on('error', (err) => log.debug({ err: err.message, queue: name }, 'jobs: worker error'));
      worker.on('failed', (job, err) => log.error({ err: err.message, job: job?.name, attempt: job?.attemptsMade }, 'jobs: run failed'));
      workers.push(worker);
    }
  }

  let closing: Promise<void> | undefined;
  const redisDown = () => connections.some((c) => c.status !== 'ready');
  return {
    mode: 'bullmq',
    close() {
      // Workers finish the run they are in; then the queues and connections close. BullMQ's
      // close waits on Redis, so while Redis is down it is given up on (a run cut short is
      // safe: its claims expire and the next run picks them up).
      closing ??= (async () => {
        await settleUnless(workers.map((w) => w.close()), redisDown, CLOSE_TIMEOUT_MS);
        await settleUnless(queues.map((q) => q.close()), redisDown, CLOSE_TIMEOUT_MS);
        for (const c of connections) c.disconnect();
        if (redisDown()) for (const w of workers) void w.close(true).catch(() => {});
      })();
      return closing;
    },
  };
}

const CLOSE_TIMEOUT_MS = 60_000;

/** Waits for `promises` to settle, but no longer than `ms`, nor once `stuck()` holds for a second. */
async function settleUnless(promises: Promise<unknown>[], stuck: () => boolean, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const started = Date.now();
  let stuckSince: number | undefined;
  const giveUp = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      const now = Date.now();
      stuckSince = stuck() ? (stuckSince ?? now) : undefined;
      if (now - started > ms || (stuckSince !== undefined && now - stuckSince >= 1_000)) resolve();
    }, 100);
  });
  await Promise.race([Promise.allSettled(promises), giveUp]);
  clearInterval(timer);
}
