import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { deliverWebhooks, type WebhookDeps } from '../../jobs/webhook-deliveries.js';
import type { Config } from '../config.js';
import type { HostLookup } from '../domain/webhook-addresses.js';
import { queueConnection, workerConnection } from './connections.js';
import type { JobsHandle } from './jobs-handle.js';

/** How often due deliveries are looked for (the first attempt of a new event waits at most this). */
export const WEBHOOK_POLL_MS = 1_000;
/**
 * How long closing waits for a sweep in progress. A sweep's attempts are leased, so one left
 * behind (its database gone silent, its receiver slow) is sent again by the next worker once
 * the lease ends: shutdown need not wait for it past this.
 */
const CLOSE_GRACE_MS = 5_000;

const QUEUE = 'webhook-deliveries';

export interface WebhookRunnerOptions {
  /** BullMQ on this Redis; unset: a timer in this process. */
  redisUrl: string | undefined;
  prefix: string;
  everyMs?: number;
  /** How often the scheduler is upserted again, in case Redis lost it (default 30 s). */
  reupsertMs?: number;
}

/**
 * Runs webhook deliveries: a sweep of due attempts every `everyMs`, on a BullMQ Job Scheduler
 * when Redis is configured (one worker per process, concurrency 1), else on a timer here. The
 * schedule itself is the outbox in Postgres (`webhook_deliveries.next_attempt_at`), so a Redis
 * flush, a crash or any number of processes lose and double nothing: the queue only says when
 * to look.
 */
export async function startWebhookDeliveries(deps: WebhookDeps, options: WebhookRunnerOptions): Promise<JobsHandle> {
  let stopping = false;
  const sweepDeps: WebhookDeps = { ...deps, stopping: () => stopping || (deps.stopping?.() ?? false) };
  const log = deps.log.child({ component: 'webhooks' });
  const sweep = async () => {
    try {
      await deliverWebhooks(sweepDeps);
    } catch (err) {
      log.error({ err: (err as Error).message }, 'webhooks: a sweep failed; the next one tries again');
    }
  };
  const everyMs = options.everyMs ?? WEBHOOK_POLL_MS;
  if (!options.redisUrl) {
    let running: Promise<void> | undefined;
    const tick = () => {
      running ??= sweep().finally(() => (running = undefined));
    };
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, everyMs);
    first.unref();
    timer.unref();
    return {
      mode: 'in-process',
      async close() {
        stopping = true;
        clearTimeout(first);
        clearInterval(timer);
        if (running) await Promise.race([running, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
      },
    };
  }
  const connections: Redis[] = [queueConnection(options.redisUrl, log), workerConnection(options.redisUrl, log)];
  const queue = new Queue(QUEUE, { connection: connections[0]!, prefix: options.prefix });
  queue.on('error', (err) => log.debug({ err: err.message }, 'webhooks: queue error'));
  const upsert = () =>
    queue
      .upsertJobScheduler(QUEUE, { every: everyMs }, { name: QUEUE, data: {}, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } })
      .catch((err: Error) => log.warn({ err: err.message }, 'webhooks: could not upsert the job scheduler; will retry on reconnect'));
  // On every (re)connect, and every half minute: a Redis that lost its data (a restart, a
  // FLUSHALL) gets the scheduler back, and the attempts that waited in Postgres go out then.
  connections[0]!.on('ready', () => void upsert());
  if (connections[0]!.status === 'ready') await upsert();
  const reupsert = setInterval(() => {
    if (connections[0]!.status === 'ready') void upsert();
  }, options.reupsertMs ?? 30_000);
  reupsert.unref();
  const worker = new Worker(QUEUE, sweep, { connection: connections[1]!, prefix: options.prefix, concurrency: 1, runRetryDelay: 2_000 });
  worker.on('error', (err) => log.debug({ err: err.message }, 'webhooks: worker error'));
  let closing: Promise<void> | undefined;
  return {
    mode: 'bullmq',
    close() {
      closing ??= (async () => {
        stopping = true;
        clearInterval(reupsert);
        const down = () => connections.some((c) => c.status !== 'ready');
        await (down() ? worker.close(true) : worker.close()).catch(() => {});
        await queue.close().catch(() => {});
        for (const c of connections) c.disconnect();
      })();
      return closing;
    },
  };
}

/** How a process runs webhook deliveries; `lookup` resolves webhook hosts (tests answer for names). */
export interface WebhookOptions {
  lookup?: HostLookup;
  /** BullMQ key prefix (default `tack:jobs`); tests use their own. */
  prefix?: string;
  everyMs?: number;
  timeoutMs?: number;
  lanes?: number;
}

/** Webhook deliveries with the jobs' pool and clock (`tack serve`, `tack worker`). */
export function startWebhookRunner(config: Config, deps: Pick<WebhookDeps, 'db' | 'clock' | 'log'>, options: WebhookOptions): Promise<JobsHandle> {
  return startWebhookDeliveries(
    { db: deps.db, clock: deps.clock, log: deps.log, policy: { allowPrivate: config.webhookAllowPrivate, lookup: options.lookup }, timeoutMs: options.timeoutMs, lanes: options.lanes },
    { redisUrl: config.redisUrl, prefix: options.prefix ?? 'tack:jobs', everyMs: options.everyMs },
  );
}
