import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { deliverWebhooks, type WebhookDeps } from '../../jobs/webhook-deliveries.js';
import { nextDueAt } from '../domain/webhook-outbox.js';
import type { Config } from '../config.js';
import type { HostLookup } from '../domain/webhook-addresses.js';
import { queueConnection, workerConnection } from './connections.js';
import type { JobsHandle } from './jobs-handle.js';

/**
 * How often due deliveries are looked for when nothing said so: the fallback. A sweep starts
 * at once when events are committed (`wake`, on the events' NOTIFY) and when the next attempt
 * known falls due (a timer set after each sweep); the poll only covers what those miss (a
 * retry recorded by a process that died, a lost notification).
 */
export const WEBHOOK_POLL_MS = 10_000;
/** The shortest wait for the next attempt due (a head due now but claimed elsewhere is not looked at in a loop). */
const MIN_DUE_WAIT_MS = 50;
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

/** Running webhook deliveries. */
export interface WebhookRunner extends JobsHandle {
  /** Events were committed: sweep now (a sweep under way sweeps once more after). */
  wake(): void;
}

/**
 * Runs webhook deliveries: a sweep of due attempts when woken (events committed), when the
 * next attempt falls due, and every `everyMs` as a fallback, on a BullMQ Job Scheduler when
 * Redis is configured (one worker per process, concurrency 1), else on a timer here. One
 * sweep at a time per process. The schedule itself is the outbox in Postgres
 * (`webhook_deliveries.next_attempt_at`), so a Redis flush, a crash or any number of
 * processes lose and double nothing: the queue and the timers only say when to look.
 */
export async function startWebhookDeliveries(deps: WebhookDeps, options: WebhookRunnerOptions): Promise<WebhookRunner> {
  let stopping = false;
  const sweepDeps: WebhookDeps = { ...deps, stopping: () => stopping || (deps.stopping?.() ?? false) };
  const log = deps.log.child({ component: 'webhooks' });
  let running: Promise<void> | undefined;
  let again = false;
  let due: NodeJS.Timeout | undefined;
  /** After a sweep: a timer for the next attempt that falls due, if sooner than the poll. */
  const armNextDue = async () => {
    const next = await nextDueAt(deps.db);
    clearTimeout(due);
    due = undefined;
    if (!next || stopping) return;
    const wait = Math.max(MIN_DUE_WAIT_MS, next.getTime() - deps.clock().getTime());
    if (wait > everyMs) return;
    due = setTimeout(kick, wait);
    due.unref();
  };
  const sweepOnce = async () => {
    try {
      do {
        again = false;
        await deliverWebhooks(sweepDeps);
      } while (again && !stopping);
      if (!stopping) await armNextDue();
    } catch (err) {
      log.error({ err: (err as Error).message }, 'webhooks: a sweep failed; the next one tries again');
    }
  };
  /** Sweeps now, or once more after the sweep under way; resolves when that sweep is done. */
  const kick = (): Promise<void> => {
    if (stopping) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = sweepOnce().finally(() => (running = undefined));
    return running;
  };
  const wake = () => void kick();
  const everyMs = options.everyMs ?? WEBHOOK_POLL_MS;
  const stopTimers = () => {
    stopping = true;
    clearTimeout(due);
  };
  const drain = async () => {
    if (running) await Promise.race([running, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
  };
  if (!options.redisUrl) {
    const first = setTimeout(wake, 0);
    const timer = setInterval(wake, everyMs);
    first.unref();
    timer.unref();
    return {
      mode: 'in-process',
      wake,
      async close() {
        stopTimers();
        clearTimeout(first);
        clearInterval(timer);
        await drain();
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
  const worker = new Worker(QUEUE, kick, { connection: connections[1]!, prefix: options.prefix, concurrency: 1, runRetryDelay: 2_000 });
  worker.on('error', (err) => log.debug({ err: err.message }, 'webhooks: worker error'));
  let closing: Promise<void> | undefined;
  return {
    mode: 'bullmq',
    wake,
    close() {
      closing ??= (async () => {
        stopTimers();
        clearInterval(reupsert);
        const down = () => connections.some((c) => c.status !== 'ready');
        await (down() ? worker.close(true) : worker.close()).catch(() => {});
        await drain();
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
export function startWebhookRunner(config: Config, deps: Pick<WebhookDeps, 'db' | 'clock' | 'log'>, options: WebhookOptions): Promise<WebhookRunner> {
  return startWebhookDeliveries(
    { db: deps.db, clock: deps.clock, log: deps.log, policy: { allowPrivate: config.webhookAllowPrivate, lookup: options.lookup }, timeoutMs: options.timeoutMs, lanes: options.lanes },
    { redisUrl: config.redisUrl, prefix: options.prefix ?? 'tack:jobs', everyMs: options.everyMs },
  );
}
